#include <catch2/catch.hpp>

#include "test_util.h"
#include "tool_links.h"

using namespace convo;
using namespace convo::test;

TEST_CASE("the pieces of one response are grouped by message id, other records left out",
          "[tool_links]") {
  auto records = read_messages(
      cc_user("u1", "", R"("go")") +
      cc_assistant("a1", "u1", "msg_1", R"([{"type":"text","text":"x"}])") +
      cc_line("progress", "p1", "a1", R"("data":{"type":"bash_progress"})") +
      cc_assistant("a2", "p1", "msg_2", R"([{"type":"text","text":"y"}])") +
      cc_assistant("a3", "a2", "msg_1", R"([{"type":"text","text":"z"}])"));
  CHECK(response_groups(records) == std::vector<std::vector<std::size_t>>{{1, 4}, {3}});
  CHECK(same_response(records[1], records[4]));
  CHECK_FALSE(same_response(records[1], records[3]));
  CHECK_FALSE(same_response(records[0], records[0]));
}

TEST_CASE("tool calls are linked to the results that answer them", "[tool_links]") {
  auto records = read_messages(
      cc_assistant("a1", "", "msg_1",
                   R"([{"type":"text","text":"t"},{"type":"tool_use","id":"t1","name":"A","input":{}}])") +
      cc_user("r0", "a1", R"([{"type":"tool_result","tool_use_id":"nobody","content":"?"}])") +
      cc_user("r1", "r0",
              R"([{"type":"tool_result","tool_use_id":"t1","content":"1"},{"type":"tool_result","tool_use_id":"t1","content":"again"}])") +
      cc_assistant("a2", "r1", "msg_2", R"([{"type":"tool_use","id":"t1","name":"A","input":{}}])"));
  ToolLinks links(records);
  const ToolLink* link = links.find("t1");
  REQUIRE(link != nullptr);
  CHECK(link->use.message == 0);
  CHECK(link->use.block == 1);
  REQUIRE(link->results.size() == 2);
  CHECK(link->results[0].message == 2);
  CHECK(link->results[1].block == 1);
  CHECK(links.find("nobody") == nullptr);
  REQUIRE(links.orphan_results().size() == 1);
  CHECK(links.orphan_results()[0].message == 1);
  REQUIRE(links.duplicate_uses().size() == 1);
  CHECK(links.duplicate_uses()[0].message == 3);
}
