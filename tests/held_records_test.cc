#include <catch2/catch.hpp>

#include "conversation.h"
#include "held_records.h"
#include "session_tree.h"
#include "stages/normalize_for_api.h"
#include "test_util.h"

using namespace convo;
using namespace convo::test;

namespace {

// `text`'s records slimmed as the API view stage slims them with --group-by file,
// then held.
void hold_all(HeldRecords& held, const std::string& text) {
  for (Message& record : read_messages(text, ReadOptions{std::nullopt, OnError::keep})) {
    slim_for_api(record, /*keep_bytes=*/false, /*as_bytes=*/true);
    held.hold(std::move(record));
  }
}

std::vector<std::string> uuids(const std::vector<Message>& records) {
  std::vector<std::string> out;
  for (const Message& record : records) {
    out.emplace_back(record.meta->uuid);
  }
  return out;
}

// Two sessions in one file: only the second is the main thread.
const std::string k_two_sessions =
    cc_user("a1", "", R"("first")") +
    cc_line("progress", "a2", "a1", R"("data":{})") +
    cc_assistant("a3", "a2", "msg_a", R"([{"type":"text","text":"one"}])") +
    cc_user("a4", "gone", R"("dangling")") +
    cc_user("b1", "", R"("second")") +
    cc_assistant("b2", "b1", "msg_b", R"([{"type":"text","text":"two"}])");

}  // namespace

TEST_CASE("a string table holds each string once, and its views stay put", "[held_records]") {
  StringTable table;
  CHECK(table.intern("") == StringTable::k_none);
  CHECK(table.text(StringTable::k_none).empty());
  std::uint32_t a = table.intern("a");
  CHECK(table.intern("b") == a + 1);
  CHECK(table.intern("a") == a);
  std::string_view view = table.text(a);
  // Past a chunk (1 MB) and many times the slots it started with.
  std::string big(3 << 20, 'x');
  std::uint32_t big_id = table.intern(big);
  for (int i = 0; i < 100000; ++i) {
    table.intern("uuid-" + std::to_string(i));
  }
  CHECK(table.text(big_id) == big);
  CHECK(view.data() == table.text(a).data());
  CHECK(table.intern("uuid-99999") == table.size() - 1);
  CHECK(table.intern("uuid-5") == big_id + 6);
  table.clear();
  CHECK(table.size() == 0);
  CHECK(table.intern("a") == 0);
}

TEST_CASE("a held conversation gives back only the records its threads use", "[held_records]") {
  HeldRecords held;
  hold_all(held, k_two_sessions);
  REQUIRE(held.size() == 6);
  // The tree over the held records is the tree over the messages.
  std::vector<Message> messages = read_messages(k_two_sessions);
  CHECK(SessionTree(held).main_thread() == SessionTree(messages).main_thread());
  CHECK(held.uuid(1) == "a2");
  CHECK(held.node(2).is_assistant_turn);
  CHECK(held.node(2).message_id == "msg_a");

  std::vector<RecordLink> links;
  std::vector<Message> used = held.take_used(&links);
  // The first record (it names the input), then the thread.
  CHECK(uuids(used) == std::vector<std::string>{"a1", "b1", "b2"});
  REQUIRE(links.size() == 3);
  CHECK(links[0].uuid == "a2");
  CHECK(links[0].parent == "a1");
  CHECK(links[0].where.line == 2);
  CHECK(links[2].uuid == "a4");
  CHECK(links[2].parent == "gone");
  // A turn held as its bytes stays so, and reads again as it was.
  REQUIRE(held_as_bytes(used[2]));
  CHECK(used[2].where.line == 6);
  Message again = decode_again(used[2]);
  CHECK(again.content.blocks.at(0).text == "two");
  CHECK(again.meta->message_id == "msg_b");
  held.clear();
  CHECK(held.empty());
}

TEST_CASE("a held conversation keeps every record where dropping some would change a thread",
          "[held_records]") {
  SECTION("a tombstone takes a record back") {
    HeldRecords held;
    hold_all(held, k_two_sessions + R"({"type":"tombstone","message":{"uuid":"b2"}})" "\n");
    std::vector<RecordLink> links;
    CHECK(held.take_used(&links).size() == 7);
    CHECK(links.empty());
  }
  SECTION("a uuid held twice") {
    HeldRecords held;
    hold_all(held, k_two_sessions + cc_user("a3", "", R"("again")") +
                       cc_user("b3", "b2", R"("third")"));
    CHECK(uuids(held.take_used(nullptr)) ==
          std::vector<std::string>{"a1", "a3", "b1", "b2", "a3", "b3"});
  }
  SECTION("the leaf's only link goes to a record left out") {
    // b1 has no parent and is the leaf: over the records kept no record links, and
    // the main thread would become every record kept.
    HeldRecords held;
    hold_all(held, cc_user("a1", "", R"("first")") + cc_user("a2", "a1", R"("x")") +
                       cc_user("b1", "", R"("second")"));
    CHECK(held.take_used(nullptr).size() == 3);
  }
}

TEST_CASE("records held for trim are their bytes, links and places, one at a time",
          "[held_records]") {
  HeldRecords held(/*api_view=*/false);
  std::vector<Message> records =
      read_messages(k_two_sessions + "not json\n", ReadOptions{std::nullopt, OnError::keep});
  REQUIRE(records.size() == 7);
  std::vector<std::string> bytes;
  for (Message& record : records) {
    bytes.emplace_back(record.raw.view());
    if (record.kind == Kind::turn) {
      REQUIRE(held.may_hold_as_bytes(record));
      mark_held_as_bytes(record);  // as trim marks what it writes as its bytes
    }
    held.hold(std::move(record));
  }
  REQUIRE(held.size() == 7);
  const StringTable& strings = held.strings();
  for (std::size_t i = 0; i < 7; ++i) {
    CHECK(held.bytes(i) == bytes[i]);
  }
  // Turns held as their bytes, the rest (progress, the bad line) as Messages; the
  // links of both are ids.
  CHECK(held.full(0) == nullptr);
  REQUIRE(held.full(1) != nullptr);
  CHECK(held.full(1)->kind == Kind::progress);
  REQUIRE(held.full(6) != nullptr);
  CHECK(held.full(6)->kind == Kind::invalid);
  CHECK(strings.text(held.uuid_id(1)) == "a2");
  CHECK(strings.text(held.parent_id(1)) == "a1");
  CHECK(strings.text(held.uuid_id(3)) == "a4");
  CHECK(strings.text(held.parent_id(3)) == "gone");
  CHECK(held.parent_id(0) == StringTable::k_none);
  CHECK(held.uuid_id(6) == StringTable::k_none);
  // A record taken: made from its bytes, and again as often as asked; one held as
  // its Message is moved out.
  Message a3 = held.take(2);
  CHECK(held_as_bytes(a3));
  CHECK(a3.raw == bytes[2]);
  CHECK(a3.where.line == 3);
  CHECK(a3.meta->uuid == "a3");
  CHECK(a3.meta->message_id == "msg_a");
  CHECK(a3.timestamp.empty());  // the tree's, not held for trim
  CHECK(decode_again(a3).content.blocks.at(0).text == "one");
  CHECK(held.take(2).raw == bytes[2]);
  Message progress = held.take(1);
  CHECK(progress.kind == Kind::progress);
  CHECK(progress.raw == bytes[1]);
  held.clear();
  CHECK(held.empty());
}

TEST_CASE("a record too unusual to hold as bytes is not", "[held_records]") {
  HeldRecords held(/*api_view=*/false);
  std::vector<Message> records = read_messages(k_two_sessions);
  CHECK(held.may_hold_as_bytes(records[0]));
  records[0].modified = true;
  CHECK_FALSE(held.may_hold_as_bytes(records[0]));
  records[1].raw.clear();
  CHECK_FALSE(held.may_hold_as_bytes(records[1]));
  held.hold(std::move(records[2]));
  Message elsewhere = records[3];
  elsewhere.where.file = std::make_shared<const std::string>("other.jsonl");
  CHECK_FALSE(held.may_hold_as_bytes(elsewhere));
  elsewhere.where = records[3].where;
  elsewhere.where.column = 5;  // one of several records of a line
  CHECK_FALSE(held.may_hold_as_bytes(elsewhere));
  CHECK(held.may_hold_as_bytes(records[3]));
}

TEST_CASE("threads over held records are those over the records, for the corpus",
          "[held_records]") {
  for (const CorpusFile& file : corpus_files()) {
    if (file.format != Format::claude_code) {
      continue;
    }
    INFO(file.path);
    std::vector<Message> messages =
        read_messages(file.text, ReadOptions{std::nullopt, OnError::keep});
    HeldRecords held;
    hold_all(held, file.text);
    REQUIRE(held.size() == messages.size());
    SessionTree over_held(held);
    SessionTree over_messages(messages);
    CHECK(over_held.main_thread() == over_messages.main_thread());
    CHECK(over_held.sidechain_threads() == over_messages.sidechain_threads());
    CHECK(over_held.duplicates() == over_messages.duplicates());
  }
}
