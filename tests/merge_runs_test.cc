#include <catch2/catch.hpp>

#include "stages/merge_runs.h"
#include "test_util.h"

using namespace convo;
using namespace convo::test;

namespace {

std::string merge(const std::string& text, std::string separator = "\n",
                  ReadOptions read = {}) {
  MergeRunsOptions options;
  options.separator = std::move(separator);
  return run_stage_on(
             text, [&] { return std::make_unique<MergeRuns>(options); }, {}, read)
      .out;
}

}  // namespace

TEST_CASE("merge-runs joins texts with the separator, only between non-empty texts",
          "[merge_runs]") {
  std::string text =
      R"({"role":"user","content":"a","id":"1"})" "\n"
      R"({"role":"user","content":"","id":"2"})" "\n"
      R"({"role":"user","content":"b","id":"3"})" "\n"
      R"({"role":"assistant","content":null,"id":"4"})" "\n"
      R"({"role":"assistant","content":"c","id":"5"})" "\n";
  CHECK(merge(text) == R"({"role":"user","content":"a\nb","id":"1"})" "\n"
                       R"({"role":"assistant","content":"c","id":"4"})" "\n");
  CHECK(merge(text, " -- ") == R"({"role":"user","content":"a -- b","id":"1"})" "\n"
                               R"({"role":"assistant","content":"c","id":"4"})" "\n");
}

TEST_CASE("merge-runs never merges tool results, and a lone message keeps its bytes",
          "[merge_runs]") {
  std::string text =
      R"({"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"x\": 1}"}}]})" "\n"
      R"({"role":"tool","content":"one","tool_call_id":"c1"})" "\n"
      R"({"role":"tool","content":"two","tool_call_id":"c2"})" "\n"
      R"({"role":"assistant","content":  "done"})" "\n";
  CHECK(merge(text) == text);
}

TEST_CASE("merge-runs concatenates tool calls in order and keeps the text a string",
          "[merge_runs]") {
  std::string text =
      R"({"role":"assistant","content":"Let me look.","id":"a1","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"x\": 1}"}}]})" "\n"
      R"({"role":"assistant","content":"And this.","id":"a2","tool_calls":[{"id":"c2","type":"function","function":{"name":"g","arguments":"{}"}}]})" "\n";
  CHECK(merge(text) ==
        R"({"role":"assistant","content":"Let me look.\nAnd this.","id":"a1","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"x\": 1}"}},{"id":"c2","type":"function","function":{"name":"g","arguments":"{}"}}]})" "\n");
}

TEST_CASE("merge-runs: a string and a list of parts become a list of parts", "[merge_runs]") {
  std::string text =
      R"({"role":"user","content":"look"})" "\n"
      R"({"role":"user","content":[{"type":"text","text":"at"},{"type":"image_url","image_url":{"url":"https://x/a.png"}}]})" "\n"
      R"({"role":"user","content":"this"})" "\n";
  CHECK(merge(text) ==
        R"({"role":"user","content":[{"type":"text","text":"look"},{"type":"text","text":"at"},{"type":"image_url","image_url":{"url":"https://x/a.png"}},{"type":"text","text":"this"}]})" "\n");
}

TEST_CASE("merge-runs merges equal names and keeps them, and never merges different ones",
          "[merge_runs]") {
  std::string text =
      R"({"role":"user","content":"a","name":"alice"})" "\n"
      R"({"role":"user","content":"b","name":"alice"})" "\n"
      R"({"role":"user","content":"c","name":"bob"})" "\n"
      R"({"role":"user","content":"d"})" "\n";
  CHECK(merge(text) == R"({"role":"user","content":"a\nb","name":"alice"})" "\n"
                       R"({"role":"user","content":"c","name":"bob"})" "\n"
                       R"({"role":"user","content":"d"})" "\n");
}

TEST_CASE("merge-runs keeps developer and system messages apart", "[merge_runs]") {
  std::string text = R"({"role":"developer","content":"a"})" "\n"
                     R"({"role":"developer","content":"b"})" "\n"
                     R"({"role":"system","content":"c"})" "\n";
  CHECK(merge(text) == R"({"role":"developer","content":"a\nb"})" "\n"
                       R"({"role":"system","content":"c"})" "\n");
}

namespace {

// One API response written as three records, with a progress record between two of
// them, then the tool result.
const std::string k_pieces =
    R"({"parentUuid":"u0","type":"assistant","uuid":"a1","timestamp":"T1","cwd":"/w","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"thinking","thinking":"hm","signature":"sig"}],"stop_reason":null,"usage":{"input_tokens":5,"output_tokens":1,"service_tier":"standard"}}})" "\n"
    R"({"parentUuid":"a1","type":"assistant","uuid":"a2","timestamp":"T2","cwd":"/w","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"Reading."}],"stop_reason":null,"usage":{"input_tokens":5,"output_tokens":4,"service_tier":"standard"}}})" "\n"
    R"({"parentUuid":"a2","type":"progress","uuid":"p1","data":{"type":"hook_progress"},"parentToolUseID":"x"})" "\n"
    R"({"parentUuid":"p1","type":"assistant","uuid":"a3","timestamp":"T3","cwd":"/w","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"f"}}],"stop_reason":"tool_use","usage":{"input_tokens":5,"output_tokens":9,"service_tier":"standard"}}})" "\n"
    R"({"parentUuid":"a3","type":"user","uuid":"r1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"x"}]}})" "\n";

}  // namespace

TEST_CASE("merge-runs rebuilds a Claude Code response split over records", "[merge_runs]") {
  std::string out = merge(k_pieces);
  CHECK(out ==
        R"({"parentUuid":"u0","type":"assistant","uuid":"a3","timestamp":"T1","cwd":"/w","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"thinking","thinking":"hm","signature":"sig"},{"type":"text","text":"Reading."},{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"f"}}],"stop_reason":"tool_use","usage":{"input_tokens":5,"output_tokens":9,"service_tier":"standard"}}})" "\n"
        R"({"parentUuid":"a2","type":"progress","uuid":"p1","data":{"type":"hook_progress"},"parentToolUseID":"x"})" "\n"
        R"({"parentUuid":"a3","type":"user","uuid":"r1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"x"}]}})" "\n");
}

TEST_CASE("merge-runs adds up the usage of different responses", "[merge_runs]") {
  std::string text =
      R"({"type":"assistant","uuid":"a1","message":{"id":"msg_1","role":"assistant","content":[{"type":"text","text":"a"}],"usage":{"input_tokens":5,"output_tokens":2}}})" "\n"
      R"({"type":"assistant","uuid":"a2","message":{"id":"msg_2","role":"assistant","content":[{"type":"text","text":"b"}],"usage":{"input_tokens":7,"output_tokens":3}}})" "\n"
      R"({"type":"assistant","uuid":"a3","message":{"id":"msg_2","role":"assistant","content":[{"type":"text","text":"c"}],"usage":{"input_tokens":7,"output_tokens":4}}})" "\n";
  CHECK(merge(text) ==
        R"({"type":"assistant","uuid":"a3","message":{"id":"msg_1","role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b"},{"type":"text","text":"c"}],"usage":{"input_tokens":12,"output_tokens":6}}})" "\n");
}

TEST_CASE("merge-runs: records between turns stay in place when nothing merges",
          "[merge_runs]") {
  std::string text =
      R"({"type":"user","uuid":"u1","message":{"role":"user","content":"hi"}})" "\n"
      R"({"type":"attachment","uuid":"x1","attachment":{"type":"hook_success"}})" "\n"
      R"({"type":"assistant","uuid":"a1","message":{"role":"assistant","content":[{"type":"text","text":"yo"}]}})" "\n"
      R"({"type":"system","uuid":"e1","subtype":"turn_duration","content":""})" "\n";
  CHECK(merge(text) == text);
}

TEST_CASE("merge-runs does not merge meta records, sidechains or other sessions",
          "[merge_runs]") {
  std::string text =
      R"({"type":"user","uuid":"1","isMeta":true,"message":{"role":"user","content":"caveat"}})" "\n"
      R"({"type":"user","uuid":"2","message":{"role":"user","content":"/model"}})" "\n"
      R"({"type":"user","uuid":"3","isSidechain":true,"message":{"role":"user","content":"sub"}})" "\n"
      R"({"type":"user","uuid":"4","sessionId":"B","message":{"role":"user","content":"other"}})" "\n";
  CHECK(merge(text) == text);
}

TEST_CASE("merge-runs: a bad line kept by --on-error keep ends a run", "[merge_runs]") {
  std::string text = R"({"role":"user","content":"a"})" "\nnot json\n"
                     R"({"role":"user","content":"b"})" "\n";
  CHECK(merge(text, "\n", {std::nullopt, OnError::keep}) == text);
}

TEST_CASE("merge-runs merges a long run into one message", "[merge_runs]") {
  std::string text;
  std::string expected;
  for (int i = 0; i < 20000; ++i) {
    text += R"({"role":"assistant","content":"x"})" "\n";
    expected += expected.empty() ? "x" : "\\nx";
  }
  CHECK(merge(text) == R"({"role":"assistant","content":")" + expected + "\"}\n");
}

TEST_CASE("merge-runs on every corpus transcript: readable output, nothing left to merge",
          "[merge_runs][corpus]") {
  auto files = corpus_files();
  if (files.empty()) {
    WARN("skipped: no corpus");
    return;
  }
  for (const CorpusFile& file : files) {
    INFO(file.path);
    ReadOptions read{file.format, OnError::keep};
    std::string once = merge(file.text, "\n", read);
    CHECK(merge(once, "\n", read) == once);
    std::size_t turns_in = 0;
    std::size_t turns_out = 0;
    for (const Message& message : read_messages(file.text, read)) {
      turns_in += message.is_turn();
    }
    for (const Message& message : read_messages(once, read)) {
      turns_out += message.is_turn();
    }
    CHECK(turns_out <= turns_in);
  }
}
