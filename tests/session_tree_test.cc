#include <catch2/catch.hpp>

#include "session_tree.h"
#include "test_util.h"

using namespace convo;
using namespace convo::test;

TEST_CASE("the main thread follows parentUuid from the last record", "[session_tree]") {
  auto records = read_messages(
      R"({"type":"summary","summary":"t","leafUuid":"x"})" "\n" + cc_user("u1", "", R"("a")") +
      cc_user("u2", "u1", R"("dead end")") + cc_user("u3", "u1", R"("b")") +
      cc_line("progress", "p1", "u3", R"("data":{})"));
  SessionTree tree(records);
  CHECK(tree.has_tree());
  CHECK(tree.main_thread() == std::vector<std::size_t>{1, 3, 4});
  CHECK(tree.sidechain_threads().empty());
}

TEST_CASE("records with no uuids are one thread in file order", "[session_tree]") {
  auto records = read_messages("{\"role\":\"user\",\"content\":\"a\"}\n"
                               "{\"role\":\"assistant\",\"content\":\"b\"}\n");
  SessionTree tree(records);
  CHECK_FALSE(tree.has_tree());
  CHECK(tree.main_thread() == std::vector<std::size_t>{0, 1});
}

TEST_CASE("a reused uuid is reported, and the later record is the one found", "[session_tree]") {
  auto records = read_messages(cc_user("u1", "", R"("a")") + cc_user("u1", "", R"("b")"));
  SessionTree tree(records);
  CHECK(tree.duplicates() == std::vector<std::pair<std::size_t, std::size_t>>{{1, 0}});
  CHECK(tree.find("u1") == std::optional<std::size_t>{1});
  CHECK_FALSE(tree.find("zz"));
}

TEST_CASE("each subagent of a 1.0 session file is a thread of its own", "[session_tree]") {
  auto sidechain = [](std::string_view uuid, std::string_view parent) {
    return cc_line("user", uuid, parent,
                   R"("isSidechain":true,"message":{"role":"user","content":"s"})");
  };
  auto records = read_messages(cc_user("m1", "", R"("main")") + sidechain("a1", "") +
                               sidechain("b1", "") + sidechain("a2", "a1") +
                               cc_user("m2", "m1", R"("main again")") + sidechain("b2", "b1"));
  SessionTree tree(records);
  CHECK(tree.main_thread() == std::vector<std::size_t>{0, 4});
  CHECK(tree.sidechain_threads() == std::vector<std::vector<std::size_t>>{{1, 3}, {2, 5}});
}
