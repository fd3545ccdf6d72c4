#include <catch2/catch.hpp>

#include "stages/split_blocks.h"
#include "test_util.h"

using namespace convo;
using namespace convo::test;

namespace {

class Collect final : public MessageSink {
 public:
  void put(Message&& message) override { messages.push_back(std::move(message)); }
  std::vector<Message> messages;
};

std::string split(const std::string& text) {
  SplitBlocks stage;
  Collect out;
  for (Message& m : read_messages(text)) {
    stage.push(std::move(m), out);
  }
  stage.finish(out);
  return encode_all(out.messages, Format::claude_code);
}

}  // namespace

TEST_CASE("derived uuids are Claude Code's deriveUUID", "[split_blocks]") {
  CHECK(derive_uuid("a0000000-0000-4000-8000-000000000003", 0) ==
        "a0000000-0000-4000-8000-000000000000");
  CHECK(derive_uuid("a0000000-0000-4000-8000-000000000003", 26) ==
        "a0000000-0000-4000-8000-00000000001a");
  CHECK(derive_uuid("short", 3) == "short000000000003");
}

TEST_CASE("short ids are Claude Code's deriveShortMessageId", "[split_blocks]") {
  // Expected values computed with the JavaScript expression Claude Code uses.
  CHECK(derive_short_message_id("550e8400-e29b-41d4-a716-446655440000") == "4ntnke");
  CHECK(derive_short_message_id("ffffffff-ffff-ffff-ffff-ffffffffffff") == "e13wu1");
  CHECK(derive_short_message_id("00000000-0000-0000-0000-000000000001") == "0");
  CHECK(derive_short_message_id("0000000abc") == "24c");
  CHECK(derive_short_message_id("12-34") == "3lg");
  CHECK(derive_short_message_id("zz") == "NaN");
  CHECK(derive_short_message_id("") == "NaN");
  // Every block of a record shares its record's short id.
  CHECK(derive_short_message_id(derive_uuid("550e8400-e29b-41d4-a716-446655440000", 7)) ==
        "4ntnke");
}

TEST_CASE("each block becomes a record, and later records are renamed and relinked",
          "[split_blocks]") {
  std::string log =
      cc_user("11111111-1111-1111-1111-111111111111", "", R"("hi")") +
      cc_assistant("22222222-2222-2222-2222-222222222222", "11111111-1111-1111-1111-111111111111",
                   "msg_1", R"([{"type":"thinking","thinking":"t","signature":"s"},{"type":"text","text":"a"}])") +
      cc_line("progress", "33333333-3333-3333-3333-333333333333",
              "22222222-2222-2222-2222-222222222222", R"("data":{})") +
      cc_user("44444444-4444-4444-4444-444444444444", "33333333-3333-3333-3333-333333333333",
              R"("next")");
  CHECK(split(log) ==
        R"({"type":"user","uuid":"11111111-1111-1111-1111-111111111111","parentUuid":null,"sessionId":"s","message":{"role":"user","content":[{"type":"text","text":"hi"}]},"shortId":"xo9e04"})" "\n"
        R"({"type":"assistant","uuid":"22222222-2222-2222-2222-000000000000","parentUuid":"11111111-1111-1111-1111-111111111111","sessionId":"s","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[{"type":"thinking","thinking":"t","signature":"s"}]},"shortId":"1vcis0"})" "\n"
        R"({"type":"assistant","uuid":"22222222-2222-2222-2222-000000000001","parentUuid":"22222222-2222-2222-2222-000000000000","sessionId":"s","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[{"type":"text","text":"a"}]},"shortId":"1vcis0"})" "\n"
        R"({"type":"progress","uuid":"33333333-3333-3333-3333-333333333333","parentUuid":"22222222-2222-2222-2222-000000000001","sessionId":"s","data":{}})" "\n"
        R"({"type":"user","uuid":"44444444-4444-4444-4444-000000000000","parentUuid":"33333333-3333-3333-3333-333333333333","sessionId":"s","message":{"role":"user","content":[{"type":"text","text":"next"}]},"shortId":"3qp1k0"})" "\n");
}

TEST_CASE("records that are not turns, and turns with no blocks, pass unchanged",
          "[split_blocks]") {
  std::string log = R"({"type":"summary","summary":"t","leafUuid":"x"})" "\n" +
                    cc_user("u1", "", "[]");
  CHECK(split(log) == log);
}
