#include <catch2/catch.hpp>

#include "test_util.h"

using namespace convo;
using namespace convo::test;

namespace {

const ReadOptions k_claude_code{Format::claude_code, OnError::fail};

const char* k_session =
    R"({"type":"summary","summary":"Fix the parser","leafUuid":"u3"})" "\n"
    R"({"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"hi"},"uuid":"u1","sessionId":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/tmp"})" "\n"
    R"({"parentUuid":"u1","type":"assistant","message":{"id":"msg_1","role":"assistant","model":"claude-x","content":[{"type":"thinking","thinking":"hmm","signature":"sig"}],"stop_reason":null,"usage":{"input_tokens":5,"output_tokens":1}},"uuid":"u2","sessionId":"s1","requestId":"req_1"})" "\n"
    R"({"parentUuid":"u2","type":"assistant","message":{"id":"msg_1","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"},"caller":{"type":"direct"}}],"stop_reason":"tool_use","usage":{"input_tokens":5,"output_tokens":9}},"uuid":"u3","sessionId":"s1"})" "\n"
    R"({"parentUuid":"u3","type":"progress","data":{"type":"bash_progress"},"parentToolUseID":"toolu_1","uuid":"u4"})" "\n"
    R"({"parentUuid":"u3","type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"a.txt","is_error":false}]},"uuid":"u5","toolUseResult":{"stdout":"a.txt"}})" "\n"
    R"({"parentUuid":"u5","type":"system","subtype":"compact_boundary","content":"Conversation compacted","uuid":"u6"})" "\n"
    R"({"type":"file-history-snapshot","messageId":"m","snapshot":{}})" "\n"
    R"({"type":"brand-new-record","whatever":1})" "\n";

}  // namespace

TEST_CASE("claude-code records decode to turns and kinds", "[claude-code]") {
  auto messages = read_messages(k_session, k_claude_code);
  REQUIRE(messages.size() == 9);
  CHECK(messages[0].kind == Kind::summary);
  CHECK(messages[0].content.text == "Fix the parser");
  CHECK(messages[0].meta->leaf_uuid == "u3");

  const Message& user = messages[1];
  CHECK(user.kind == Kind::turn);
  CHECK(user.role == Role::user);
  CHECK(user.content.is_string());
  CHECK(user.content.text == "hi");
  CHECK(user.id == "u1");
  CHECK(user.meta->session_id == "s1");
  CHECK(user.meta->parent_uuid.empty());

  const Message& thinking = messages[2];
  CHECK(thinking.role == Role::assistant);
  CHECK(thinking.meta->message_id == "msg_1");
  CHECK(thinking.meta->request_id == "req_1");
  CHECK(thinking.usage->output == 1);
  REQUIRE(thinking.content.blocks.size() == 1);
  CHECK(thinking.content.blocks[0].type == BlockType::thinking);
  CHECK(thinking.content.blocks[0].signature == std::optional<std::string>("sig"));

  const Block& call = messages[3].content.blocks.at(0);
  CHECK(call.type == BlockType::tool_use);
  CHECK(call.id == "toolu_1");
  CHECK(call.input_json() == R"({"command":"ls"})");
  CHECK(messages[3].meta->stop_reason == "tool_use");

  CHECK(messages[4].kind == Kind::progress);
  CHECK(messages[4].meta->subtype == "bash_progress");
  CHECK(messages[4].meta->tool_use_id == "toolu_1");

  const Block& result = messages[5].content.blocks.at(0);
  CHECK(result.type == BlockType::tool_result);
  CHECK(result.id == "toolu_1");
  CHECK(result.result.text == "a.txt");
  CHECK(result.is_error == std::optional<bool>(false));

  CHECK(messages[6].kind == Kind::event);
  CHECK(messages[6].meta->subtype == "compact_boundary");
  CHECK(messages[7].kind == Kind::bookkeeping);
  CHECK(messages[8].kind == Kind::unknown);
  CHECK(messages[8].record_type == "brand-new-record");
}

TEST_CASE("claude-code to itself gives back the same bytes", "[claude-code]") {
  auto result = convert_text(k_session, Format::claude_code);
  CHECK(result.out == k_session);
  CHECK(result.warnings.empty());
}

TEST_CASE("a changed claude-code record keeps every field it does not model", "[claude-code]") {
  auto messages = read_messages(k_session, k_claude_code);
  Message& message = messages[3];
  message.touch();
  message.content.blocks[0].name = "Shell";
  std::vector<Message> changed;
  changed.push_back(std::move(message));
  CHECK(encode_all(changed, Format::claude_code) ==
        R"({"parentUuid":"u2","type":"assistant","message":{"id":"msg_1","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"toolu_1","name":"Shell","input":{"command":"ls"},"caller":{"type":"direct"}}],"stop_reason":"tool_use","usage":{"input_tokens":5,"output_tokens":9}},"uuid":"u3","sessionId":"s1"})"
        "\n");
}

TEST_CASE("a wrongly typed field is an error naming its path", "[claude-code]") {
  std::string line = R"({"type":"user","uuid":"u1","message":{"role":"user","content":42}})";
  try {
    read_messages(line, k_claude_code);
    FAIL("no error");
  } catch (const Error& error) {
    CHECK(error.message() == "in.jsonl:1:53: message.content: expected a string or an array of content blocks, got number");
  }
}

TEST_CASE("a loglines container comes back whole, or rebuilt around changes", "[claude-code]") {
  std::string doc = R"({"loglines": [{"type": "user", "message": {"role": "user", "content": "a"}}, {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "b"}]}}], "meta": 1})";
  CHECK(convert_text(doc, Format::claude_code).out == doc + "\n");

  auto messages = read_messages(doc);
  REQUIRE(messages.size() == 2);
  CHECK(messages[0].origin == Format::claude_code);
  messages[1].touch();
  messages[1].content.blocks[0].text = "B";
  CHECK(encode_all(messages, Format::claude_code) ==
        R"({"loglines":[{"type":"user","message":{"role":"user","content":"a"}},{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"B"}]}}],"meta":1})"
        "\n");
}

TEST_CASE("claude-code to openai keeps turns and tool pairs, reports the rest", "[claude-code]") {
  auto result = convert_text(k_session, Format::openai);
  CHECK(result.out ==
        R"({"role":"user","content":"hi"})" "\n"
        R"({"role":"assistant","content":null,"tool_calls":[{"id":"toolu_1","type":"function","function":{"name":"Bash","arguments":"{\"command\":\"ls\"}"}}]})" "\n"
        R"({"role":"tool","content":"a.txt","tool_call_id":"toolu_1"})" "\n");
  REQUIRE(result.warnings.size() == 1);
  CHECK(result.warnings[0] ==
        "dropped what the output format cannot hold: openai cannot hold summary records (1), "
        "timestamps (1), Claude Code record envelopes (4), message ids (2), model names (2), usage (2), "
        "stop reasons (1), caller of tool_use blocks (1), progress records (1), thinking blocks (1), "
        "thinking-only assistant messages (1), tool use results (1), "
        "system records (1), file-history-snapshot records (1), brand-new-record records (1) "
        "(--strict makes this an error)");
}

TEST_CASE("strict turns the first loss into an error at its line", "[claude-code]") {
  try {
    convert_text(k_session, Format::anthropic, {}, true);
    FAIL("no error");
  } catch (const Error& error) {
    CHECK(error.message() == "in.jsonl:1: anthropic cannot hold summary records (--strict)");
    CHECK(error.code() == ExitCode::input);
  }
}

TEST_CASE("a long tool result and a long text borrow from the parsed record", "[claude-code]") {
  // A 500 MB tool result is held once, in the record's parsed strings, not again as
  // the message's text; short texts are copies of their own.
  std::string output;
  while (output.size() < 2 * Text::k_borrow_at) {  // 10 bytes escaped, 7 read
    output += R"(ok \"x\"\n)";
  }
  const std::string text = R"({"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":")" +
                           output + R"("},{"type":"text","text":")" + output +
                           R"("},{"type":"text","text":"short"}]},"uuid":"u5"})" "\n" +
                           R"({"type":"user","message":{"role":"user","content":")" + output +
                           R"("},"uuid":"u6"})" "\n";
  auto messages = read_messages(text, k_claude_code);
  REQUIRE(messages.size() == 2);
  const auto& blocks = messages[0].content.blocks;
  REQUIRE(blocks.size() == 3);
  CHECK(blocks[0].result.text.borrowed());
  CHECK(blocks[0].result.text.starts_with("ok \"x\"\nok"));
  CHECK(blocks[1].text.borrowed());
  CHECK(blocks[1].text == blocks[0].result.text);
  CHECK_FALSE(blocks[2].text.borrowed());
  CHECK(messages[1].content.text.borrowed());
  CHECK(messages[1].content.text == blocks[0].result.text);
}
