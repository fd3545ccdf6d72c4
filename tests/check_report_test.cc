// The report of `convo check` (stages/check_report.h): severities, the summary
// line, and --select/--ignore. The rules themselves are in check_test.cc.
#include <catch2/catch.hpp>

#include "io/output.h"
#include "stages/check_report.h"
#include "test_util.h"

using namespace convo;

TEST_CASE("rules about the file's own bookkeeping are warnings, the rest errors", "[check]") {
  CHECK(rule_severity("duplicate-uuid") == Severity::warning);
  CHECK(rule_severity("dangling-parent") == Severity::warning);
  std::size_t warnings = 0;
  for (const CheckRule& rule : check_rules()) {
    warnings += rule_severity(rule.name) == Severity::warning ? 1 : 0;
  }
  CHECK(warnings == 2);
  CHECK(severity_name(rule_severity("tool-result-missing")) == "error");
}

TEST_CASE("the summary line counts problems, their severities and files", "[check]") {
  CheckTally tally;
  tally.errors = 10;
  tally.warnings = 2;
  tally.files = 40;
  tally.files_with_problems = 3;
  CHECK(check_summary(tally) == "12 problems (10 errors, 2 warnings) in 3 of 40 files");
  tally.errors = 1;
  tally.warnings = 0;
  tally.files = 1;
  tally.files_with_problems = 1;
  CHECK(check_summary(tally) == "1 problem (1 error) in 1 of 1 file");
}

namespace {

std::string report(const std::string& text, ReportOptions options, CheckTally& tally) {
  StreamOptions stream;
  stream.inputs = {"chat.jsonl"};
  stream.read.from = Format::openai;
  stream.read.on_error = OnError::keep;
  options.check.target = CheckTarget::openai;
  auto shared = std::shared_ptr<CheckTally>(&tally, [](CheckTally*) {});
  StringOutput out;
  NullDiagnostics diagnostics;
  run_stream(
      stream, [] { return make_check_stage(GroupBy::file); }, check_report_sink(options, shared),
      out, diagnostics, [&](const std::string&) { return memory_source(text); });
  return out.str();
}

}  // namespace

TEST_CASE("check reports and counts only what --select and --ignore choose", "[check]") {
  const std::string chat =
      R"({"role":"user","content":"hi"})" "\n"
      R"({"role":"wizard","content":"hi"})" "\n"
      "not json\n";
  CheckTally all;
  std::string everything = report(chat, {}, all);
  CHECK(everything.find("chat.jsonl:2: error: unknown-role:") != std::string::npos);
  CHECK(everything.find("chat.jsonl:3: error: malformed-line:") != std::string::npos);
  REQUIRE(all.problems() >= 2);

  ReportOptions select;
  select.select = {"malformed-line"};
  CheckTally selected;
  std::string only = report(chat, select, selected);
  CHECK(only.find("unknown-role") == std::string::npos);
  CHECK(selected.problems() == 1);

  ReportOptions ignore;
  ignore.ignore = {"malformed-line", "unknown-role"};
  CheckTally ignored;
  report(chat, ignore, ignored);
  CHECK(ignored.problems() == all.problems() - 2);
  CHECK(ignored.files == 1);

  ReportOptions quiet;
  quiet.quiet = true;
  CheckTally counted;
  CHECK(report(chat, quiet, counted).empty());
  CHECK(counted.problems() == all.problems());
}

TEST_CASE("a run reporting only secret rules checks no conversation, so it streams", "[check]") {
  ReportOptions all;
  CHECK(checks_conversations(all));
  ReportOptions secrets;
  secrets.select = {"secret-jwt", "secret-openai-key"};
  CHECK_FALSE(checks_conversations(secrets));
  ReportOptions mixed = secrets;
  mixed.select.push_back("malformed-line");
  CHECK(checks_conversations(mixed));
  mixed.ignore = {"malformed-line"};
  CHECK_FALSE(checks_conversations(mixed));

  // The sink then holds nothing: the file's own rules are not looked at.
  const std::string chat =
      R"({"role":"wizard","content":"hi"})" "\n"
      "not json\n";
  CheckTally tally;
  CHECK(report(chat, secrets, tally).empty());
  CHECK(tally.problems() == 0);
  CHECK(tally.files == 1);
}

// check's report of `text` (one file, session.jsonl) with --group-by file, its Claude
// Code records held as their bytes or whole.
static std::string report_grouped_by_file(const std::string& text, bool as_bytes) {
  StreamOptions stream;
  stream.inputs = {"session.jsonl"};
  stream.read.on_error = OnError::keep;
  CheckTally tally;
  auto shared = std::shared_ptr<CheckTally>(&tally, [](CheckTally*) {});
  StringOutput out;
  NullDiagnostics diagnostics;
  ReportOptions options;
  run_stream(
      stream, [as_bytes] { return make_check_stage(GroupBy::file, as_bytes); },
      check_report_sink(options, shared), out, diagnostics,
      [&](const std::string&) { return memory_source(text); });
  return out.str();
}

TEST_CASE("check reports the links of records held off every thread", "[check]") {
  // With --group-by file, records off the threads checked are never made messages;
  // their uuids and parent links still count for duplicate-uuid and dangling-parent.
  const std::string text =
      test::cc_user("a1", "", R"("first")") +
      test::cc_line("progress", "a2", "missing", R"("data":{})") +
      test::cc_user("a3", "a1", R"("x")") + test::cc_user("a3", "a1", R"("again")") +
      test::cc_user("a4", "gone", R"("dangling")") + test::cc_user("b1", "", R"("second")") +
      test::cc_assistant("b2", "b1", "msg_b", R"([{"type":"text","text":"two"}])");
  std::string held = report_grouped_by_file(text, true);
  CHECK(held == report_grouped_by_file(text, false));
  // (dangling-parent is decided across the run's inputs: golden case
  // check/group-by-file-checks-the-links-of-records-off-the-thread)
  CHECK(held.find("session.jsonl:4: warning: duplicate-uuid") != std::string::npos);
}

TEST_CASE("check reports the same with records held as their bytes", "[check]") {
  // Claude Code records are held as their bytes until the API view uses them
  // (slim_for_api): every session of the corpus is reported as when held whole.
  std::size_t files = 0;
  for (const test::CorpusFile& file : test::corpus_files()) {
    if (file.format != Format::claude_code) {
      continue;
    }
    ++files;
    INFO(file.path);
    CHECK(report_grouped_by_file(file.text, true) == report_grouped_by_file(file.text, false));
  }
  INFO("claude-code sessions in the corpus: " << files);
}
