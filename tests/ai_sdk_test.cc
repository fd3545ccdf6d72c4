#include <catch2/catch.hpp>

#include "stages/convert.h"
#include "test_util.h"

using namespace convo;
using namespace convo::test;

namespace {

const char* k_model =
    R"({"role":"system","content":"Be brief."})" "\n"
    R"({"role":"user","content":[{"type":"text","text":"What is this?"},{"type":"image","image":"iVBORw0KGgo=","mediaType":"image/png"},{"type":"file","data":"https://x/y.pdf","mediaType":"application/pdf","filename":"y.pdf"}]})" "\n"
    R"({"role":"assistant","content":[{"type":"reasoning","text":"Look.","providerOptions":{"anthropic":{"signature":"sig"}}},{"type":"tool-call","toolCallId":"c1","toolName":"look","input":{"at":"y"}}]})" "\n"
    R"({"role":"tool","content":[{"type":"tool-result","toolCallId":"c1","toolName":"look","output":{"type":"error-json","value":{"code":1}}}]})" "\n";

const char* k_ui =
    R"({"id":"u1","role":"assistant","parts":[{"type":"text","text":"Calling."},{"type":"tool-look","toolCallId":"c1","state":"output-available","input":{"at":"y"},"output":"seen"},{"type":"dynamic-tool","toolName":"peek","toolCallId":"c2","state":"output-error","input":{},"errorText":"boom"},{"type":"step-start"},{"type":"text","text":"Done."}]})" "\n";

}  // namespace

TEST_CASE("ai-sdk model messages decode: media, signed reasoning, calls and error results",
          "[ai-sdk]") {
  auto messages = read_messages(k_model);
  REQUIRE(messages.size() == 4);
  CHECK(messages[0].origin == Format::ai_sdk);
  CHECK(messages[0].role == Role::system);
  const auto& user = messages[1].content.blocks;
  REQUIRE(user.size() == 3);
  CHECK(user[1].type == BlockType::image);
  CHECK(user[1].source.type == MediaSource::Type::base64);
  CHECK(user[1].source.media_type == "image/png");
  CHECK(user[2].type == BlockType::document);
  CHECK(user[2].source.type == MediaSource::Type::url);
  const auto& ai = messages[2].content.blocks;
  REQUIRE(ai.size() == 2);
  CHECK(ai[0].type == BlockType::thinking);
  CHECK(ai[0].signature == "sig");
  CHECK(ai[1].type == BlockType::tool_use);
  CHECK(ai[1].input_json() == R"({"at":"y"})");
  CHECK(messages[3].role == Role::tool);
  const Block& result = messages[3].content.blocks.at(0);
  CHECK(result.id == "c1");
  CHECK(result.is_error == true);
  CHECK(result.result.text == R"({"code":1})");
}

TEST_CASE("an ai-sdk UIMessage with tool results reads as API turns and writes back whole",
          "[ai-sdk]") {
  auto messages = read_messages(k_ui);
  REQUIRE(messages.size() == 3);
  CHECK(messages[0].role == Role::assistant);
  CHECK(messages[0].id == "u1");
  REQUIRE(messages[0].content.blocks.size() == 3);
  CHECK(messages[0].content.blocks[1].name == "look");
  CHECK(messages[0].content.blocks[2].name == "peek");
  CHECK(messages[1].role == Role::tool);
  REQUIRE(messages[1].content.blocks.size() == 2);
  CHECK(messages[1].content.blocks[0].result.text == "seen");
  CHECK(messages[1].content.blocks[1].is_error == true);
  CHECK(messages[1].content.blocks[1].result.text == "boom");
  CHECK(messages[2].content.blocks.back().text == "Done.");
  CHECK(convert_text(k_ui, Format::ai_sdk).out == k_ui);
  // Changed, the turns join back into the one UIMessage.
  for (Message& m : messages) {
    m.touch();
  }
  messages[2].content.blocks.back().text = "Finished.";
  std::string out = encode_all(messages, Format::ai_sdk);
  std::string expected = k_ui;
  expected.replace(expected.find("Done."), 5, "Finished.");
  CHECK(out == expected);
}

TEST_CASE("ai-sdk to itself gives back the same bytes", "[ai-sdk]") {
  auto result = convert_text(k_model, Format::ai_sdk);
  CHECK(result.out == k_model);
  CHECK(result.warnings.empty());
}

TEST_CASE("messages from another format are written as ai-sdk model messages", "[ai-sdk]") {
  const char* anthropic =
      R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok","is_error":true},{"type":"text","text":"Next?","cache_control":{"type":"ephemeral"}}]})" "\n";
  auto result = convert_text(anthropic, Format::ai_sdk);
  CHECK(result.out ==
        R"({"role":"tool","content":[{"type":"tool-result","toolCallId":"t1","toolName":"","output":{"type":"error-text","value":"ok"}}]})" "\n"
        R"({"role":"user","content":[{"type":"text","text":"Next?","providerOptions":{"anthropic":{"cacheControl":{"type":"ephemeral"}}}}]})" "\n");
  CHECK(result.warnings.empty());
}

// --- --ai-sdk-shape ---

namespace {

StageResult convert_shaped(const std::string& text, AiSdkShape shape) {
  EncodeOptions options;
  options.ai_sdk_shape = shape;
  return run_stage_on(text, [] { return std::make_unique<PassThrough>(); },
                      format_sink(Format::ai_sdk, options));
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    lines.push_back(text.substr(start, end - start));
  }
  return lines;
}

const char* k_anthropic_turn =
    R"({"role":"user","content":"Count the lines."})" "\n"
    R"({"role":"assistant","content":[{"type":"thinking","thinking":"Use wc.","signature":"s1"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"wc -l a"}},{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"wc -l b"}}]})" "\n"
    R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"3 a"},{"type":"tool_result","tool_use_id":"t2","content":"no such file","is_error":true}]})" "\n"
    R"({"role":"assistant","content":[{"type":"text","text":"a has 3 lines."}]})" "\n";

}  // namespace

TEST_CASE("ai-sdk UI shape joins an assistant turn's calls, results and steps into one UIMessage",
          "[ai-sdk]") {
  StageResult result = convert_shaped(k_anthropic_turn, AiSdkShape::ui);
  auto lines = lines_of(result.out);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].find(R"("role":"user","parts":[{"type":"text","text":"Count the lines."}])") !=
        std::string::npos);
  CHECK(lines[1].find(
            R"("role":"assistant","parts":[{"type":"step-start"},{"type":"reasoning","text":"Use wc.","providerMetadata":{"anthropic":{"signature":"s1"}}},)"
            R"({"type":"tool-Bash","toolCallId":"t1","state":"output-available","input":{"command":"wc -l a"},"output":"3 a"},)"
            R"({"type":"tool-Bash","toolCallId":"t2","state":"output-error","input":{"command":"wc -l b"},"errorText":"no such file"},)"
            R"({"type":"step-start"},{"type":"text","text":"a has 3 lines."}]})") != std::string::npos);
  // Ids are made, 16 characters, the same for the same input.
  CHECK(lines[0].substr(0, 7) == R"({"id":")");
  CHECK(lines[0][7 + 16] == '"');
  CHECK(convert_shaped(k_anthropic_turn, AiSdkShape::ui).out == result.out);
  CHECK(result.warnings.empty());
}

TEST_CASE("ai-sdk UI shape counts a tool result whose call is not in the turn", "[ai-sdk]") {
  StageResult result = convert_shaped(
      R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"t9","content":"x"}]})" "\n",
      AiSdkShape::ui);
  CHECK(result.out.empty());
  REQUIRE(result.warnings.size() == 1);
  CHECK(result.warnings[0].find("tool results without their calls (1)") != std::string::npos);
}

TEST_CASE("ai-sdk model shape writes a UIMessage as ModelMessages, counting what they lack",
          "[ai-sdk]") {
  StageResult result = convert_shaped(k_ui, AiSdkShape::model);
  auto lines = lines_of(result.out);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == R"({"role":"assistant","content":[{"type":"text","text":"Calling."},)"
                    R"({"type":"tool-call","toolCallId":"c1","toolName":"look","input":{"at":"y"}},)"
                    R"({"type":"tool-call","toolCallId":"c2","toolName":"peek","input":{}}]})");
  CHECK(lines[1].find(R"("role":"tool")") != std::string::npos);
  CHECK(lines[2] == R"({"role":"assistant","content":[{"type":"text","text":"Done."}]})");
  REQUIRE(result.warnings.size() == 1);
  CHECK(result.warnings[0].find("message ids (1)") != std::string::npos);
  CHECK(result.warnings[0].find("step-start blocks (1)") != std::string::npos);
  // A UIMessage asked for as one is its own bytes.
  CHECK(convert_shaped(k_ui, AiSdkShape::ui).out == k_ui);
}
