#include <catch2/catch.hpp>

#include "test_util.h"
#include "tool_links.h"

using namespace convo;
using namespace convo::test;

namespace {

// Units as "begin-end" strings, for short assertions.
std::vector<std::string> spans(const std::vector<AtomicUnit>& units) {
  std::vector<std::string> out;
  for (const AtomicUnit& unit : units) {
    out.push_back(std::to_string(unit.begin) + "-" + std::to_string(unit.end));
  }
  return out;
}

}  // namespace

TEST_CASE("tool results link to the latest call of their id", "[tool_links]") {
  auto messages = read_messages(
      R"({"role":"user","content":"q"})" "\n"
      R"({"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"b","type":"function","function":{"name":"f","arguments":"{}"}}]})" "\n"
      R"({"role":"tool","tool_call_id":"a","content":"1"})" "\n"
      R"({"role":"tool","tool_call_id":"b","content":"2"})" "\n"
      R"({"role":"tool","tool_call_id":"zzz","content":"orphan"})" "\n"
      R"({"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]})" "\n"
      R"({"role":"tool","tool_call_id":"a","content":"reused id"})" "\n"
      R"({"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]})" "\n");
  ToolLinks links = link_tools(messages);
  REQUIRE(links.links.size() == 3);
  CHECK(links.links[0].call == 1);
  CHECK(links.links[0].result == 2);
  CHECK(links.links[1].result == 3);
  CHECK(links.links[2].call == 5);
  CHECK(links.links[2].result == 6);
  CHECK(links.links[2].id == "a");
  CHECK(links.orphan_results == std::vector<std::size_t>{4});
  CHECK(links.unanswered_calls == std::vector<std::size_t>{7});
  CHECK(spans(atomic_units(messages)) ==
        std::vector<std::string>{"0-1", "1-4", "4-5", "5-7", "7-8"});
}

TEST_CASE("a split Claude Code response and its interleaved results are one unit",
          "[tool_links]") {
  // Records of response r1 (thinking, tool_use t1, tool_use t2) interleaved with a
  // progress record and the results, then bookkeeping that rides along.
  auto messages = read_messages(
      R"({"type":"file-history-snapshot","messageId":"u","snapshot":{}})" "\n"
      R"({"type":"user","message":{"role":"user","content":"go"},"uuid":"u","sessionId":"s"})" "\n"
      R"({"type":"attachment","attachment":{"type":"skill_listing"},"uuid":"x","sessionId":"s"})" "\n"
      R"({"type":"assistant","message":{"id":"r1","role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"s"}]},"uuid":"a1","sessionId":"s"})" "\n"
      R"({"type":"assistant","message":{"id":"r1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]},"uuid":"a2","sessionId":"s"})" "\n"
      R"({"type":"progress","data":{"type":"bash_progress"},"parentToolUseID":"t1","uuid":"p","sessionId":"s"})" "\n"
      R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]},"uuid":"r","sessionId":"s"})" "\n"
      R"({"type":"assistant","message":{"id":"r1","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{}}]},"uuid":"a3","sessionId":"s"})" "\n"
      R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"ok"}]},"uuid":"r2","sessionId":"s"})" "\n"
      R"({"type":"system","subtype":"turn_duration","content":"","uuid":"e","sessionId":"s"})" "\n"
      R"({"type":"assistant","message":{"id":"r2","role":"assistant","content":[{"type":"text","text":"done"}]},"uuid":"a4","sessionId":"s"})" "\n");
  REQUIRE(messages.size() == 11);
  std::vector<std::size_t> starts = response_starts(messages);
  CHECK(starts[3] == 3);
  CHECK(starts[4] == 3);
  CHECK(starts[7] == 3);
  CHECK(starts[10] == 10);
  std::vector<AtomicUnit> units = atomic_units(messages);
  // The snapshot rides with the first turn, the attachment with the prompt, the
  // turn_duration event with the response before it.
  CHECK(spans(units) == std::vector<std::string>{"0-3", "3-10", "10-11"});
  CHECK(units[1].first_turn == 3);
  CHECK(units[1].last_turn == 8);
  CHECK(units[1].turns == 5);
}

TEST_CASE("a conversation without turns is one unit", "[tool_links]") {
  auto messages = read_messages(
      R"({"type":"summary","summary":"t","leafUuid":"x"})" "\n"
      R"({"type":"file-history-snapshot","messageId":"m","snapshot":{}})" "\n");
  std::vector<AtomicUnit> units = atomic_units(messages);
  CHECK(spans(units) == std::vector<std::string>{"0-2"});
  CHECK(units[0].turns == 0);
  CHECK(atomic_units({}).empty());
}

// What normalize-for-api and check add: same_response and block-level duplicates.

TEST_CASE("records of one response share a message id", "[tool_links]") {
  auto records = read_messages(
      cc_user("u1", "", R"("go")") +
      cc_assistant("a1", "u1", "msg_1", R"([{"type":"text","text":"x"}])") +
      cc_line("progress", "p1", "a1", R"("data":{})") +
      cc_assistant("a2", "p1", "msg_2", R"([{"type":"text","text":"y"}])") +
      cc_assistant("a3", "a2", "msg_1", R"([{"type":"text","text":"z"}])"));
  CHECK(same_response(records[1], records[4]));
  CHECK_FALSE(same_response(records[1], records[3]));
  CHECK_FALSE(same_response(records[0], records[0]));
  CHECK(response_starts(records) == std::vector<std::size_t>{0, 1, 2, 3, 1});
  // Built one record at a time, the units tell the same response starts.
  AtomicUnitBuilder builder;
  std::vector<std::size_t> starts;
  for (const Message& record : records) {
    starts.push_back(builder.add(record));
  }
  CHECK(starts == response_starts(records));
  CHECK(builder.size() == 5);
  CHECK(spans(builder.finish()) == spans(atomic_units(records)));
  CHECK(builder.size() == 0);  // emptied: it may build the units of another
  CHECK(builder.finish().empty());
}

TEST_CASE("a repeated tool_use id is found by block", "[tool_links]") {
  auto records = read_messages(
      cc_assistant("a1", "", "msg_1",
                   R"([{"type":"text","text":"t"},{"type":"tool_use","id":"t1","name":"A","input":{}}])") +
      cc_user("r1", "a1", R"([{"type":"tool_result","tool_use_id":"t1","content":"1"}])") +
      cc_assistant("a2", "r1", "msg_2",
                   R"([{"type":"tool_use","id":"t2","name":"A","input":{}},{"type":"tool_use","id":"t1","name":"A","input":{}}])"));
  auto duplicates = duplicate_tool_uses(records);
  REQUIRE(duplicates.size() == 1);
  CHECK(duplicates[0].message == 2);
  CHECK(duplicates[0].block == 1);
}
