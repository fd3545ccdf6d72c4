#include <catch2/catch.hpp>

#include "formats/langchain.h"
#include "test_util.h"

using namespace convo;
using namespace convo::test;

namespace {

// messages_to_dict records as Python writes them (nulls included).
const char* k_python =
    R"({"type": "system", "data": {"content": "Be brief.", "additional_kwargs": {}, "response_metadata": {}, "type": "system", "name": null, "id": null}})" "\n"
    R"({"type": "human", "data": {"content": "Weather in Paris?", "additional_kwargs": {}, "response_metadata": {}, "type": "human", "name": "alice", "id": null, "example": false}})" "\n"
    R"({"type": "ai", "data": {"content": "", "additional_kwargs": {}, "response_metadata": {"model_name": "gpt-4o", "finish_reason": "tool_calls"}, "type": "ai", "name": null, "id": "run-1", "example": false, "tool_calls": [{"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1", "type": "tool_call"}], "invalid_tool_calls": [{"name": "broken", "args": "{oops", "id": "call_2", "error": "bad json", "type": "invalid_tool_call"}], "usage_metadata": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15, "input_token_details": {"cache_read": 2}}}})" "\n"
    R"({"type": "tool", "data": {"content": "sunny", "additional_kwargs": {}, "response_metadata": {}, "type": "tool", "name": "get_weather", "id": null, "tool_call_id": "call_1", "artifact": {"raw": 1}, "status": "error"}})" "\n"
    R"({"type": "chat", "data": {"content": "noted", "additional_kwargs": {}, "response_metadata": {}, "type": "chat", "name": null, "id": null, "role": "critic"}})" "\n"
    R"({"type": "remove", "data": {"content": "", "additional_kwargs": {}, "response_metadata": {}, "type": "remove", "name": null, "id": "m9"}})" "\n";

}  // namespace

TEST_CASE("langchain stored records decode to roles, tool calls, results and usage", "[langchain]") {
  auto messages = read_messages(k_python);
  REQUIRE(messages.size() == 6);
  CHECK(messages[0].origin == Format::langchain);
  CHECK(messages[0].role == Role::system);
  CHECK(messages[1].role == Role::user);
  CHECK(messages[1].name == "alice");
  const Message& ai = messages[2];
  CHECK(ai.role == Role::assistant);
  CHECK(ai.id == "run-1");
  CHECK(ai.meta->model == "gpt-4o");
  CHECK(ai.meta->stop_reason == "tool_calls");
  CHECK(ai.usage->input == 10);
  CHECK(ai.usage->cache_read == 2);
  REQUIRE(ai.content.blocks.size() == 2);
  CHECK(ai.content.blocks[0].type == BlockType::tool_use);
  CHECK(ai.content.blocks[0].input_json() == R"({"city":"Paris"})");
  CHECK(ai.content.blocks[1].type_name == k_invalid_tool_call);
  CHECK(ai.content.blocks[1].input == "{oops");
  CHECK(ai.content.blocks[1].text == "bad json");
  const Message& tool = messages[3];
  CHECK(tool.role == Role::tool);
  REQUIRE(tool.content.blocks.size() == 1);
  CHECK(tool.content.blocks[0].id == "call_1");
  CHECK(tool.content.blocks[0].is_error == true);
  CHECK(tool.content.blocks[0].name == "get_weather");
  CHECK(tool.name.empty());
  CHECK(messages[4].role == Role::custom);
  CHECK(messages[4].custom_role == "critic");
  CHECK(messages[5].kind == Kind::remove);
  CHECK(messages[5].id == "m9");
}

TEST_CASE("langchain to itself gives back the same bytes", "[langchain]") {
  auto result = convert_text(k_python, Format::langchain);
  CHECK(result.out == k_python);
  CHECK(result.warnings.empty());
}

TEST_CASE("a FileChatMessageHistory array is read and written back whole", "[langchain]") {
  std::string text =
      R"([{"type": "human", "data": {"content": "hi", "type": "human"}}, {"type": "ai", "data": {"content": "hello", "type": "ai", "tool_calls": []}}])" "\n";
  auto messages = read_messages(text);
  REQUIRE(messages.size() == 2);
  CHECK(messages[1].content.text == "hello");
  CHECK(convert_text(text, Format::langchain).out == text);
  // A changed message rebuilds the array around it.
  messages[1].touch();
  messages[1].content.text = "hey";
  CHECK(encode_all(messages, Format::langchain) ==
        R"([{"type":"human","data":{"content":"hi","type":"human"}},{"type":"ai","data":{"content":"hey","type":"ai","tool_calls":[]}}])" "\n");
}

TEST_CASE("LangChain.js records (no nulls, generic) and the lc constructor form are read",
          "[langchain]") {
  std::string text =
      R"({"type":"generic","data":{"content":"x","role":"narrator","additional_kwargs":{},"response_metadata":{}}})" "\n"
      R"({"lc":1,"type":"constructor","id":["langchain","schema","messages","AIMessage"],"kwargs":{"content":"hi","type":"ai","tool_calls":[{"name":"f","args":{"a":1},"id":"c1","type":"tool_call"}],"invalid_tool_calls":[]}})" "\n"
      R"({"lc":1,"type":"constructor","id":["langchain_core","messages","HumanMessage"],"kwargs":{"content":"yo"}})" "\n"
      R"({"type":"AIMessageChunk","data":{"content":"part","type":"AIMessageChunk"}})" "\n";
  auto messages = read_messages(text);
  REQUIRE(messages.size() == 4);
  CHECK(messages[0].role == Role::custom);
  CHECK(messages[0].custom_role == "narrator");
  CHECK(messages[1].role == Role::assistant);
  CHECK(messages[1].has_tool_uses());
  CHECK(messages[2].role == Role::user);
  CHECK(messages[3].role == Role::assistant);
  CHECK(messages[3].record_type == "AIMessageChunk");
  CHECK(convert_text(text, Format::langchain).out == text);

  // Changed, each keeps its shape, its type spelling and its absent fields.
  for (Message& m : messages) {
    m.touch();
  }
  REQUIRE(messages[1].content.blocks.size() == 2);
  messages[1].content.blocks[1].input = R"({"a":2})";
  CHECK(encode_all(messages, Format::langchain) ==
        R"({"type":"generic","data":{"content":"x","role":"narrator","additional_kwargs":{},"response_metadata":{}}})" "\n"
        R"({"lc":1,"type":"constructor","id":["langchain","schema","messages","AIMessage"],"kwargs":{"content":"hi","type":"ai","tool_calls":[{"name":"f","args":{"a":2},"id":"c1","type":"tool_call"}],"invalid_tool_calls":[]}})" "\n"
        R"({"lc":1,"type":"constructor","id":["langchain_core","messages","HumanMessage"],"kwargs":{"content":"yo"}})" "\n"
        R"({"type":"AIMessageChunk","data":{"content":"part","type":"AIMessageChunk"}})" "\n");
}

TEST_CASE("plain langchain dicts are read: by type, and by role ai", "[langchain]") {
  std::string text =
      R"({"type":"human","content":"hi","additional_kwargs":{}})" "\n"
      R"({"role":"ai","content":"hello"})" "\n";
  auto messages = read_messages(text);
  REQUIRE(messages.size() == 2);
  CHECK(messages[0].origin == Format::langchain);
  CHECK(messages[0].role == Role::user);
  CHECK(messages[1].role == Role::assistant);
  messages[1].touch();
  messages[1].content.text = "hey";
  std::vector<Message> changed;
  changed.push_back(std::move(messages[1]));
  CHECK(encode_all(changed, Format::langchain) == R"({"role":"ai","content":"hey"})" "\n");
}

TEST_CASE("old records keep OpenAI tool calls in additional_kwargs", "[langchain]") {
  std::string text =
      R"({"type":"ai","data":{"content":"","additional_kwargs":{"tool_calls":[{"id":"call_9","type":"function","function":{"name":"f","arguments":"{\"x\": 1}"}}]},"type":"ai","tool_calls":[]}})" "\n";
  auto messages = read_messages(text);
  REQUIRE(messages[0].tool_uses().size() == 1);
  CHECK(messages[0].tool_uses()[0]->id == "call_9");
  CHECK(messages[0].tool_uses()[0]->input_json() == R"({"x": 1})");
}

TEST_CASE("a developer message is a system message marked with __openai_role__", "[langchain]") {
  std::string text = R"({"role":"developer","content":"Answer in French."})" "\n";
  auto out = convert_text(text, Format::langchain, {Format::openai});
  CHECK(out.out ==
        R"({"type":"system","data":{"content":"Answer in French.","additional_kwargs":{"__openai_role__":"developer"},"response_metadata":{},"type":"system","name":null,"id":null}})" "\n");
  CHECK(read_messages(out.out)[0].role == Role::developer);
  CHECK(convert_text(out.out, Format::openai).out == text);
}

TEST_CASE("anthropic thinking, images and tool results map to langchain and back", "[langchain]") {
  std::string text =
      R"({"role":"user","content":[{"type":"text","text":"See"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBO"}}]})" "\n"
      R"({"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"s1"},{"type":"text","text":"Calling"},{"type":"tool_use","id":"t1","name":"f","input":{"q":1}}]})" "\n"
      R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok","is_error":true},{"type":"text","text":"and?"}]})" "\n";
  auto there = convert_text(text, Format::langchain);
  CHECK(there.warnings.empty());
  CHECK(there.out ==
        R"({"type":"human","data":{"content":[{"type":"text","text":"See"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBO"}}],"additional_kwargs":{},"response_metadata":{},"type":"human","name":null,"id":null}})" "\n"
        R"({"type":"ai","data":{"content":[{"type":"thinking","thinking":"hmm","signature":"s1"},{"type":"text","text":"Calling"}],"additional_kwargs":{},"response_metadata":{},"type":"ai","name":null,"id":null,"tool_calls":[{"name":"f","args":{"q":1},"id":"t1","type":"tool_call"}],"invalid_tool_calls":[],"usage_metadata":null}})" "\n"
        R"({"type":"tool","data":{"content":"ok","additional_kwargs":{},"response_metadata":{},"type":"tool","name":"f","id":null,"tool_call_id":"t1","artifact":null,"status":"error"}})" "\n"
        R"({"type":"human","data":{"content":"and?","additional_kwargs":{},"response_metadata":{},"type":"human","name":null,"id":null}})" "\n");
  auto back = convert_text(there.out, Format::anthropic);
  CHECK(back.out ==
        R"({"role":"user","content":[{"type":"text","text":"See"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBO"}}]})" "\n"
        R"({"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"s1"},{"type":"text","text":"Calling"},{"type":"tool_use","id":"t1","name":"f","input":{"q":1}}]})" "\n"
        R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok","is_error":true}]})" "\n"
        R"({"role":"user","content":"and?"})" "\n");
}

TEST_CASE("OpenAI arguments that are not JSON become an invalid tool call", "[langchain]") {
  std::string text =
      R"({"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{broken"}}]})" "\n";
  auto out = convert_text(text, Format::langchain, {Format::openai});
  CHECK(out.warnings.empty());
  CHECK(out.out ==
        R"({"type":"ai","data":{"content":"","additional_kwargs":{},"response_metadata":{},"type":"ai","name":null,"id":null,"tool_calls":[],"invalid_tool_calls":[{"name":"f","args":"{broken","id":"c1","error":null,"type":"invalid_tool_call"}],"usage_metadata":null}})" "\n");
}

TEST_CASE("langchain-only things are reported when the target cannot hold them", "[langchain]") {
  auto out = convert_text(k_python, Format::anthropic);
  REQUIRE(out.warnings.size() == 1);
  CHECK(out.warnings[0].find("invalid_tool_call blocks (1)") != std::string::npos);
  CHECK(out.warnings[0].find("remove records (1)") != std::string::npos);
  CHECK(out.warnings[0].find("messages with custom roles (1)") != std::string::npos);
  CHECK_THROWS_AS(convert_text(k_python, Format::anthropic, {}, true), Error);
}
