#include <catch2/catch.hpp>

#include "test_util.h"

using namespace convo;
using namespace convo::test;

namespace {

// 1.x Msg.to_dict() records as a ReActAgent's memory holds them.
const char* k_v1 =
    R"({"id": "a1", "name": "user", "role": "user", "content": "What is 2+2?", "metadata": {}, "timestamp": "2025-06-01 10:00:00.000"})" "\n"
    R"({"id": "a2", "name": "Friday", "role": "assistant", "content": [{"type": "thinking", "thinking": "Use calc."}, {"type": "text", "text": "Calling."}, {"type": "tool_use", "id": "call_1", "name": "calc", "input": {"expr": "2+2"}}], "metadata": {}, "timestamp": "2025-06-01 10:00:01.000", "invocation_id": "inv1"})" "\n"
    R"({"id": "a3", "name": "system", "role": "system", "content": [{"type": "tool_result", "id": "call_1", "name": "calc", "output": [{"type": "text", "text": "4"}, {"type": "image", "source": {"type": "url", "url": "https://x/plot.png"}}]}], "metadata": {}, "timestamp": "2025-06-01 10:00:02.000"})" "\n";

// A 2.x assistant Msg holding its tool call and result.
const char* k_v2 =
    R"({"name":"Friday","content":[{"type":"text","text":"Let me check.","id":"b1","created_at":"t0","finished_at":null},{"type":"tool_call","id":"call_2","name":"calc","input":"{\"expr\": \"3*3\"}","state":"finished","suggested_rules":[],"created_at":"t0","finished_at":null},{"type":"tool_result","id":"call_2","name":"calc","output":"9","state":"success","metadata":{},"created_at":"t1","finished_at":null},{"type":"text","text":"It is 9.","id":"b2","created_at":"t2","finished_at":null}],"role":"assistant","id":"m5","metadata":{},"created_at":"2026-01-01T00:00:00Z","usage":{"input_tokens":5,"output_tokens":6,"cache_input_tokens":1,"cache_creation_input_tokens":0},"finished_at":null,"finished_reason":null,"structured_output":null,"error":null})" "\n";

}  // namespace

TEST_CASE("agentscope 1.x records decode, and a Msg of tool results is a tool message",
          "[agentscope]") {
  auto messages = read_messages(k_v1);
  REQUIRE(messages.size() == 3);
  CHECK(messages[0].origin == Format::agentscope);
  CHECK(messages[0].role == Role::user);
  CHECK(messages[0].name.empty());  // named after its role
  CHECK(messages[0].timestamp == "2025-06-01 10:00:00.000");
  CHECK(messages[1].name == "Friday");
  REQUIRE(messages[1].content.blocks.size() == 3);
  CHECK(messages[1].content.blocks[2].input_json() == R"({"expr":"2+2"})");
  const Message& tool = messages[2];
  CHECK(tool.role == Role::tool);
  REQUIRE(tool.content.blocks.size() == 1);
  CHECK(tool.content.blocks[0].id == "call_1");
  CHECK(tool.content.blocks[0].result.blocks.size() == 2);
  CHECK(convert_text(k_v1, Format::agentscope).out == k_v1);
}

TEST_CASE("an agentscope 2.x Msg with its tool results becomes turns, and joins again",
          "[agentscope]") {
  auto messages = read_messages(k_v2);
  REQUIRE(messages.size() == 3);
  CHECK(messages[0].role == Role::assistant);
  CHECK(messages[0].usage->cache_read == 1);
  CHECK(messages[0].content.blocks[1].input_json() == R"({"expr": "3*3"})");
  CHECK(messages[1].role == Role::tool);
  CHECK(messages[1].content.blocks[0].result.text == "9");
  CHECK(messages[2].role == Role::assistant);
  CHECK(convert_text(k_v2, Format::agentscope).out == k_v2);
  CHECK(convert_text(k_v2, Format::openai).out ==
        R"({"role":"assistant","content":"Let me check.","name":"Friday","tool_calls":[{"id":"call_2","type":"function","function":{"name":"calc","arguments":"{\"expr\": \"3*3\"}"}}]})" "\n"
        R"({"role":"tool","content":"9","tool_call_id":"call_2"})" "\n"
        R"({"role":"assistant","content":"It is 9.","name":"Friday"})" "\n");

  // One turn changed: the Msg is written whole again, the other blocks as they were.
  messages[2].touch();
  messages[2].content.blocks[0].text = "Nine.";
  CHECK(encode_all(messages, Format::agentscope) ==
        R"({"name":"Friday","content":[{"type":"text","text":"Let me check.","id":"b1","created_at":"t0","finished_at":null},{"type":"tool_call","id":"call_2","name":"calc","input":"{\"expr\": \"3*3\"}","state":"finished","suggested_rules":[],"created_at":"t0","finished_at":null},{"type":"tool_result","id":"call_2","name":"calc","output":"9","state":"success","metadata":{},"created_at":"t1","finished_at":null},{"type":"text","text":"Nine.","id":"b2","created_at":"t2","finished_at":null}],"role":"assistant","id":"m5","metadata":{},"created_at":"2026-01-01T00:00:00Z","usage":{"input_tokens":5,"output_tokens":6,"cache_input_tokens":1,"cache_creation_input_tokens":0},"finished_at":null,"finished_reason":null,"structured_output":null,"error":null})" "\n");
}

TEST_CASE("openai messages become agentscope 1.x Msgs named after their roles", "[agentscope]") {
  std::string text =
      R"({"role":"user","content":"hi","name":"bob"})" "\n"
      R"({"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]})" "\n"
      R"({"role":"tool","tool_call_id":"c1","content":"done"})" "\n";
  auto out = convert_text(text, Format::agentscope);
  CHECK(out.warnings.empty());
  CHECK(out.out ==
        R"({"name":"bob","role":"user","content":"hi","metadata":{}})" "\n"
        R"({"name":"assistant","role":"assistant","content":[{"type":"tool_use","id":"c1","name":"f","input":{"a":1}}],"metadata":{}})" "\n"
        R"({"name":"system","role":"system","content":[{"type":"tool_result","id":"c1","name":"f","output":"done"}],"metadata":{}})" "\n");
  CHECK(json_equal_documents(convert_text(out.out, Format::openai).out, text));
}

TEST_CASE("what agentscope cannot hold is reported", "[agentscope]") {
  std::string text =
      R"({"role":"user","content":[{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBE"}}]})" "\n"
      R"({"role":"assistant","content":[{"type":"thinking","thinking":"x","signature":"s"},{"type":"text","text":"y"}]})" "\n";
  auto out = convert_text(text, Format::agentscope, {Format::anthropic});
  REQUIRE(out.warnings.size() == 1);
  CHECK(out.warnings[0].find("document blocks (1)") != std::string::npos);
  CHECK(out.warnings[0].find("thinking signatures (1)") != std::string::npos);
}
