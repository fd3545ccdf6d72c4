// convo sessions: summaries, first prompts, --grep and --touching.
#include <catch2/catch.hpp>

#include "stages/sessions.h"
#include "test_util.h"

using namespace convo;

namespace {

std::vector<SessionSummary> sessions_of(const std::string& text, SessionsOptions options = {}) {
  SessionList list(std::move(options));
  for (Message& message : test::read_messages(text)) {
    list.add(message);
  }
  return list.sessions();
}

const char* k_session =
    R"({"type":"user","sessionId":"s1","cwd":"/p","gitBranch":"main","uuid":"u0","timestamp":"2025-06-01T10:00:00Z","message":{"role":"user","content":"<command-name>/clear</command-name>"}}
{"type":"user","sessionId":"s1","cwd":"/p","gitBranch":"main","uuid":"u1","timestamp":"2025-06-01T10:00:01Z","message":{"role":"user","content":"Fix   the\nbug"}}
{"type":"assistant","sessionId":"s1","cwd":"/p","gitBranch":"dev","uuid":"a1","requestId":"r","timestamp":"2025-06-01T10:02:01Z","message":{"id":"m","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"t1","name":"Edit","input":{"file_path":"/p/src/main.cc"}}],"usage":{"input_tokens":1,"output_tokens":5}}}
{"type":"assistant","sessionId":"s1","cwd":"/p","gitBranch":"dev","uuid":"a2","requestId":"r","timestamp":"2025-06-01T10:02:02Z","message":{"id":"m","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"cat 'docs/notes.md' | wc"}}],"usage":{"input_tokens":1,"output_tokens":9}}}
)";

}  // namespace

TEST_CASE("sessions summarizes a Claude Code session", "[sessions]") {
  auto sessions = sessions_of(k_session);
  REQUIRE(sessions.size() == 1);
  const SessionSummary& s = sessions[0];
  CHECK(s.id == "s1");
  CHECK(s.messages == 4);
  CHECK(s.tokens == 10);  // one response, its largest count
  CHECK(s.model == "claude-x");
  CHECK(s.cwd == "/p");
  CHECK(s.git_branch == "dev");
  CHECK(s.first_prompt == "Fix the bug");
  CHECK(*s.end - *s.start == 122000);
}

TEST_CASE("sessions --touching matches tool paths and Bash words", "[sessions]") {
  CHECK(sessions_of(k_session, {"", "src/main.cc"}).size() == 1);
  CHECK(sessions_of(k_session, {"", "/p/src"}).size() == 1);
  CHECK(sessions_of(k_session, {"", "docs/notes.md"}).size() == 1);
  CHECK(sessions_of(k_session, {"", "main.c"}).empty());
  CHECK(sessions_of(k_session, {"", "rc/main.cc"}).empty());
}

TEST_CASE("sessions --grep finds text and tool inputs", "[sessions]") {
  CHECK(sessions_of(k_session, {"the\nbug", ""}).size() == 1);
  CHECK(sessions_of(k_session, {"wc", ""}).size() == 1);
  CHECK(sessions_of(k_session, {"nowhere", ""}).empty());
}

TEST_CASE("sessions cuts a first prompt to one line", "[sessions]") {
  CHECK(one_line("  a\n\n b\tc  ") == "a b c");
  std::string cut = one_line(std::string(300, 'x'));
  CHECK(cut.size() == 203);
}

TEST_CASE("sessions takes a slash command as the first prompt, but /clear", "[sessions]") {
  std::string text =
      R"({"type":"user","sessionId":"s","uuid":"u0","message":{"role":"user","content":"<command-name>/clear</command-name>"}}
{"type":"user","sessionId":"s","uuid":"u1","message":{"role":"user","content":"<command-message>init is analyzing</command-message>\n<command-name>/init</command-name>\n<command-args>fast</command-args>"}}
{"type":"user","sessionId":"s","uuid":"u2","isMeta":true,"message":{"role":"user","content":"Please analyze this codebase"}}
)";
  auto sessions = sessions_of(text);
  REQUIRE(sessions.size() == 1);
  CHECK(sessions[0].first_prompt == "/init fast");
}

TEST_CASE("sessions of a subagent's file alone take its prompt and directory", "[sessions]") {
  std::string text =
      R"({"type":"user","sessionId":"s","uuid":"u0","isSidechain":true,"cwd":"/w","gitBranch":"b","message":{"role":"user","content":"Search the callers"}}
)";
  auto sessions = sessions_of(text);
  REQUIRE(sessions.size() == 1);
  CHECK(sessions[0].first_prompt == "Search the callers");
  CHECK(sessions[0].cwd == "/w");
  CHECK(sessions[0].git_branch == "b");
}
