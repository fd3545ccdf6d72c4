#include <catch2/catch.hpp>

#include "stages/buffer_string.h"
#include "stages/convert.h"
#include "test_util.h"

using namespace convo;
using namespace convo::test;

namespace {

std::string buffer_string(const std::string& text, BufferStringOptions options = {}) {
  auto shared = std::make_shared<const BufferStringOptions>(std::move(options));
  return run_stage_on(
             text, [] { return std::make_unique<PassThrough>(); }, buffer_string_sink(shared))
      .out;
}

}  // namespace

TEST_CASE("buffer-string writes plain messages as get_buffer_string does", "[buffer_string]") {
  std::string text =
      R"({"role":"system","content":"Be brief."})" "\n"
      R"({"role":"developer","content":"No emoji."})" "\n"
      R"({"role":"user","content":"Hi,\nthere","name":"alice"})" "\n"
      R"({"role":"assistant","content":""})" "\n"
      R"({"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]})" "\n"
      R"({"role":"narrator","content":"Meanwhile"})" "\n";
  CHECK(buffer_string(text) == "System: Be brief.\n"
                               "System: No emoji.\n"
                               "Human: Hi,\nthere\n"
                               "AI: \n"
                               "AI: ab\n"
                               "narrator: Meanwhile\n");
}

TEST_CASE("buffer-string takes the prefixes it is given", "[buffer_string]") {
  BufferStringOptions options;
  options.human_prefix = "User";
  options.ai_prefix = "Bot";
  options.system_prefix = "Rules";
  options.tool_prefix = "Result";
  std::string text = R"({"role":"system","content":"s"})" "\n"
                     R"({"role":"user","content":"u"})" "\n"
                     R"({"role":"assistant","content":"a"})" "\n"
                     R"({"role":"tool","content":"t","tool_call_id":"c"})" "\n";
  CHECK(buffer_string(text, options) == "Rules: s\nUser: u\nBot: a\nResult: t\n");
}

TEST_CASE("buffer-string writes tool calls as LangChain.js's JSON", "[buffer_string]") {
  std::string id(70, 'x');
  std::string text =
      R"({"role":"assistant","content":"Checking.","tool_calls":[{"id":")" + id +
      R"(","type":"function","function":{"name":"f","arguments":"{\"a\": 1.0, \"b\": 1e21, \"c\": 1e-7, \"d\": 0.000001, \"e\": 12345678901234567890, \"f\": -0.0, \"g\": \"t\\tq\\\"\\u0001é\", \"a\": 2}"}},{"id":"c2","type":"function","function":{"name":"g","arguments":"not json"}}]})" "\n";
  CHECK(buffer_string(text) ==
        "AI: Checking.[{\"id\":\"" + std::string(64, 'x') +
            "...\",\"args\":{\"a\":2,\"b\":1e+21,\"c\":1e-7,\"d\":0.000001,\"e\":12345678901234567000,"
            "\"f\":0,\"g\":\"t\\tq\\\"\\u0001é\"},\"name\":\"f\",\"type\":\"tool_call\"},"
            "{\"id\":\"c2\",\"args\":\"not json\",\"name\":\"g\",\"type\":\"tool_call\"}]\n");
}

TEST_CASE("buffer-string shows media and other blocks as placeholders", "[buffer_string]") {
  std::string text =
      R"({"role":"user","content":[{"type":"text","text":"see "},{"type":"image","source":{"type":"url","url":"https://x/a.png"}},{"type":"document","source":{"type":"text","media_type":"text/plain","data":"d"}}]})" "\n"
      R"({"role":"assistant","content":[{"type":"thinking","thinking":"secret","signature":"s"},{"type":"redacted_thinking","data":"zz"},{"type":"text","text":"ok"}]})" "\n";
  CHECK(buffer_string(text) == "Human: see [image][document]\n"
                               "AI: [thinking][redacted_thinking]ok\n");
}

TEST_CASE("buffer-string reads a Claude Code session as a play script", "[buffer_string]") {
  std::string text =
      R"({"type":"summary","summary":"Counting lines","leafUuid":"x"})" "\n"
      R"({"type":"user","uuid":"1","message":{"role":"user","content":"How long is a.c?"}})" "\n"
      R"({"type":"assistant","uuid":"2","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"wc -l a.c"}}]}})" "\n"
      R"({"type":"progress","uuid":"3","data":{"type":"bash_progress"},"parentToolUseID":"toolu_1"})" "\n"
      R"({"type":"user","uuid":"4","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"12 a.c"}]},{"type":"tool_result","tool_use_id":"toolu_2","content":"oops","is_error":true},{"type":"text","text":"and?"}]}})" "\n"
      R"({"type":"system","uuid":"5","subtype":"turn_duration","content":"took 2s"})" "\n"
      R"({"type":"assistant","uuid":"6","message":{"id":"n","role":"assistant","content":[{"type":"text","text":"12 lines."}]}})" "\n";
  CHECK(buffer_string(text) ==
        "Human: How long is a.c?\n"
        R"(AI: [{"id":"toolu_1","args":{"command":"wc -l a.c"},"name":"Bash","type":"tool_call"}])" "\n"
        "Tool: 12 a.c\n"
        "Tool: oops\n"
        "Human: and?\n"
        "AI: 12 lines.\n");
}

TEST_CASE("buffer-string of nothing is nothing", "[buffer_string]") {
  CHECK(buffer_string("").empty());
}

TEST_CASE("buffer-string orders tool arguments as a JavaScript object does", "[buffer_string]") {
  std::string text =
      R"({"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"b\":1,\"10\":2,\"a\":3,\"2\":4,\"02\":5,\"4294967295\":7,\"4294967294\":8,\"b\":9}"}}]})" "\n";
  CHECK(buffer_string(text) ==
        R"(AI: [{"id":"c","args":{"2":4,"10":2,"4294967294":8,"b":9,"a":3,"02":5,"4294967295":7},"name":"f","type":"tool_call"}])" "\n");
}

TEST_CASE("buffer-string --format xml writes LangChain Python's XML transcript",
          "[buffer_string]") {
  BufferStringOptions options;
  options.style = BufferStringOptions::Style::xml;
  std::string text =
      R"({"role":"system","content":"Be <brief> & kind."})" "\n"
      R"({"role":"user","content":[{"type":"text","text":"Look at"},{"type":"image_url","image_url":{"url":"https://x/a.png?q=1&r=2"}},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}},{"type":"text","text":""},{"type":"text","text":"this"}]})" "\n"
      R"({"role":"assistant","content":"Checking.","tool_calls":[{"id":"call_1","type":"function","function":{"name":"get \"weather\"","arguments":"{\"city\":\"Paris\",\"days\":2.0,\"at\":1e-05}"}}]})" "\n"
      R"({"role":"tool","tool_call_id":"call_1","content":"18C <cloudy>"})" "\n"
      R"({"role":"assistant","content":null,"tool_calls":[{"id":"call_2","type":"function","function":{"name":"it's","arguments":"{}"}}]})" "\n"
      R"({"role":"narrator","content":"Meanwhile\nlater"})" "\n";
  CHECK(buffer_string(text, options) ==
        "<message type=\"system\">Be &lt;brief&gt; &amp; kind.</message>\n"
        "<message type=\"human\">Look at <image url=\"https://x/a.png?q=1&amp;r=2\" /> this</message>\n"
        "<message type=\"ai\">\n"
        "  <content>Checking.</content>\n"
        "  <tool_call id=\"call_1\" name='get \"weather\"'>{\"city\": \"Paris\", \"days\": 2.0, \"at\": 1e-05}</tool_call>\n"
        "</message>\n"
        "<message type=\"tool\">18C &lt;cloudy&gt;</message>\n"
        "<message type=\"ai\">\n"
        "  <tool_call id=\"call_2\" name=\"it's\">{}</tool_call>\n"
        "</message>\n"
        "<message type=\"narrator\">Meanwhile\nlater</message>\n");
}

TEST_CASE("buffer-string --format xml: Claude Code tool results are tool messages",
          "[buffer_string]") {
  BufferStringOptions options;
  options.style = BufferStringOptions::Style::xml;
  options.human_prefix = "User";
  std::string text =
      R"({"type":"assistant","uuid":"2","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"s"},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]}})" "\n"
      R"({"type":"user","uuid":"4","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"a\tb"}]},{"type":"text","text":"ok?"}]}})" "\n";
  CHECK(buffer_string(text, options) ==
        "<message type=\"ai\">\n"
        "  <tool_call id=\"toolu_1\" name=\"Bash\">{\"command\": \"ls\"}</tool_call>\n"
        "</message>\n"
        "<message type=\"tool\">a\tb</message>\n"
        "<message type=\"user\">ok?</message>\n");
}

TEST_CASE("buffer-string on every corpus transcript: one entry or more per turn",
          "[buffer_string][corpus]") {
  auto files = corpus_files();
  if (files.empty()) {
    WARN("skipped: no corpus");
    return;
  }
  for (const CorpusFile& file : files) {
    INFO(file.path);
    ReadOptions read{file.format, OnError::keep};
    std::size_t turns = 0;
    for (const Message& message : read_messages(file.text, read)) {
      turns += message.is_turn();
    }
    auto shared = std::make_shared<const BufferStringOptions>();
    std::string out = run_stage_on(
                          file.text, [] { return std::make_unique<PassThrough>(); },
                          buffer_string_sink(shared), read)
                          .out;
    CHECK(static_cast<std::size_t>(std::count(out.begin(), out.end(), '\n')) >= turns);
  }
}
