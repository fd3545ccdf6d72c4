// The parts of lib/tool_links that normalize-for-api and check add: block-level
// duplicates and same_response. (link_tools, response_starts and atomic_units are
// trim's and are tested with it.)
#include <catch2/catch.hpp>

#include "test_util.h"
#include "tool_links.h"

using namespace convo;
using namespace convo::test;

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
