#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <map>

#include "conversation.h"
#include "io/output.h"
#include "stages/convert.h"
#include "test_util.h"

using namespace convo;
using namespace convo::test;

TEST_CASE("the format of each input is detected from its first records", "[pipeline]") {
  CHECK(read_messages(R"({"role":"user","content":"hi"})").at(0).origin == Format::openai);
  CHECK(read_messages(R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]})")
            .at(0)
            .origin == Format::anthropic);
  CHECK(read_messages(R"({"type":"user","message":{"role":"user","content":"hi"},"uuid":"u"})")
            .at(0)
            .origin == Format::claude_code);
  // Bookkeeping lines first do not mislead detection.
  auto messages = read_messages(
      "{\"type\":\"summary\",\"summary\":\"t\",\"leafUuid\":\"x\"}\n"
      "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n");
  CHECK(messages.at(1).origin == Format::claude_code);
}

TEST_CASE("records of no known format are refused with a hint", "[pipeline]") {
  std::string line = R"({"kind":"note","body":"x"})";
  try {
    convert_text(line, Format::anthropic);
    FAIL("no error");
  } catch (const Error& error) {
    CHECK(error.message().starts_with(
        "in.jsonl:1:1: not a transcript convo reads: an object with keys \"kind\", \"body\"; "
        "convo reads claude-code, "));
    CHECK(error.code() == ExitCode::input);
  }
  auto skipped = convert_text(line + "\n" + line + "\n", Format::anthropic,
                              {std::nullopt, OnError::skip});
  CHECK(skipped.out.empty());
  REQUIRE(skipped.warnings.size() == 3);
  CHECK(skipped.warnings[1] == "in.jsonl: skipped 1 more record of this file");
  CHECK(skipped.warnings[2] == "skipped 2 bad records");
}

TEST_CASE("on-error fail stops at the first bad record with its place", "[pipeline]") {
  std::string text = "{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"user\",\"content\":\n";
  try {
    convert_text(text, Format::openai);
    FAIL("no error");
  } catch (const Error& error) {
    CHECK(error.message() == "in.jsonl:2:26: unexpected end of input (truncated line?)");
    CHECK(error.code() == ExitCode::input);
  }
}

TEST_CASE("on-error skip warns, counts and goes on", "[pipeline]") {
  std::string text = "{\"role\":\"user\",\"content\":\"a\"}\n42\n{\"role\":\"user\",\"content\":\"b\"}\n";
  auto result = convert_text(text, Format::openai, {std::nullopt, OnError::skip});
  CHECK(result.out == "{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"user\",\"content\":\"b\"}\n");
  REQUIRE(result.warnings.size() == 2);
  CHECK(result.warnings[0] == "in.jsonl:2:1: skipped bad record: expected a JSON object, got number");
  CHECK(result.warnings[1] == "skipped 1 bad record");
}

TEST_CASE("on-error keep writes the bad line through in its place", "[pipeline]") {
  std::string text = "{\"role\":\"user\",\"content\":\"a\"}\nnot json\n{\"role\":\"user\",\"content\":\"b\"}\n";
  auto result = convert_text(text, Format::anthropic, {std::nullopt, OnError::keep});
  CHECK(result.out == "{\"role\":\"user\",\"content\":\"a\"}\nnot json\n{\"role\":\"user\",\"content\":\"b\"}\n");
  CHECK(result.warnings.back() == "kept 1 bad record");
}

TEST_CASE("a decode error points at the member at fault", "[pipeline]") {
  std::string text = "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":7}]}";
  try {
    convert_text(text, Format::openai, {Format::anthropic, OnError::fail});
    FAIL("no error");
  } catch (const Error& error) {
    CHECK(error.message() == "in.jsonl:1:42: content[0].text: expected a string, got number");
  }
}

TEST_CASE("an input whose records contradict every format is an error", "[pipeline]") {
  std::string text = R"({"role":"tool","content":[{"type":"tool_use"}],"uuid":"x","message":{}})";
  try {
    convert_text(text, Format::openai);
    FAIL("no error");
  } catch (const Error& error) {
    CHECK(error.message().find("cannot tell the transcript format") != std::string::npos);
  }
}

TEST_CASE("several inputs are read in order, each with its own format", "[pipeline]") {
  StreamOptions options;
  options.inputs = {"a.jsonl", "b.jsonl"};
  options.to = Format::openai;
  StringOutput out;
  CollectingDiagnostics diagnostics;
  convert(options, out, diagnostics,
          memory_files({{"a.jsonl", R"({"type":"user","message":{"role":"user","content":"from cc"}})"},
                        {"b.jsonl", R"({"role":"user","content":[{"type":"text","text":"from anthropic"},{"type":"thinking","thinking":"t","signature":"s"}]})"}}));
  CHECK(out.str() == "{\"role\":\"user\",\"content\":\"from cc\"}\n{\"role\":\"user\",\"content\":\"from anthropic\"}\n");
}

TEST_CASE("a missing file is an error naming it", "[pipeline]") {
  StreamOptions options;
  options.inputs = {"nope.jsonl"};
  StringOutput out;
  NullDiagnostics diagnostics;
  CHECK_THROWS_WITH(convert(options, out, diagnostics, memory_files({})),
                    "nope.jsonl: cannot open: No such file or directory");
}

namespace {

// `convo convert` over `files` with `jobs`, as the command line runs it: output,
// warnings, and the error (empty when none).
struct JobsResult {
  std::string out;
  std::vector<std::string> warnings;
  std::string error;
  bool operator==(const JobsResult&) const = default;
};

JobsResult convert_files(const std::map<std::string, std::string>& files, unsigned jobs,
                         OnError on_error, std::optional<Format> to = Format::openai) {
  StreamOptions options;
  for (const auto& [name, text] : files) {
    options.inputs.push_back(name);
  }
  options.read.on_error = on_error;
  options.read.jobs = jobs;
  options.to = to;
  StringOutput out;
  CollectingDiagnostics diagnostics;
  JobsResult result;
  try {
    convert(options, out, diagnostics, memory_files(files));
  } catch (const Error& error) {
    result.error = error.message();
  }
  result.out = out.str();
  result.warnings = diagnostics.lines;
  return result;
}

std::map<std::string, std::string> many_files() {
  std::map<std::string, std::string> files;
  for (int i = 0; i < 12; ++i) {
    std::string text;
    for (int j = 0; j <= i * 50; ++j) {
      text += "{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":"
              "\"thinking\",\"thinking\":\"t\",\"signature\":\"s\"},{\"type\":\"text\",\"text\":\"" +
              std::to_string(i) + "/" + std::to_string(j) + "\"}]},\"uuid\":\"u\"}\n";
      if (j % 97 == 5) {
        text += "not json " + std::to_string(i) + "\n";
      }
    }
    files[fmt::format("f{:02}.jsonl", i)] = text;
  }
  return files;
}

}  // namespace

TEST_CASE("several jobs give the output, warnings and losses of one job", "[pipeline]") {
  auto files = many_files();
  JobsResult one = convert_files(files, 1, OnError::skip);
  CHECK(one.error.empty());
  CHECK(one.warnings.back().find("thinking blocks (") != std::string::npos);
  for (unsigned jobs : {2u, 3u, 8u}) {
    CHECK(convert_files(files, jobs, OnError::skip) == one);
  }
}

TEST_CASE("several jobs on an error write what one job writes before it, then the error", "[pipeline]") {
  auto files = many_files();
  JobsResult one = convert_files(files, 1, OnError::fail);
  CHECK(one.error == "f01.jsonl:7:2: invalid JSON value");
  // The records before the bad one are written, whole, and nothing after it.
  CHECK(one.out.size() > 0);
  CHECK(one.out.back() == '\n');
  for (unsigned jobs : {2u, 4u}) {
    CHECK(convert_files(files, jobs, OnError::fail) == one);
  }
}

TEST_CASE("a failing conversation is written whole or not at all", "[pipeline]") {
  // Two conversations (sessions) in one input; the second holds a bad record. The
  // first is written, nothing of the second.
  std::string text =
      "{\"type\":\"user\",\"sessionId\":\"s1\",\"message\":{\"role\":\"user\",\"content\":\"a\"}}\n"
      "{\"type\":\"user\",\"sessionId\":\"s1\",\"message\":{\"role\":\"user\",\"content\":\"b\"}}\n"
      "{\"type\":\"user\",\"sessionId\":\"s2\",\"message\":{\"role\":\"user\",\"content\":\"c\"}}\n"
      "{\"type\":\"user\",\"sessionId\":\"s2\",\"message\":{\"role\":\"user\",\"content\":7}}\n";
  StreamOptions options;
  options.inputs = {"in.jsonl"};
  StringOutput out;
  NullDiagnostics diagnostics;
  auto make_stage = [] {
    return std::make_unique<ConversationStage>([](std::vector<Message> m) { return m; });
  };
  CHECK_THROWS_AS(run_stream(options, make_stage, out, diagnostics,
                             memory_files({{"in.jsonl", text}})),
                  Error);
  CHECK(out.str() == text.substr(0, text.find("{\"type\":\"user\",\"sessionId\":\"s2\"")));
}

TEST_CASE("progress counters count inputs, bytes and records", "[pipeline]") {
  Progress progress;
  StreamOptions options;
  options.inputs = {"a.jsonl", "b.jsonl"};
  options.read.progress = &progress;
  options.to = Format::openai;
  StringOutput out;
  NullDiagnostics diagnostics;
  std::string line = "{\"role\":\"user\",\"content\":\"a\"}\n";
  convert(options, out, diagnostics, memory_files({{"a.jsonl", line}, {"b.jsonl", line + line}}));
  CHECK(progress.inputs_total == 2);
  CHECK(progress.inputs_done == 2);
  CHECK(progress.records == 3);
  CHECK(progress.bytes == 3 * line.size());
}

TEST_CASE("a loss counted again through the entry it was counted in counts as by name",
          "[pipeline]") {
  LossReport loss;
  const Location at;
  const std::size_t thinking = loss.drop(Format::openai, "thinking blocks", at);
  const std::size_t ids = loss.drop(Format::openai, "item ids", at);
  CHECK(thinking != ids);
  CHECK(loss.drop(Format::openai, "item ids", at, ids) == ids);
  // An entry of another name, target or report is looked past, to the right one.
  CHECK(loss.drop(Format::openai, "thinking blocks", at, ids) == thinking);
  CHECK(loss.drop(Format::openai, "thinking blocks", at, 99) == thinking);
  CHECK(loss.drop(Format::anthropic, "thinking blocks", at, thinking) != thinking);
  CHECK(loss.summary() ==
        "openai cannot hold thinking blocks (3), item ids (2); anthropic cannot hold thinking "
        "blocks (1)");
}
