#include <catch2/catch.hpp>

#include "test_util.h"

using namespace convo;
using namespace convo::test;

namespace {

const char* k_request =
    R"({"max_tokens": 1024, "messages": [{"content": [{"text": "Weather in Paris?", "type": "text", "cache_control": {"type": "ephemeral"}}], "role": "user"}, {"content": [{"thinking": "need a tool", "signature": "c2ln", "type": "thinking"}, {"id": "toolu_1", "input": {"city": "Paris"}, "name": "get_weather", "type": "tool_use"}], "role": "assistant"}, {"content": [{"content": "sunny", "tool_use_id": "toolu_1", "type": "tool_result", "is_error": false}], "role": "user"}], "model": "claude-sonnet-4-5", "system": "Be brief."})";

}  // namespace

TEST_CASE("an anthropic request body decodes to its system prompt and messages", "[anthropic]") {
  auto messages = read_messages(k_request);
  REQUIRE(messages.size() == 4);
  CHECK(messages[0].origin == Format::anthropic);
  CHECK(messages[0].role == Role::system);
  CHECK(messages[0].content.text == "Be brief.");
  CHECK(messages[1].content.blocks[0].cache_control == R"({"type":"ephemeral"})");
  CHECK(messages[2].content.blocks[1].type == BlockType::tool_use);
  const Block& result = messages[3].content.blocks[0];
  CHECK(result.type == BlockType::tool_result);
  CHECK(result.result.text == "sunny");
  REQUIRE(messages[3].container);
  CHECK(messages[3].slot == 3);
}

TEST_CASE("an unchanged request body is written back byte for byte", "[anthropic]") {
  CHECK(convert_text(k_request, Format::anthropic).out == std::string(k_request) + "\n");
}

TEST_CASE("a request body is rebuilt around a changed or dropped message", "[anthropic]") {
  auto messages = read_messages(k_request);
  messages[0].touch();
  messages[0].content.text = "Be very brief.";
  messages.erase(messages.begin() + 2, messages.begin() + 4);  // drop the tool pair
  CHECK(encode_all(messages, Format::anthropic) ==
        R"({"max_tokens":1024,"messages":[{"content":[{"text":"Weather in Paris?","type":"text","cache_control":{"type":"ephemeral"}}],"role":"user"}],"model":"claude-sonnet-4-5","system":"Be very brief."})"
        "\n");
}

TEST_CASE("dropping the system prompt removes the system member", "[anthropic]") {
  auto messages = read_messages(k_request);
  messages.erase(messages.begin());
  std::string out = encode_all(messages, Format::anthropic);
  CHECK(out.find("\"system\"") == std::string::npos);
  CHECK(out.find("\"max_tokens\":1024") != std::string::npos);
}

TEST_CASE("a response body is a message with its response fields", "[anthropic]") {
  std::string response =
      R"({"id":"msg_01","type":"message","role":"assistant","model":"claude-x","content":[{"type":"text","text":"Hi"}],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":3,"cache_read_input_tokens":2}})";
  auto messages = read_messages(response);
  REQUIRE(messages.size() == 1);
  CHECK(messages[0].meta->message_id == "msg_01");
  CHECK(messages[0].meta->stop_reason == "end_turn");
  CHECK(messages[0].usage->input == 10);
  CHECK(messages[0].usage->cache_read == 2);
  CHECK(convert_text(response, Format::anthropic).out == response + "\n");
}

TEST_CASE("anthropic to openai: tool_use to tool_calls, tool_result to tool messages", "[anthropic]") {
  // A request body becomes a Chat Completions request body (api_body.h).
  auto result = convert_text(k_request, Format::openai);
  CHECK(result.out ==
        R"({"model":"claude-sonnet-4-5","messages":[)"
        R"({"role":"system","content":"Be brief."},)"
        R"({"role":"user","content":"Weather in Paris?"},)"
        R"({"role":"assistant","content":null,"tool_calls":[{"id":"toolu_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},)"
        R"({"role":"tool","content":"sunny","tool_call_id":"toolu_1"}],"max_completion_tokens":1024})" "\n");
  REQUIRE(result.warnings.size() == 1);
  CHECK(result.warnings[0] ==
        "dropped what the output format cannot hold: openai cannot hold cache_control markers (1), "
        "thinking blocks (1) (--strict makes this an error)");
}

TEST_CASE("a bare anthropic message line is detected and round-trips", "[anthropic]") {
  std::string lines =
      R"({"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}},{"type":"text","text":"what is this?"}]})" "\n"
      R"({"role":"assistant","content":[{"type":"redacted_thinking","data":"xyz"},{"type":"text","text":"a square"}]})" "\n";
  auto messages = read_messages(lines);
  REQUIRE(messages.size() == 2);
  CHECK(messages[0].origin == Format::anthropic);
  CHECK(messages[0].content.blocks[0].source.media_type == "image/png");
  CHECK(convert_text(lines, Format::anthropic).out == lines);
  CHECK(convert_text(lines, Format::openai).out ==
        R"({"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}},{"type":"text","text":"what is this?"}]})" "\n"
        R"({"role":"assistant","content":"a square"})" "\n");
}

TEST_CASE("anthropic blocks of unknown types ride along in their own format", "[anthropic]") {
  std::string line =
      R"({"role":"assistant","content":[{"type":"server_tool_use","id":"srv_1","name":"web_search","input":{"query":"x"}},{"type":"web_search_tool_result","tool_use_id":"srv_1","content":[]},{"type":"fancy_new_block","z":1}]})";
  auto messages = read_messages(line);
  REQUIRE(messages.size() == 1);
  CHECK(messages[0].content.blocks[1].type == BlockType::server_tool_result);
  CHECK(messages[0].content.blocks[2].type == BlockType::unknown);
  messages[0].touch();
  CHECK(encode_all(messages, Format::anthropic) == line + std::string("\n"));
}
