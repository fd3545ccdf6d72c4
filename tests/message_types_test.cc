#include <catch2/catch.hpp>

#include "message_types.h"
#include "test_util.h"

using namespace convo;
using namespace convo::test;

TEST_CASE("LangChain type names match roles, with OpenAI aliases", "[types]") {
  auto messages = read_messages(
      R"({"role":"system","content":"s"})" "\n"
      R"({"role":"developer","content":"d"})" "\n"
      R"({"role":"user","content":"u"})" "\n"
      R"({"role":"assistant","content":"a"})" "\n"
      R"({"role":"tool","tool_call_id":"c","content":"t"})" "\n");
  REQUIRE(messages.size() == 5);
  CHECK(has_type(messages[0], "system"));
  CHECK(has_type(messages[1], "system"));
  CHECK(has_type(messages[1], "developer"));
  CHECK_FALSE(has_type(messages[0], "developer"));
  CHECK(has_type(messages[2], "human"));
  CHECK(has_type(messages[2], "user"));
  CHECK(has_type(messages[3], "ai"));
  CHECK(has_type(messages[3], "assistant"));
  CHECK(has_type(messages[4], "tool"));
  CHECK_FALSE(has_type(messages[4], "human"));
}

TEST_CASE("a Claude Code user record of tool results is of type tool", "[types]") {
  auto messages = read_messages(
      R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]}})" "\n"
      R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x"},{"type":"text","text":"and"}]},"isMeta":true})" "\n"
      R"({"type":"progress","data":{"type":"hook_progress"},"isSidechain":true})" "\n"
      R"({"type":"file-history-snapshot","messageId":"m","snapshot":{}})" "\n"
      R"({"type":"system","subtype":"turn_duration","content":""})" "\n");
  REQUIRE(messages.size() == 5);
  CHECK(has_type(messages[0], "tool"));
  CHECK_FALSE(has_type(messages[0], "human"));
  CHECK(has_type(messages[1], "human"));
  CHECK(has_type(messages[1], "meta"));
  CHECK(has_type(messages[2], "progress"));
  CHECK(has_type(messages[2], "sidechain"));
  CHECK(has_type(messages[3], "bookkeeping"));
  CHECK(has_type(messages[3], "file-history-snapshot"));
  CHECK(has_type(messages[4], "event"));
  CHECK_FALSE(has_type(messages[4], "system"));
}

TEST_CASE("a type list parses with hints for typos", "[types]") {
  TypeSet set = TypeSet::parse("human, ai,progress");
  CHECK(set.names() == std::vector<std::string>{"human", "ai", "progress"});
  CHECK(TypeSet::parse("").empty());
  try {
    TypeSet::parse("human,progres");
    FAIL("no error");
  } catch (const Error& error) {
    CHECK(error.message() == "unknown message type 'progres' (did you mean 'progress'?)");
    CHECK(error.code() == ExitCode::usage);
  }
}

TEST_CASE("turn names every conversation message, generic a custom role", "[types]") {
  auto messages = read_messages(
      R"({"type":"user","message":{"role":"user","content":"hi"}})" "\n"
      R"({"type":"progress","data":{"type":"hook_progress"}})" "\n");
  REQUIRE(messages.size() == 2);
  CHECK(has_type(messages[0], "turn"));
  CHECK_FALSE(has_type(messages[1], "turn"));
  auto chat = read_messages(R"({"role":"narrator","content":"n"})");
  CHECK(has_type(chat.at(0), "generic"));
  CHECK(has_type(chat.at(0), "chat"));
  CHECK(TypeSet::parse("turn,generic").matches(chat.at(0)));
}
