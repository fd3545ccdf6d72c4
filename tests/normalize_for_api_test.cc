#include <catch2/catch.hpp>

#include <filesystem>

#include "io/output.h"
#include "stages/normalize_for_api.h"
#include "test_util.h"

using namespace convo;
using namespace convo::test;

namespace {

// normalize-for-api on `text` (read as in.jsonl), as the anthropic lines it writes.
std::string normalize(const std::string& text, NormalizeOptions options = {},
                      std::optional<Format> from = std::nullopt) {
  std::string out;
  for (std::vector<Message>& conversation :
       normalize_for_api(read_messages(text, {from, OnError::fail}), options)) {
    out += encode_all(conversation, Format::anthropic);
  }
  return out;
}

std::string lines(std::initializer_list<std::string_view> values) {
  std::string out;
  for (std::string_view value : values) {
    out += value;
    out += '\n';
  }
  return out;
}

constexpr std::string_view k_use_a =
    R"([{"type":"tool_use","id":"toolu_a","name":"Bash","input":{"command":"ls"}}])";
constexpr std::string_view k_use_b =
    R"([{"type":"tool_use","id":"toolu_b","name":"Read","input":{"file_path":"x"}}])";
constexpr std::string_view k_result_a =
    R"([{"type":"tool_result","tool_use_id":"toolu_a","content":"a.txt"}])";
constexpr std::string_view k_result_b =
    R"([{"type":"tool_result","tool_use_id":"toolu_b","content":"x!"}])";

}  // namespace

TEST_CASE("the pieces of one response become one message, with all its results after it",
          "[normalize_for_api]") {
  // Parallel tool calls: Claude Code writes call a, result a, call b, result b.
  std::string log = cc_user("u1", "", R"("list and read")") +
                    cc_assistant("a1", "u1", "msg_1", k_use_a) +
                    cc_line("progress", "p1", "a1", R"("data":{"type":"bash_progress"})") +
                    cc_user("r1", "a1", k_result_a) +
                    cc_assistant("a2", "r1", "msg_1", k_use_b) + cc_user("r2", "a2", k_result_b) +
                    cc_assistant("a3", "r2", "msg_2", R"([{"type":"text","text":"done"}])");
  CHECK(normalize(log) ==
        lines({R"({"role":"user","content":"list and read"})",
               R"({"role":"assistant","content":[{"type":"tool_use","id":"toolu_a","name":"Bash","input":{"command":"ls"}},{"type":"tool_use","id":"toolu_b","name":"Read","input":{"file_path":"x"}}]})",
               R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_a","content":"a.txt"},{"type":"tool_result","tool_use_id":"toolu_b","content":"x!"}]})",
               R"({"role":"assistant","content":[{"type":"text","text":"done"}]})"}));
}

TEST_CASE("results of parallel calls hanging off the chain are recovered", "[normalize_for_api]") {
  // Both pieces and both results hang below the first piece; the walk from the leaf
  // passes through piece 2 and result 2 only.
  std::string log = cc_user("u1", "", R"("go")") + cc_assistant("a1", "u1", "msg_1", k_use_a) +
                    cc_assistant("a2", "a1", "msg_1", k_use_b) + cc_user("r1", "a1", k_result_a) +
                    cc_user("r2", "a2", k_result_b) +
                    cc_assistant("a3", "r2", "msg_2", R"([{"type":"text","text":"ok"}])");
  std::string out = normalize(log);
  CHECK(out.find(R"({"type":"tool_result","tool_use_id":"toolu_a","content":"a.txt"},{"type":"tool_result","tool_use_id":"toolu_b")") !=
        std::string::npos);
  CHECK(out.find("[tool result missing") == std::string::npos);
}

TEST_CASE("an abandoned branch is left out", "[normalize_for_api]") {
  std::string log = cc_user("u1", "", R"("first")") +
                    cc_assistant("a1", "u1", "msg_1", R"([{"type":"text","text":"one"}])") +
                    cc_user("u2", "a1", R"("abandoned")") +
                    cc_assistant("a2", "u2", "msg_2", R"([{"type":"text","text":"lost"}])") +
                    cc_user("u3", "a1", R"("edited")") +
                    cc_assistant("a3", "u3", "msg_3", R"([{"type":"text","text":"kept"}])");
  CHECK(normalize(log) == lines({R"({"role":"user","content":"first"})",
                                 R"({"role":"assistant","content":[{"type":"text","text":"one"}]})",
                                 R"({"role":"user","content":"edited"})",
                                 R"({"role":"assistant","content":[{"type":"text","text":"kept"}]})"}));
}

TEST_CASE("a parent loop ends the walk instead of hanging", "[normalize_for_api]") {
  std::string log = cc_user("u1", "a1", R"("loop")") +
                    cc_assistant("a1", "u1", "msg_1", R"([{"type":"text","text":"back"}])");
  CHECK(normalize(log) == lines({R"({"role":"user","content":"loop"})",
                                 R"({"role":"assistant","content":[{"type":"text","text":"back"}]})"}));
}

TEST_CASE("the conversation starts at the latest compaction", "[normalize_for_api]") {
  std::string log =
      cc_user("u1", "", R"("old question")") +
      cc_assistant("a1", "u1", "msg_1", R"([{"type":"text","text":"old answer"}])") +
      cc_line("system", "b1", "",
              R"("subtype":"compact_boundary","logicalParentUuid":"a1","content":"Conversation compacted")") +
      cc_line("user", "s1", "b1",
              R"("isCompactSummary":true,"message":{"role":"user","content":"This session is being continued..."})") +
      cc_user("u2", "s1", R"("new question")");
  CHECK(normalize(log) ==
        lines({R"({"role":"user","content":[{"type":"text","text":"This session is being continued...\n"},{"type":"text","text":"new question"}]})"}));
}

TEST_CASE("subagent records are left out unless asked for, then come as conversations of their own",
          "[normalize_for_api]") {
  std::string log =
      cc_user("u1", "", R"("delegate")") +
      cc_line("user", "t1", "",
              R"("isSidechain":true,"message":{"role":"user","content":"subtask"})") +
      cc_line("assistant", "t2", "t1",
              R"("isSidechain":true,"message":{"id":"msg_s","role":"assistant","content":[{"type":"text","text":"sub done"}]})") +
      cc_assistant("a1", "u1", "msg_1", R"([{"type":"text","text":"main done"}])");
  std::string main_only = lines({R"({"role":"user","content":"delegate"})",
                                 R"({"role":"assistant","content":[{"type":"text","text":"main done"}]})"});
  CHECK(normalize(log) == main_only);
  NormalizeOptions options;
  options.sidechains = true;
  auto conversations = normalize_for_api(read_messages(log), options);
  REQUIRE(conversations.size() == 2);
  CHECK(encode_all(conversations[1], Format::anthropic) ==
        lines({R"({"role":"user","content":"subtask"})",
               R"({"role":"assistant","content":[{"type":"text","text":"sub done"}]})"}));
}

TEST_CASE("the API view keeps where each message and block came from, built in place or not",
          "[normalize_for_api]") {
  // Lines 1-4: one thread in file order, whose view is built over its records (an
  // attachment lifted ahead of the prompt it follows, then merged with it).
  std::string log =
      cc_user("u1", "", R"("first")") +
      cc_assistant("a1", "u1", "msg_1", R"([{"type":"text","text":"ok"}])") +
      cc_user("u2", "a1", R"("second")") +
      cc_line("attachment", "t1", "u2",
              R"("attachment":{"type":"hook_additional_context","hookName":"UserPromptSubmit","hookEvent":"UserPromptSubmit","content":["x"]})");
  auto check_main = [](const ApiConversation& view) {
    REQUIRE(view.size() == 3);
    CHECK(view[0].origin.where.line == 1);
    CHECK(view[1].origin.where.line == 2);
    // The assistant record is its own origin: its block 0 is the record's block 0.
    CHECK(view[1].block_origins == nullptr);
    CHECK(view[1].block_origin(0).where.line == 2);
    CHECK(view[1].block_origin(0).index == 0);
    CHECK(view[1].block_origin(1).index == BlockOrigin::k_whole);
    const ApiMessage last = view.back();
    CHECK(last.origin.where.line == 4);
    REQUIRE(last.block_origins != nullptr);
    REQUIRE(last.block_origins->size() == 2);
    CHECK(last.block_origin(0).where.line == 4);
    CHECK(last.block_origin(1).where.line == 3);
    CHECK(last.block_origin(1).index == BlockOrigin::k_whole);
    CHECK(last.message.content.blocks.at(1).text == "second");
    std::size_t seen = 0;
    for (const ApiMessage& m : view) {
      CHECK(&m.message == &view.messages[seen]);
      ++seen;
    }
    CHECK(seen == 3);
  };
  check_main(api_view(read_messages(log), NormalizeOptions{}).at(0));
  // With a subagent's thread too, each view is built beside the records.
  std::string with_subagent =
      log + cc_line("user", "s1", "", R"("isSidechain":true,"message":{"role":"user","content":"subtask"})");
  NormalizeOptions sidechains;
  sidechains.sidechains = true;
  std::vector<ApiConversation> views = api_view(read_messages(with_subagent), sidechains);
  REQUIRE(views.size() == 2);
  check_main(views[0]);
  REQUIRE(views[1].size() == 1);
  CHECK(views[1][0].origin.where.line == 5);
}

TEST_CASE("a subagent's own log is its conversation", "[normalize_for_api]") {
  std::string log =
      cc_line("user", "t1", "", R"("isSidechain":true,"message":{"role":"user","content":"subtask"})") +
      cc_line("assistant", "t2", "t1",
              R"("isSidechain":true,"message":{"id":"msg_s","role":"assistant","content":[{"type":"text","text":"sub done"}]})");
  CHECK(normalize(log) == lines({R"({"role":"user","content":"subtask"})",
                                 R"({"role":"assistant","content":[{"type":"text","text":"sub done"}]})"}));
}

TEST_CASE("what the API must not see is dropped, and local command output becomes user text",
          "[normalize_for_api]") {
  std::string log =
      R"({"type":"summary","summary":"t","leafUuid":"a2"})" "\n" + cc_user("u1", "", R"("hi")") +
      cc_line("system", "e1", "u1",
              R"("subtype":"local_command","content":"<local-command-stdout>Set model to opus</local-command-stdout>")") +
      cc_line("system", "e2", "e1", R"("subtype":"turn_duration","content":"")") +
      cc_line("assistant", "x1", "e2",
              R"("isApiErrorMessage":true,"message":{"id":"m0","model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"API Error: 529"}]})") +
      cc_line("user", "v1", "x1", R"("isVirtual":true,"message":{"role":"user","content":"virtual"})") +
      R"({"type":"file-history-snapshot","messageId":"m","snapshot":{}})" "\n" +
      cc_assistant("a2", "v1", "msg_2", R"([{"type":"text","text":"hello"}])");
  CHECK(normalize(log) ==
        lines({R"({"role":"user","content":[{"type":"text","text":"hi\n"},{"type":"text","text":"<local-command-stdout>Set model to opus</local-command-stdout>"}]})",
               R"({"role":"assistant","content":[{"type":"text","text":"hello"}]})"}));
}

TEST_CASE("attachments the model saw become user text ahead of the prompt, and others are dropped",
          "[normalize_for_api]") {
  std::string log =
      cc_user("u1", "", R"("first")") +
      cc_assistant("a1", "u1", "msg_1", R"([{"type":"text","text":"ok"}])") +
      cc_user("u2", "a1", R"("second")") +
      cc_line("attachment", "t1", "u2",
              R"("attachment":{"type":"hook_additional_context","hookName":"UserPromptSubmit","hookEvent":"UserPromptSubmit","content":["branch: main","clean"]})") +
      cc_line("attachment", "t2", "t1",
              R"("attachment":{"type":"hook_success","hookName":"PostToolUse:Bash","hookEvent":"PostToolUse","content":"ran"})") +
      cc_line("attachment", "t3", "t2", R"("attachment":{"type":"something_new","x":1})");
  CHECK(normalize(log) ==
        lines({R"({"role":"user","content":"first"})",
               R"({"role":"assistant","content":[{"type":"text","text":"ok"}]})",
               R"({"role":"user","content":[{"type":"text","text":"<system-reminder>\nUserPromptSubmit hook additional context: branch: main\nclean\n</system-reminder>\n"},{"type":"text","text":"second"}]})"}));
}

TEST_CASE("every tool_use gets a result in the next message", "[normalize_for_api]") {
  SECTION("a call without a result at the end: the session ended before its result") {
    std::string log = cc_user("u1", "", R"("go")") + cc_assistant("a1", "u1", "msg_1", k_use_a);
    CHECK(normalize(log) ==
          lines({R"({"role":"user","content":"go"})",
                 R"({"role":"assistant","content":[{"type":"tool_use","id":"toolu_a","name":"Bash","input":{"command":"ls"}}]})",
                 R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_a","content":"[Tool call interrupted: the session ended before this call's result was recorded, so its outcome is unknown. Check whether it took effect before relying on it or running it again.]","is_error":true}]})"}));
  }
  SECTION("a call no result answers, earlier on, goes with its whole response") {
    std::string log = cc_user("u1", "", R"("go")") +
                      cc_assistant("a1", "u1", "msg_1",
                                   R"([{"type":"text","text":"running"},{"type":"tool_use","id":"toolu_a","name":"Bash","input":{}}])") +
                      cc_user("u2", "a1", R"("next")") +
                      cc_assistant("a2", "u2", "msg_2", R"([{"type":"text","text":"ok"}])");
    CHECK(normalize(log) ==
          lines({R"({"role":"user","content":[{"type":"text","text":"go\n"},{"type":"text","text":"next"}]})",
                 R"({"role":"assistant","content":[{"type":"text","text":"ok"}]})"}));
  }
  SECTION("a result whose call is gone is dropped") {
    std::string log = cc_user("r1", "", k_result_a) + cc_user("u1", "r1", R"("go on")");
    CHECK(normalize(log) == lines({R"({"role":"user","content":[{"type":"text","text":"go on"}]})"}));
  }
  SECTION("a result written late is moved next to its call, ahead of the text") {
    std::string log = cc_user("u1", "", R"("go")") + cc_assistant("a1", "u1", "msg_1", k_use_a) +
                      cc_user("u2", "a1", R"([{"type":"text","text":"[Request interrupted by user]"}])") +
                      cc_assistant("a2", "u2", "msg_2", R"([{"type":"text","text":"stopped"}])") +
                      cc_user("r1", "a2", k_result_a);
    CHECK(normalize(log) ==
          lines({R"({"role":"user","content":"go"})",
                 R"({"role":"assistant","content":[{"type":"tool_use","id":"toolu_a","name":"Bash","input":{"command":"ls"}}]})",
                 R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_a","content":"a.txt"},{"type":"text","text":"[Request interrupted by user]"}]})",
                 R"({"role":"assistant","content":[{"type":"text","text":"stopped"}]})",
                 R"({"role":"user","content":"[no content]"})"}));
  }
  SECTION("a repeated tool_use id is sent once") {
    std::string log = cc_user("u1", "", R"("go")") + cc_assistant("a1", "u1", "msg_1", k_use_a) +
                      cc_user("r1", "a1", k_result_a) + cc_assistant("a2", "r1", "msg_2", k_use_a) +
                      cc_user("r2", "a2", k_result_a);
    std::string out = normalize(log);
    CHECK(out.find(R"("id":"toolu_a")") == out.rfind(R"("id":"toolu_a")"));
  }
}

TEST_CASE("empty content is never sent", "[normalize_for_api]") {
  std::string log =
      cc_user("u1", "", R"("")") +
      cc_assistant("a1", "u1", "msg_1", R"([{"type":"text","text":"\n\n"}])") +
      cc_assistant("a2", "a1", "msg_1", R"([{"type":"text","text":"answer"}])") +
      cc_user("u2", "a2", R"([{"type":"text","text":"  "},{"type":"text","text":"more"}])") +
      cc_assistant("a3", "u2", "msg_3", R"([{"type":"text","text":" \n"}])") +
      cc_user("u3", "a3", R"("last")");
  CHECK(normalize(log) ==
        lines({R"({"role":"user","content":"[no content]"})",
               R"({"role":"assistant","content":[{"type":"text","text":"answer"}]})",
               R"({"role":"user","content":[{"type":"text","text":"more\n"},{"type":"text","text":"last"}]})"}));
}

TEST_CASE("a final assistant message loses trailing whitespace and trailing thinking",
          "[normalize_for_api]") {
  std::string log =
      cc_user("u1", "", R"("hi")") +
      cc_assistant("a1", "u1", "msg_1", R"([{"type":"text","text":"hello \n"}])") +
      cc_assistant("a2", "a1", "msg_1",
                   R"([{"type":"thinking","thinking":"more?","signature":"sig"}])");
  CHECK(normalize(log) == lines({R"({"role":"user","content":"hi"})",
                                 R"({"role":"assistant","content":[{"type":"text","text":"hello"}]})"}));
}

TEST_CASE("thinking blocks are sent where the API requires them", "[normalize_for_api]") {
  std::string log =
      cc_user("u1", "", R"("one")") +
      cc_assistant("a1", "u1", "msg_1",
                   R"([{"type":"thinking","thinking":"old","signature":"s1"},{"type":"text","text":"1"}])") +
      cc_user("u2", "a1", R"("two")") +
      cc_assistant("a2", "u2", "msg_2",
                   R"([{"type":"thinking","thinking":"now","signature":"s2"},{"type":"thinking","thinking":"unsigned"},{"type":"tool_use","id":"toolu_a","name":"Bash","input":{}}])") +
      cc_user("r1", "a2", k_result_a);
  SECTION("--current-turn-thinking: those of the current turn, signed") {
    NormalizeOptions options;
    options.thinking = NormalizeOptions::Thinking::current_turn;
    std::string out = normalize(log, options);
    CHECK(out.find(R"("thinking":"old")") == std::string::npos);
    CHECK(out.find(R"({"type":"thinking","thinking":"now","signature":"s2"})") != std::string::npos);
    CHECK(out.find("unsigned") == std::string::npos);
  }
  SECTION("by default, every signed one, as Claude Code resends them") {
    std::string out = normalize(log);
    CHECK(out.find(R"("thinking":"old")") != std::string::npos);
    CHECK(out.find("unsigned") == std::string::npos);
  }
  SECTION("--drop-thinking drops them all") {
    NormalizeOptions options;
    options.thinking = NormalizeOptions::Thinking::drop;
    CHECK(normalize(log, options).find("thinking") == std::string::npos);
  }
}

TEST_CASE("thinking another model signed is not sent, as Claude Code strips it",
          "[normalize_for_api]") {
  // A session that switched model: Claude Code resumes it with the last response's
  // model and sends only that model's thinking (a signature is its model's own).
  auto by = [](std::string line, std::string_view model) {
    line.replace(line.find("claude-test"), std::string_view("claude-test").size(), model);
    return line;
  };
  std::string log =
      cc_user("u1", "", R"("one")") +
      by(cc_assistant("a1", "u1", "msg_1",
                      R"([{"type":"thinking","thinking":"old","signature":"s1"},{"type":"text","text":"1"}])"),
         "claude-old") +
      cc_user("u2", "a1", R"("two")") +
      cc_assistant("a2", "u2", "msg_2",
                   R"([{"type":"thinking","thinking":"new","signature":"s2"},{"type":"text","text":"2"}])");
  SECTION("by default the model is the last response's") {
    std::string out = normalize(log);
    CHECK(out.find(R"("thinking":"old")") == std::string::npos);
    CHECK(out.find(R"("thinking":"new")") != std::string::npos);
    CHECK(out.find(R"({"role":"assistant","content":[{"type":"text","text":"1"}]})") !=
          std::string::npos);
  }
  SECTION("--model names it") {
    NormalizeOptions options;
    options.model = "claude-old";
    std::string out = normalize(log, options);
    CHECK(out.find(R"("thinking":"old")") != std::string::npos);
    CHECK(out.find(R"("thinking":"new")") == std::string::npos);
  }
  SECTION("an API error message names no model") {
    std::string with_error =
        log + cc_user("u3", "a2", R"("three")") +
        by(cc_assistant("a3", "u3", "msg_3", R"([{"type":"text","text":"API Error"}])"),
           "<synthetic>");
    CHECK(normalize(with_error).find(R"("thinking":"new")") != std::string::npos);
  }
}

TEST_CASE("a response that is only thinking is dropped", "[normalize_for_api]") {
  std::string log = cc_user("u1", "", R"("one")") +
                    cc_assistant("a1", "u1", "msg_1",
                                 R"([{"type":"thinking","thinking":"cut off","signature":"s"}])") +
                    cc_user("u2", "a1", R"("again")");
  CHECK(normalize(log) ==
        lines({R"({"role":"user","content":[{"type":"text","text":"one\n"},{"type":"text","text":"again"}]})"}));
}

TEST_CASE("Claude Code's members are kept as Claude Code sends them",
          "[normalize_for_api]") {
  std::string log =
      cc_user("u1", "", R"("q")") +
      cc_assistant("a1", "u1", "msg_1",
                   R"([{"type":"text","text":"see","citations":null},{"type":"tool_use","id":"toolu_a","name":"Bash","input":{},"caller":{"type":"direct"}}])") +
      cc_user("r1", "a1", k_result_a);
  std::string out = normalize(log);
  // Claude Code 2.1.330 sends a tool_use's recorded `caller`.
  CHECK(out.find(R"("caller":{"type":"direct"})") != std::string::npos);
  CHECK(out.find(R"({"type":"text","text":"see","citations":null})") != std::string::npos);
}

TEST_CASE("cache_control markers stay unless stripped", "[normalize_for_api]") {
  std::string in =
      R"({"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]})" "\n";
  CHECK(normalize(in, {}, Format::anthropic).find("cache_control") != std::string::npos);
  NormalizeOptions options;
  options.strip_cache_control = true;
  CHECK(normalize(in, options, Format::anthropic) ==
        lines({R"({"role":"user","content":[{"type":"text","text":"hi"}]})"}));
}

TEST_CASE("anthropic lines that need nothing pass through byte for byte", "[normalize_for_api]") {
  std::string in = "{\"role\": \"user\", \"content\": \"spaced\"}\n"
                   "{\"role\":\"assistant\",\"content\":\"ok\",\"id\":\"msg_1\"}\n";
  CHECK(normalize(in, {}, Format::anthropic) == lines({R"({"role": "user", "content": "spaced"})",
                                     R"({"role":"assistant","content":"ok"})"}));
}

TEST_CASE("OpenAI chat becomes Anthropic messages", "[normalize_for_api]") {
  std::string in = lines(
      {R"({"role":"developer","content":"be brief"})", R"({"role":"user","content":"weather?"})",
       R"({"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}}]})",
       R"({"role":"tool","tool_call_id":"call_1","content":"rain"})",
       R"({"role":"assistant","content":"Rain."})"});
  CHECK(normalize(in) ==
        lines({R"({"role":"system","content":"be brief"})", R"({"role":"user","content":"weather?"})",
               R"({"role":"assistant","content":[{"type":"tool_use","id":"call_1","name":"get_weather","input":{"city":"Oslo"}}]})",
               R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":"rain"}]})",
               R"({"role":"assistant","content":"Rain."})"}));
}

TEST_CASE("a tool input that is not an object is sent as an empty object, with a warning",
          "[normalize_for_api]") {
  std::string in = lines(
      {R"({"role":"user","content":"go"})",
       R"({"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"not json"}}]})",
       R"({"role":"tool","tool_call_id":"call_1","content":"ok"})"});
  CollectingDiagnostics diagnostics;
  NormalizeOptions options;
  options.diagnostics = &diagnostics;
  std::string out = normalize(in, options);
  CHECK(out.find(R"("input":{})") != std::string::npos);
  REQUIRE(diagnostics.lines.size() == 1);
  CHECK(diagnostics.lines[0] == "in.jsonl:2: tool_use call_1: its input is not a JSON object; sent as {}");
}

TEST_CASE("messages in roles the API lacks are dropped with a warning", "[normalize_for_api]") {
  std::string in = lines({R"({"role":"user","content":"hi"})",
                          R"({"role":"function","name":"f","content":"42"})"});
  CollectingDiagnostics diagnostics;
  NormalizeOptions options;
  options.diagnostics = &diagnostics;
  CHECK(normalize(in, options) == lines({R"({"role":"user","content":"hi"})"}));
  CHECK(diagnostics.lines ==
        std::vector<std::string>{
            "in.jsonl:2: dropped a message with role 'function': the Messages API has no such role"});
}

TEST_CASE("a request body is written for each conversation", "[normalize_for_api]") {
  std::string in = lines({R"({"role":"system","content":"be brief"})",
                          R"({"role":"user","content":"hi"})"});
  auto run = [&](RequestOptions request) {
    StringOutput out;
    LossReport loss;
    auto sink = request_sink(std::move(request))(out, loss);
    for (auto& conversation : normalize_for_api(read_messages(in), {})) {
      sink->put_conversation(std::move(conversation));
    }
    sink->end_input();
    return std::string(out.str());
  };
  RequestOptions request;
  request.model = "claude-x";
  CHECK(run(request) ==
        R"({"model":"claude-x","max_tokens":4096,"system":"be brief","messages":[{"role":"user","content":"hi"}]})" "\n");
  request.system = "other";
  request.max_tokens = 10;
  CHECK(run(request) ==
        R"({"model":"claude-x","max_tokens":10,"system":"other","messages":[{"role":"user","content":"hi"}]})" "\n");
  CHECK_THROWS_WITH(run(RequestOptions{}),
                    "the conversation records no model to put in the request; name one with --model");
}

TEST_CASE("a request the API accepted comes back from --request --keep-thinking --prefill as it was",
          "[normalize_for_api][corpus]") {
  std::string root = std::string(CONVO_CORPUS_DIR) + "/anthropic-api";
  if (!std::filesystem::is_directory(root)) {
    WARN("skipped: no corpus at " << root);
    return;
  }
  std::size_t same = 0;
  std::size_t requests = 0;
  for (const std::string& path : accepted_requests(root)) {
    ++requests;
    INFO(path);
    std::string text = read_file(path);
    NormalizeOptions options;
    options.thinking = NormalizeOptions::Thinking::keep;
    StringOutput out;
    LossReport loss;
    RequestOptions request;
    request.prefill = true;
    request.thinking_without_parameter = true;
    auto sink = request_sink(request)(out, loss);
    for (auto& conversation : normalize_for_api(read_messages(text), options)) {
      sink->put_conversation(std::move(conversation));
    }
    sink->end_input();
    JsonDoc in;
    JsonDoc back;
    REQUIRE_FALSE(parse_json(text, in));
    REQUIRE_FALSE(parse_json(out.str(), back));
    if (in == back) {
      ++same;
      continue;
    }
    // The only change allowed: messages of one role in a row, joined.
    const JsonValue& before = *find_member(in, "messages");
    const JsonValue& after = *find_member(back, "messages");
    CHECK(after.Size() < before.Size());
    for (rapidjson::SizeType i = 1; i < after.Size(); ++i) {
      CHECK(string_member(after[i], "role") != string_member(after[i - 1], "role"));
    }
  }
  CHECK(requests > 100);
  CHECK(same + 10 > requests);
}

TEST_CASE("slim_for_api drops the parsed record of a plain turn only", "[normalize]") {
  // A plain {"role","content"} line: everything it says is in the Message, so its
  // parsed record (about 300 bytes for a short line) is not held with it.
  std::vector<Message> plain = read_messages("{\"role\":\"user\",\"content\":\"hi\"}\n");
  REQUIRE(plain.size() == 1);
  REQUIRE(plain[0].source != nullptr);
  slim_for_api(plain[0]);
  CHECK(plain[0].source == nullptr);
  CHECK(plain[0].json == nullptr);
  CHECK(plain[0].content.text == "hi");
  // A member convo does not model stays readable, so that a writer counts its loss.
  std::vector<Message> extra =
      read_messages("{\"role\":\"user\",\"content\":\"hi\",\"refusal\":\"no\"}\n");
  REQUIRE(extra.size() == 1);
  slim_for_api(extra[0]);
  CHECK(extra[0].source != nullptr);
  CHECK(extra[0].json != nullptr);
  // Blocks point into it.
  std::vector<Message> blocks =
      read_messages(lines({R"({"role":"assistant","content":)" + std::string(k_use_a) + "}"}));
  REQUIRE(blocks.size() == 1);
  slim_for_api(blocks[0]);
  CHECK(blocks[0].source != nullptr);
}

TEST_CASE("slim_for_api holds a Claude Code turn as its bytes, and decode_again gives it back",
          "[normalize]") {
  const std::string line =
      cc_user("u2", "u1", R"([{"tool_use_id":"toolu_a","type":"tool_result","content":"a.txt"}])");
  std::vector<Message> records = read_messages(line);
  REQUIRE(records.size() == 1);
  Message original = records[0];
  Message held = std::move(records[0]);
  slim_for_api(held, /*keep_bytes=*/false, /*as_bytes=*/true);
  CHECK(held_as_bytes(held));
  CHECK(held.source == nullptr);
  CHECK(held.raw.str() + "\n" == line);
  // What the session tree reads stays: the links and that it carries a result.
  CHECK(held.meta->uuid == "u2");
  CHECK(held.meta->parent_uuid == "u1");
  CHECK(held.has_tool_results());
  CHECK(held.content.blocks.at(0).id.empty());

  Message again = decode_again(held);
  CHECK_FALSE(held_as_bytes(again));
  std::vector<Message> a{std::move(original)};
  std::vector<Message> b{std::move(again)};
  CHECK(encode_all(b, Format::anthropic) == encode_all(a, Format::anthropic));

  // Without `as_bytes`, or bytes that are not UTF-8 (check names the bad byte from
  // the content), a record stays whole.
  std::vector<Message> whole = read_messages(line);
  slim_for_api(whole[0]);
  CHECK_FALSE(held_as_bytes(whole[0]));
  std::vector<Message> bad = read_messages(cc_user("u3", "", "\"caf\xe9\""));
  REQUIRE(bad.size() == 1);
  slim_for_api(bad[0], false, true);
  CHECK_FALSE(held_as_bytes(bad[0]));
  CHECK(bad[0].content.text == "caf\xe9");
}

TEST_CASE("normalize-for-api writes the same with records held as their bytes", "[normalize]") {
  // Every Claude Code session of the corpus, and a file of two sessions where only
  // the second is written: records the view does not use are never decoded again.
  std::vector<std::string> texts;
  for (const CorpusFile& file : corpus_files()) {
    if (file.format == Format::claude_code) {
      texts.push_back(file.text);
    }
  }
  const std::string two_sessions =
      cc_user("a1", "", "\"first\"") + cc_assistant("a2", "a1", "msg_a", k_use_a) +
      cc_user("b1", "", "\"second\"") + cc_assistant("b2", "b1", "msg_b", k_use_b) +
      cc_user("b3", "b2", k_result_b);
  CHECK(normalize(two_sessions).find("second") != std::string::npos);
  CHECK(normalize(two_sessions).find("first") == std::string::npos);
  texts.push_back(two_sessions);
  for (const std::string& text : texts) {
    for (bool sidechains : {false, true}) {
      NormalizeOptions options;
      options.sidechains = sidechains;
      auto run = [&](bool as_bytes) {
        return run_stage_on(text, [&] {
                 return make_api_view_stage(
                     [options](std::vector<Message> records) {
                       return normalize_for_api(std::move(records), options);
                     },
                     GroupBy::file, /*keep_bytes=*/true, as_bytes);
               }, format_sink(Format::anthropic), ReadOptions{std::nullopt, OnError::keep}).out;
      };
      std::string held = run(true);
      CHECK(held == run(false));
      if (&text == &texts.back()) {
        CHECK(held == normalize(text, options));
      }
    }
  }
}
