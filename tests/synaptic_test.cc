#include <catch2/catch.hpp>

#include "formats/langchain.h"
#include "test_util.h"

using namespace convo;
using namespace convo::test;

namespace {

const char* k_synaptic =
    R"({"role":"system","content":"Be brief."})" "\n"
    R"({"role":"human","content":"Weather in Paris?","name":"alice","content_blocks":[{"type":"image","url":"https://x/y.png","detail":"low"}]})" "\n"
    R"({"role":"assistant","content":"Checking.","tool_calls":[{"id":"call_1","name":"get_weather","arguments":{"city":"Paris"}}],"id":"a1","content_blocks":[{"type":"reasoning","content":"Need the weather."}],"usage_metadata":{"input_tokens":10,"output_tokens":5,"total_tokens":15,"input_details":{"cached":3,"audio":0}},"invalid_tool_calls":[{"id":"call_2","error":"bad"}]})" "\n"
    R"({"role":"tool","content":"sunny","tool_call_id":"call_1","name":"get_weather"})" "\n"
    R"({"role":"chat","custom_role":"critic","content":"ok"})" "\n"
    R"({"role":"remove","id":"m1"})" "\n";

}  // namespace

TEST_CASE("synaptic messages decode: roles, reasoning first, tool calls with value arguments",
          "[synaptic]") {
  auto messages = read_messages(k_synaptic);
  REQUIRE(messages.size() == 6);
  CHECK(messages[0].origin == Format::synaptic);
  CHECK(messages[1].role == Role::user);
  CHECK(messages[1].name == "alice");
  REQUIRE(messages[1].content.blocks.size() == 2);
  CHECK(messages[1].content.blocks[0].text == "Weather in Paris?");
  CHECK(messages[1].content.blocks[1].type == BlockType::image);
  const Message& ai = messages[2];
  CHECK(ai.role == Role::assistant);
  REQUIRE(ai.content.blocks.size() == 4);
  CHECK(ai.content.blocks[0].type == BlockType::thinking);
  CHECK(ai.content.blocks[1].text == "Checking.");
  CHECK(ai.content.blocks[2].type == BlockType::tool_use);
  CHECK(ai.content.blocks[2].input_json() == R"({"city":"Paris"})");
  CHECK(ai.content.blocks[3].type_name == k_invalid_tool_call);
  CHECK(ai.usage->cache_read == 3);
  CHECK(messages[3].role == Role::tool);
  CHECK(messages[3].content.blocks[0].id == "call_1");
  CHECK(messages[4].custom_role == "critic");
  CHECK(messages[5].kind == Kind::remove);
}

TEST_CASE("synaptic to itself gives back the same bytes", "[synaptic]") {
  auto result = convert_text(k_synaptic, Format::synaptic);
  CHECK(result.out == k_synaptic);
  CHECK(result.warnings.empty());
}

TEST_CASE("a changed synaptic message keeps what convo does not model", "[synaptic]") {
  auto messages = read_messages(k_synaptic);
  Message& ai = messages[2];
  ai.touch();
  ai.content.blocks[1].text = "Looking.";
  std::vector<Message> changed;
  changed.push_back(std::move(ai));
  CHECK(encode_all(changed, Format::synaptic) ==
        R"({"role":"assistant","content":"Looking.","tool_calls":[{"id":"call_1","name":"get_weather","arguments":{"city":"Paris"}}],"id":"a1","content_blocks":[{"type":"reasoning","content":"Need the weather."}],"usage_metadata":{"input_tokens":10,"output_tokens":5,"total_tokens":15,"input_details":{"cached":3,"audio":0}},"invalid_tool_calls":[{"id":"call_2","error":"bad"}]})" "\n");
}

TEST_CASE("synaptic and langchain carry invalid tool calls and names between them", "[synaptic]") {
  auto there = convert_text(k_synaptic, Format::langchain);
  CHECK(there.warnings.empty());
  auto back = convert_text(there.out, Format::synaptic);
  CHECK(back.warnings.empty());
  CHECK(json_equal_documents(back.out,
        R"({"role":"system","content":"Be brief."})" "\n"
        R"({"role":"human","content":"Weather in Paris?","content_blocks":[{"type":"image","url":"https://x/y.png"}],"name":"alice"})" "\n"
        R"({"role":"assistant","content":"Checking.","tool_calls":[{"id":"call_1","name":"get_weather","arguments":{"city":"Paris"}}],"id":"a1","content_blocks":[{"type":"reasoning","content":"Need the weather."}],"usage_metadata":{"input_tokens":10,"output_tokens":5,"total_tokens":15,"input_details":{"cached":3}},"invalid_tool_calls":[{"id":"call_2","error":"bad"}]})" "\n"
        R"({"role":"tool","content":"sunny","tool_call_id":"call_1","name":"get_weather"})" "\n"
        R"({"role":"chat","custom_role":"critic","content":"ok"})" "\n"
        R"({"role":"remove","id":"m1"})" "\n"));
}

TEST_CASE("what synaptic cannot hold is reported", "[synaptic]") {
  std::string text =
      R"({"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"s"},{"type":"text","text":"hi"}]})" "\n"
      R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x","is_error":true}]})" "\n";
  auto out = convert_text(text, Format::synaptic, {Format::anthropic});
  CHECK(out.out ==
        R"({"role":"assistant","content":"hi","content_blocks":[{"type":"reasoning","content":"hmm"}]})" "\n"
        R"({"role":"tool","content":"x","tool_call_id":"t"})" "\n");
  REQUIRE(out.warnings.size() == 1);
  CHECK(out.warnings[0].find("thinking signatures (1)") != std::string::npos);
  CHECK(out.warnings[0].find("tool error flags (1)") != std::string::npos);
}

TEST_CASE("plain role-keyed lines with human are synaptic, with user openai", "[synaptic]") {
  CHECK(read_messages(R"({"role":"human","content":"hi"})" "\n")[0].origin == Format::synaptic);
  CHECK(read_messages(R"({"role":"user","content":"hi"})" "\n")[0].origin == Format::openai);
  CHECK(read_messages(R"({"role":"assistant","content":"hi"})" "\n")[0].origin == Format::openai);
}
