#include <catch2/catch.hpp>

#include "test_util.h"

using namespace convo;
using namespace convo::test;

namespace {

const char* k_user =
    R"({"info":{"id":"msg_1","sessionID":"ses_1","role":"user","time":{"created":1750310400000},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4"}},"parts":[{"id":"prt_1","sessionID":"ses_1","messageID":"msg_1","type":"text","text":"List the files."},{"id":"prt_1b","sessionID":"ses_1","messageID":"msg_1","type":"file","mime":"image/png","filename":"a.png","url":"data:image/png;base64,iVBO"}]})";

// One assistant message over two model steps: a call and its result, then text.
const char* k_assistant =
    R"({"info":{"id":"msg_2","sessionID":"ses_1","role":"assistant","time":{"created":1750310401000,"completed":1750310405000},"parentID":"msg_1","modelID":"claude-sonnet-4","providerID":"anthropic","mode":"build","agent":"build","path":{"cwd":"/p","root":"/p"},"cost":0.01,"tokens":{"input":100,"output":50,"reasoning":0,"cache":{"read":5,"write":0}},"finish":"stop"},"parts":[{"id":"prt_2","sessionID":"ses_1","messageID":"msg_2","type":"step-start","snapshot":"abc"},{"id":"prt_3","sessionID":"ses_1","messageID":"msg_2","type":"reasoning","text":"Use ls.","time":{"start":1,"end":2},"metadata":{"anthropic":{"signature":"sig1"}}},{"id":"prt_4","sessionID":"ses_1","messageID":"msg_2","type":"text","text":"Listing."},{"id":"prt_5","sessionID":"ses_1","messageID":"msg_2","type":"tool","callID":"toolu_1","tool":"bash","state":{"status":"completed","input":{"command":"ls"},"output":"a\nb","title":"ls","metadata":{},"time":{"start":3,"end":4}}},{"id":"prt_6","sessionID":"ses_1","messageID":"msg_2","type":"step-finish","reason":"tool-calls","cost":0.005,"tokens":{"input":50,"output":20,"reasoning":0,"cache":{"read":0,"write":0}}},{"id":"prt_7","sessionID":"ses_1","messageID":"msg_2","type":"step-start"},{"id":"prt_8","sessionID":"ses_1","messageID":"msg_2","type":"text","text":"Two files."},{"id":"prt_9","sessionID":"ses_1","messageID":"msg_2","type":"step-finish","reason":"stop","cost":0.005,"tokens":{"input":50,"output":30,"reasoning":0,"cache":{"read":0,"write":0}}}]})";

std::string lines() { return std::string(k_user) + "\n" + k_assistant + "\n"; }

std::string export_document() {
  return std::string("{\n  \"info\": {\n    \"id\": \"ses_1\",\n    \"projectID\": \"p1\",\n"
                     "    \"directory\": \"/p\",\n    \"title\": \"Files\",\n    \"version\": \"0.9.1\",\n"
                     "    \"time\": {\"created\": 1750310400000, \"updated\": 1750310405000}\n  },\n"
                     "  \"messages\": [\n    ") +
         k_user + ",\n    " + k_assistant + "\n  ]\n}\n";
}

}  // namespace

TEST_CASE("an opencode assistant message becomes API turns: calls, results, more text",
          "[opencode]") {
  auto messages = read_messages(lines());
  REQUIRE(messages.size() == 4);
  const Message& user = messages[0];
  CHECK(user.role == Role::user);
  CHECK(user.timestamp == "2025-06-19T05:20:00.000Z");
  REQUIRE(user.content.blocks.size() == 2);
  CHECK(user.content.blocks[1].type == BlockType::image);
  CHECK(user.content.blocks[1].source.data == "iVBO");
  const Message& calls = messages[1];
  CHECK(calls.role == Role::assistant);
  CHECK(calls.meta->model == "claude-sonnet-4");
  CHECK(calls.usage->input == 100);
  CHECK(calls.usage->cache_read == 5);
  CHECK(calls.usage->cost == 0.01);
  REQUIRE(calls.content.blocks.size() == 3);
  CHECK(calls.content.blocks[0].type == BlockType::thinking);
  CHECK(calls.content.blocks[0].signature == "sig1");
  CHECK(calls.content.blocks[2].type == BlockType::tool_use);
  CHECK(calls.content.blocks[2].input_json() == R"({"command":"ls"})");
  CHECK(messages[2].role == Role::tool);
  CHECK(messages[2].content.blocks[0].result.text == "a\nb");
  CHECK(messages[3].role == Role::assistant);
  CHECK(messages[3].content.blocks[0].text == "Two files.");
  CHECK(convert_text(lines(), Format::opencode).out == lines());
}

TEST_CASE("a changed turn rebuilds its message with the bookkeeping parts in place",
          "[opencode]") {
  auto messages = read_messages(lines());
  messages[3].touch();
  messages[3].content.blocks[0].text = "Two files: a and b.";
  std::string out = encode_all(messages, Format::opencode);
  std::string expected = lines();
  expected.replace(expected.find("\"Two files.\""), 12, "\"Two files: a and b.\"");
  CHECK(out == expected);

  // A failed call: the result turn says so, and the part's state follows.
  messages = read_messages(lines());
  messages[2].touch();
  messages[2].content.blocks[0].is_error = true;
  out = encode_all(messages, Format::opencode);
  CHECK(out.find(R"("state":{"status":"error","input":{"command":"ls"},"title":"ls","metadata":{},"time":{"start":3,"end":4},"error":"a\nb"})") !=
        std::string::npos);
}

TEST_CASE("opencode export documents come back byte for byte, or rebuilt", "[opencode]") {
  std::string document = export_document();
  auto messages = read_messages(document);
  REQUIRE(messages.size() == 5);
  CHECK(messages[0].kind == Kind::bookkeeping);
  CHECK(messages[0].record_type == "session");
  CHECK(convert_text(document, Format::opencode).out == document);

  messages[1].touch();
  messages[1].content.blocks[0].text = "List them.";
  std::string out = encode_all(messages, Format::opencode);
  CHECK(out.find('\n') == out.size() - 1);  // rebuilt as one line
  JsonDoc doc;
  REQUIRE_FALSE(parse_json(out, doc));
  CHECK(view_of(doc["info"]["title"]) == "Files");
  CHECK(view_of(doc["messages"][0]["parts"][0]["text"]) == "List them.");
  CHECK(doc["messages"][1]["parts"].Size() == 8);
}

TEST_CASE("from another format, results join their call's part", "[opencode]") {
  std::string text =
      R"({"role":"user","content":"ls"})" "\n"
      R"({"role":"assistant","content":[{"type":"text","text":"Running."},{"type":"tool_use","id":"t1","name":"bash","input":{"command":"ls"}},{"type":"tool_use","id":"t2","name":"bash","input":{"command":"pwd"}}]})" "\n"
      R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a"},{"type":"tool_result","tool_use_id":"t2","content":"no such dir","is_error":true}]})" "\n"
      R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"t9","content":"stray"},{"type":"text","text":"thanks"}]})" "\n";
  auto out = convert_text(text, Format::opencode, {Format::anthropic});
  CHECK(out.out ==
        R"({"info":{"role":"user"},"parts":[{"type":"text","text":"ls"}]})" "\n"
        R"({"info":{"role":"assistant"},"parts":[{"type":"text","text":"Running."},{"type":"tool","callID":"t1","tool":"bash","state":{"status":"completed","input":{"command":"ls"},"output":"a"}},{"type":"tool","callID":"t2","tool":"bash","state":{"status":"error","input":{"command":"pwd"},"error":"no such dir"}}]})" "\n"
        R"({"info":{"role":"user"},"parts":[{"type":"text","text":"thanks"}]})" "\n");
  REQUIRE(out.warnings.size() == 1);
  CHECK(out.warnings[0].find("tool results without calls (1)") != std::string::npos);
  // A call whose result never came is written pending.
  auto pending = convert_text(R"({"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"bash","input":{}}]})" "\n",
                              Format::opencode, {Format::anthropic});
  CHECK(pending.out ==
        R"({"info":{"role":"assistant"},"parts":[{"type":"tool","callID":"t1","tool":"bash","state":{"status":"pending","input":{},"raw":""}}]})" "\n");
  CHECK(read_messages(pending.out)[0].has_tool_uses());
}

TEST_CASE("opencode storage files are read one by one", "[opencode]") {
  auto session = read_messages(
      R"({"id":"ses_1","projectID":"p","directory":"/p","title":"T","version":"1","time":{"created":1,"updated":2}})" "\n");
  CHECK(session[0].kind == Kind::bookkeeping);
  auto info = read_messages(
      R"({"id":"msg_1","sessionID":"ses_1","role":"assistant","time":{"created":1000},"modelID":"m"})" "\n");
  CHECK(info[0].role == Role::assistant);
  CHECK(info[0].meta->model == "m");
  auto part = read_messages(R"({"id":"prt_1","sessionID":"ses_1","messageID":"msg_1","type":"text","text":"hi"})" "\n");
  CHECK(part[0].origin == Format::opencode);
  CHECK(part[0].kind == Kind::unknown);
  CHECK(part[0].record_type == "text part");  // "text part records" when dropped
}

TEST_CASE("parts convo has no model for survive a changed message", "[opencode]") {
  std::string text =
      R"({"info":{"id":"msg_5","sessionID":"ses_1","role":"user","time":{"created":1}},"parts":[{"id":"p1","type":"text","text":"Review this"},{"id":"p2","type":"agent","name":"reviewer","source":{"value":"@reviewer","start":0,"end":9}},{"id":"p3","type":"subtask","prompt":"check","description":"d","agent":"reviewer"},{"id":"p4","type":"compaction","auto":true}]})" "\n";
  auto messages = read_messages(text);
  REQUIRE(messages.size() == 1);
  REQUIRE(messages[0].content.blocks.size() == 4);
  CHECK(messages[0].content.blocks[1].type_name == "agent");
  messages[0].touch();
  messages[0].content.blocks[0].text = "Review this, please";
  std::string expected = text;
  expected.replace(expected.find("Review this"), 11, "Review this, please");
  CHECK(encode_all(messages, Format::opencode) == expected);
  // Elsewhere they are counted as lost.
  auto out = convert_text(text, Format::anthropic);
  REQUIRE(out.warnings.size() == 1);
  CHECK(out.warnings[0].find("agent blocks (1)") != std::string::npos);
  CHECK(out.warnings[0].find("subtask blocks (1)") != std::string::npos);
  CHECK(out.warnings[0].find("compaction blocks (1)") != std::string::npos);
}
