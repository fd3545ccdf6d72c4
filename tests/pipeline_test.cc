#include <catch2/catch.hpp>

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

TEST_CASE("records of no known format pass through any conversion", "[pipeline]") {
  std::string line = R"({"agentType":"general-purpose","description":"x"})";
  auto result = convert_text(line, Format::anthropic);
  CHECK(result.out == line + "\n");
  CHECK(result.warnings.empty());
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
