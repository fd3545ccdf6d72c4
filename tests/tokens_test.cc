#include <catch2/catch.hpp>

#include "test_util.h"
#include "tokens.h"

using namespace convo;
using namespace convo::test;

// Expected counts are LangChain Python's count_tokens_approximately on the same
// messages (worked out with CPython's len(repr(...))): ceil(chars / 4) + 3.

TEST_CASE("approx counts as LangChain's examples do", "[tokens]") {
  auto messages = read_messages(
      R"({"role":"system","content":"You are a helpful assistant."})" "\n"
      R"({"role":"user","content":"What's the weather in Paris and Rome?","name":"alice"})" "\n"
      R"({"role":"user","content":[{"type":"text","text":"What is in this image?"},{"type":"image_url","image_url":{"url":"https://example.com/cat.png"}}]})" "\n");
  REQUIRE(messages.size() == 3);
  CHECK(approx_tokens(messages[0]) == 12);  // ceil((28 + 6) / 4) + 3
  CHECK(approx_tokens(messages[1]) == 15);  // ceil((37 + 4 + 5) / 4) + 3
  CHECK(approx_tokens(messages[2]) == 95);  // 85 + ceil((22 + 4) / 4) + 3
}

TEST_CASE("approx counts OpenAI tool calls and Anthropic tool_use blocks as LangChain does",
          "[tokens]") {
  auto openai = read_messages(
      R"({"role":"assistant","content":"Let me check.","tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}}]})" "\n"
      R"({"role":"tool","tool_call_id":"call_1","content":"18C"})" "\n"
      R"({"role":"assistant","content":[],"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{}"}}]})" "\n");
  // Content a string: + len(repr(tool_calls)) of [{'name': ..., 'args': ..., 'id': ..., 'type': 'tool_call'}].
  CHECK(approx_tokens(openai[0]) == 31);
  CHECK(approx_tokens(openai[1]) == 7);  // content + tool_call_id + "tool"
  // Content a list: LangChain does not count the tool calls.
  CHECK(approx_tokens(openai[2]) == 6);

  auto anthropic = read_messages(
      R"({"role":"assistant","content":[{"type":"text","text":"Let me check."},{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}]})" "\n"
      R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"18C"}]})" "\n");
  CHECK(approx_tokens(anthropic[0]) == 31);  // the tool_use block by len(repr(block))
  CHECK(approx_tokens(anthropic[1]) == 21);
}

TEST_CASE("approx counts a ToolMessage's name, which formats keep on its result", "[tokens]") {
  auto messages = read_messages(
      R"({"type":"tool","data":{"content":"18C","tool_call_id":"call_1","name":"get_weather"}})" "\n");
  // ceil((3 content + 6 tool_call_id + 4 "tool" + 11 name) / 4) + 3
  CHECK(approx_tokens(messages[0]) == 9);
}

TEST_CASE("approx counts Claude Code turns by their message and skips other records",
          "[tokens]") {
  auto messages = read_messages(
      R"({"type":"user","message":{"role":"user","content":"go"},"uuid":"u"})" "\n"
      R"({"type":"assistant","message":{"id":"r1","role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"sig"}],"usage":{"input_tokens":5,"output_tokens":3}},"uuid":"a1"})" "\n"
      R"({"type":"progress","data":{"type":"bash_progress","output":"a long progress text"},"uuid":"p"})" "\n");
  REQUIRE(messages.size() == 3);
  CHECK(approx_tokens(messages[0]) == 5);
  CHECK(approx_tokens(messages[1]) == 20);
  CHECK(approx_tokens(messages[2]) == 0);
  CHECK(approx_tokens(messages[0], 0.5) == 15);  // ceil(6 / 0.5) + 3
}

TEST_CASE("chars per token divides before rounding up", "[tokens]") {
  auto messages = read_messages(R"({"role":"assistant","content":"Let me check."})" "\n");
  CHECK(approx_tokens(messages[0], 2.5) == 12);  // ceil((13 + 9) / 2.5) + 3
}

TEST_CASE("the messages counter counts turns", "[tokens]") {
  auto messages = read_messages(
      R"({"type":"user","message":{"role":"user","content":"go"},"uuid":"u"})" "\n"
      R"({"type":"progress","data":{"type":"x"},"uuid":"p"})" "\n");
  auto counter = make_token_counter({TokenCounterKind::messages, k_chars_per_token});
  CHECK(counter->count_conversation(messages) == std::vector<std::int64_t>{1, 0});
}

TEST_CASE("the usage counter counts a split response's output once", "[tokens]") {
  auto messages = read_messages(
      R"({"type":"user","message":{"role":"user","content":"go"},"uuid":"u"})" "\n"
      R"({"type":"assistant","message":{"id":"r1","role":"assistant","content":[{"type":"text","text":"a"}],"usage":{"input_tokens":5,"output_tokens":3}},"uuid":"a1"})" "\n"
      R"({"type":"assistant","message":{"id":"r1","role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{}}],"usage":{"input_tokens":5,"output_tokens":190}},"uuid":"a2"})" "\n"
      R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]},"uuid":"r"})" "\n"
      R"({"type":"assistant","message":{"id":"r2","role":"assistant","content":[{"type":"text","text":"no usage here"}]},"uuid":"a3"})" "\n");
  auto counter = make_token_counter({TokenCounterKind::usage, k_chars_per_token});
  std::vector<std::int64_t> counts = counter->count_conversation(messages);
  CHECK(counts[0] == approx_tokens(messages[0]));
  CHECK(counts[1] == 190);  // the largest output of response r1, on its first record
  CHECK(counts[2] == 0);
  CHECK(counts[3] == approx_tokens(messages[3]));
  CHECK(counts[4] == approx_tokens(messages[4]));  // no usage recorded: approx
  CHECK(counter->count_message(messages[2]) == 190);
  messages[2].touch();
  CHECK(counter->count_message(messages[2]) == approx_tokens(messages[2]));
}

TEST_CASE("token counter names", "[tokens]") {
  CHECK(parse_token_counter("approx") == TokenCounterKind::approx);
  CHECK(parse_token_counter("usage") == TokenCounterKind::usage);
  CHECK_FALSE(parse_token_counter("len"));
}
