#include <catch2/catch.hpp>

#include "formats/openai.h"
#include "formats/responses_items.h"
#include "test_util.h"

using namespace convo;
using namespace convo::test;

namespace {

const char* k_chat =
    R"({"role":"developer","content":"Answer in French."})" "\n"
    R"({"role":"user","content":"Weather?","name":"alice"})" "\n"
    R"({"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}},{"id":"call_2","type":"function","function":{"name":"get_time","arguments":""}}]})" "\n"
    R"({"role":"tool","tool_call_id":"call_1","content":"sunny"})" "\n"
    R"({"role":"tool","tool_call_id":"call_2","content":[{"type":"text","text":"noon"}]})" "\n"
    R"({"role":"assistant","content":"Il fait beau.","refusal":null})" "\n";

}  // namespace

TEST_CASE("openai messages decode tool calls and tool messages to blocks", "[openai]") {
  auto messages = read_messages(k_chat);
  REQUIRE(messages.size() == 6);
  CHECK(messages[0].role == Role::developer);
  CHECK(messages[1].name == "alice");
  const Message& calls = messages[2];
  REQUIRE(calls.content.blocks.size() == 2);
  CHECK(calls.content.blocks[0].type == BlockType::tool_use);
  CHECK(calls.content.blocks[0].input_json() == R"({"city": "Paris"})");
  CHECK(calls.content.blocks[1].input_json() == "{}");
  const Message& tool = messages[3];
  CHECK(tool.role == Role::tool);
  REQUIRE(tool.content.blocks.size() == 1);
  CHECK(tool.content.blocks[0].type == BlockType::tool_result);
  CHECK(tool.content.blocks[0].id == "call_1");
  CHECK(tool.content.blocks[0].result.text == "sunny");
}

TEST_CASE("openai to itself gives back the same bytes", "[openai]") {
  auto result = convert_text(k_chat, Format::openai);
  CHECK(result.out == k_chat);
  CHECK(result.warnings.empty());
}

TEST_CASE("a changed openai message keeps its unknown fields and string content", "[openai]") {
  auto messages = read_messages(k_chat);
  Message& last = messages[5];
  last.touch();
  last.content.text = "Beau temps.";
  std::vector<Message> changed;
  changed.push_back(std::move(last));
  CHECK(encode_all(changed, Format::openai) == R"({"role":"assistant","content":"Beau temps.","refusal":null})" "\n");
}

TEST_CASE("openai to anthropic and back keeps roles, texts, tool calls and results", "[openai]") {
  auto there = convert_text(k_chat, Format::anthropic);
  CHECK(there.out ==
        R"({"role":"system","content":"Answer in French."})" "\n"
        R"({"role":"user","content":"Weather?"})" "\n"
        R"({"role":"assistant","content":[{"type":"tool_use","id":"call_1","name":"get_weather","input":{"city": "Paris"}},{"type":"tool_use","id":"call_2","name":"get_time","input":{}}]})" "\n"
        // The results of one turn's calls are one user message, as the API requires.
        R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":"sunny"},{"type":"tool_result","tool_use_id":"call_2","content":[{"type":"text","text":"noon"}]}]})" "\n"
        R"({"role":"assistant","content":"Il fait beau."})" "\n");
  REQUIRE(there.warnings.size() == 1);
  CHECK(there.warnings[0].find("anthropic cannot hold message names (1)") != std::string::npos);

  auto back = convert_text(there.out, Format::openai);
  CHECK(back.out ==
        R"({"role":"system","content":"Answer in French."})" "\n"
        R"({"role":"user","content":"Weather?"})" "\n"
        R"({"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},{"id":"call_2","type":"function","function":{"name":"get_time","arguments":"{}"}}]})" "\n"
        R"({"role":"tool","content":"sunny","tool_call_id":"call_1"})" "\n"
        R"({"role":"tool","content":[{"type":"text","text":"noon"}],"tool_call_id":"call_2"})" "\n"
        R"({"role":"assistant","content":"Il fait beau."})" "\n");
  CHECK(back.warnings.empty());
}

TEST_CASE("arguments that are not JSON are reported and kept as a string", "[openai]") {
  std::string line =
      R"({"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{oops"}}]})";
  auto result = convert_text(line, Format::anthropic);
  CHECK(result.out ==
        R"({"role":"assistant","content":[{"type":"tool_use","id":"c","name":"f","input":"{oops"}]})" "\n");
  REQUIRE(result.warnings.size() == 1);
  CHECK(result.warnings[0].find("tool inputs that are not JSON objects (written as strings) (1)") !=
        std::string::npos);
}

TEST_CASE("an openai response body holds its choice messages", "[openai]") {
  std::string response =
      R"({"id":"chatcmpl-1","object":"chat.completion","model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":7,"completion_tokens":2,"total_tokens":9}})";
  auto messages = read_messages(response);
  REQUIRE(messages.size() == 1);
  CHECK(messages[0].role == Role::assistant);
  CHECK(messages[0].content.text == "Hi");
  CHECK(messages[0].usage->input == 7);
  CHECK(messages[0].meta->stop_reason == "stop");
  CHECK(convert_text(response, Format::openai).out == response + "\n");

  messages[0].touch();
  messages[0].content.text = "Hello";
  CHECK(encode_all(messages, Format::openai) ==
        R"({"id":"chatcmpl-1","object":"chat.completion","model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"Hello"},"finish_reason":"stop"}],"usage":{"prompt_tokens":7,"completion_tokens":2,"total_tokens":9}})"
        "\n");
}

TEST_CASE("openai audio and files map to anthropic where it can hold them", "[openai]") {
  std::string line =
      R"({"role":"user","content":[{"type":"input_audio","input_audio":{"data":"UklG","format":"wav"}},{"type":"file","file":{"file_data":"data:application/pdf;base64,JVBE","filename":"a.pdf"}}]})";
  auto result = convert_text(line, Format::anthropic);
  CHECK(result.out ==
        R"({"role":"user","content":[{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBE"},"title":"a.pdf"}]})" "\n");
  REQUIRE(result.warnings.size() == 1);
  CHECK(result.warnings[0].find("anthropic cannot hold input_audio blocks (1)") != std::string::npos);
}

TEST_CASE("a provider's reasoning member is a thinking block that goes back in its member",
          "[openai]") {
  const std::string deepseek =
      R"({"role":"assistant","content":"Paris.","reasoning_content":"The capital of France."})" "\n";
  auto messages = read_messages(deepseek);
  REQUIRE(messages[0].content.blocks.size() == 2);
  CHECK(messages[0].content.blocks[0].type == BlockType::thinking);
  CHECK(messages[0].content.blocks[0].text == "The capital of France.");
  CHECK(is_openai_reasoning(messages[0].content.blocks[0]));
  CHECK(messages[0].content.blocks[1].text == "Paris.");

  // Unchanged, the line comes back as it was; changed, the member keeps its place.
  CHECK(convert_text(deepseek, Format::openai).out == deepseek);
  auto changed = read_messages(deepseek);
  changed[0].touch();
  CHECK(encode_all(changed, Format::openai) == deepseek);

  // Carried to formats that hold thinking, as thinking without a signature.
  auto anthropic = convert_text(deepseek, Format::anthropic);
  CHECK(anthropic.out ==
        R"({"role":"assistant","content":[{"type":"thinking","thinking":"The capital of France."},{"type":"text","text":"Paris."}]})" "\n");
  CHECK(anthropic.warnings.empty());

  // OpenRouter's `reasoning`, with a tool call and null content.
  const std::string openrouter =
      R"({"role":"assistant","content":null,"reasoning":"Look it up.","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]})" "\n";
  auto routed = read_messages(openrouter);
  routed[0].touch();
  CHECK(encode_all(routed, Format::openai) == openrouter);

  // Not a string, or empty: not reasoning text, kept as an unmodelled member.
  const std::string other = R"({"role":"assistant","content":"x","reasoning":{"effort":"low"}})";
  CHECK(read_messages(other)[0].content.is_string());
}

TEST_CASE("thinking from other formats is not written as a provider's reasoning", "[openai]") {
  auto result = convert_text(
      R"({"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"text","text":"a"}]})",
      Format::openai, {Format::anthropic, OnError::fail});
  CHECK(result.out == "{\"role\":\"assistant\",\"content\":\"a\"}\n");
  REQUIRE(result.warnings.size() == 1);
  CHECK(result.warnings[0].find("openai cannot hold thinking blocks (1)") != std::string::npos);
}

TEST_CASE("a Responses custom tool call's input, said to be as written, is what the writer writes",
          "[openai]") {
  // Block::input_as_written spares the writers a check of megabytes: it must hold
  // for inputs read as written and for those spelled otherwise (a \/ escape).
  ReadOptions options;
  options.from = Format::openai_responses;
  auto messages = read_messages(
      "{\"type\":\"custom_tool_call\",\"call_id\":\"c1\",\"name\":\"apply_patch\","
      "\"input\":\"*** Begin Patch\\n+\\\"x\\\" \\\\ y\\n\"}\n"
      "{\"type\":\"custom_tool_call\",\"call_id\":\"c2\",\"name\":\"apply_patch\","
      "\"input\":\"a\\/b \\u00e9\"}\n",
      options);
  int calls = 0;
  for (const Message& message : messages) {
    for (const Block& block : message.content.blocks) {
      if (block.type != BlockType::tool_use) {
        continue;
      }
      ++calls;
      CHECK(block.input_as_written);
      CHECK(json_object_as_written(block.input) == true);
    }
  }
  CHECK(calls == 2);
}

TEST_CASE("what a Responses item loses is counted alike from the decoder's note and from the item",
          "[openai]") {
  // responses_item_unmodelled reads the note decoding left (Source::note) rather than
  // the item again; the item read anew must give the same names in the same order.
  std::string statuses;
  for (int i = 0; i < 13; ++i) {
    statuses += R"("status":"s",)";  // more members than the note holds
  }
  const std::string lines =
      R"({"type":"message","id":"m1","role":"assistant","status":"completed","phase":"final","content":[{"type":"output_text","text":"a","annotations":[{"type":"url_citation"}],"logprobs":[]}]})" "\n"
      R"({"type":"message","role":"user","content":[{"type":"input_image","image_url":"https://x/y.png","detail":"high"},{"type":"input_text","text":"b"}]})" "\n"
      R"({"type":"function_call","id":"fc1","call_id":"c1","name":"f","arguments":"{}","status":"completed","extra":1})" "\n"
      R"({"type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"r","cache":true}]})" "\n"
      R"({"type":"custom_tool_call","call_id":"c2","name":"apply_patch","input":"p","id":"ct1"})" "\n"
      R"({"type":"custom_tool_call_output","call_id":"c2","output":"done"})" "\n"
      R"({"type":"reasoning","id":"r1","summary":[],"content":[{"type":"reasoning_text","text":"t"}],"encrypted_content":"e"})" "\n"
      R"({"type":"reasoning","summary":[{"type":"summary_text","text":"s"}],"encrypted_content":"e","id":null})" "\n"
      R"({"type":"function_call",)" + statuses + R"("call_id":"c3","name":"g","arguments":"{}"})" "\n"
      R"({"type":"web_search_call","id":"ws1","status":"completed"})" "\n";
  ReadOptions options;
  options.from = Format::openai_responses;
  auto messages = read_messages(lines, options);
  REQUIRE(messages.size() == 10);
  std::vector<std::vector<std::string>> noted;
  std::vector<std::vector<std::string>> read;
  for (const Message& message : messages) {
    REQUIRE(message.source != nullptr);
    CHECK(message.source->noted == message.json);
    auto& from_note = noted.emplace_back();
    responses_item_unmodelled(message, [&](std::string_view what) { from_note.emplace_back(what); });
    message.source->noted = nullptr;
    auto& from_item = read.emplace_back();
    responses_item_unmodelled(message, [&](std::string_view what) { from_item.emplace_back(what); });
  }
  CHECK(noted == read);
  using names = std::vector<std::string>;
  CHECK(noted[0] == names{"annotations of text blocks", "item ids", "status of items",
                          "phase of items"});
  CHECK(noted[1] == names{"detail of image blocks"});
  CHECK(noted[2] == names{"item ids", "status of items", "extra of items"});
  CHECK(noted[3] == names{"cache of text blocks"});
  CHECK(noted[4] == names{"custom tool calls", "item ids"});
  CHECK(noted[5] == names{"custom tool calls"});
  CHECK(noted[6] == names{"reasoning_text parts", "item ids", "encrypted reasoning"});
  CHECK(noted[7] == names{"encrypted reasoning"});
  CHECK(noted[8] == names(13, "status of items"));
  CHECK(noted[9].empty());  // a built-in tool's item: one block the target counts
}
