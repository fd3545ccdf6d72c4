#include <catch2/catch.hpp>

#include "conversation.h"
#include "test_util.h"

using namespace convo;
using namespace convo::test;

namespace {

class Collect final : public MessageSink {
 public:
  void put(Message&& message) override { ids.push_back(message.id); }
  std::vector<std::string> ids;
};

}  // namespace

TEST_CASE("conversations split where the Claude Code session changes", "[conversation]") {
  auto messages = read_messages(
      R"({"type":"summary","summary":"t","leafUuid":"x"})" "\n"
      R"({"type":"user","message":{"role":"user","content":"a"},"uuid":"1","sessionId":"A"})" "\n"
      R"({"type":"user","message":{"role":"user","content":"b"},"uuid":"2","sessionId":"A"})" "\n"
      R"({"type":"file-history-snapshot","messageId":"m","snapshot":{}})" "\n"
      R"({"type":"user","message":{"role":"user","content":"c"},"uuid":"3","sessionId":"B"})" "\n");
  std::vector<std::size_t> sizes;
  ConversationStage stage([&](std::vector<Message> conversation) {
    sizes.push_back(conversation.size());
    return conversation;
  });
  Collect out;
  for (Message& message : messages) {
    stage.push(std::move(message), out);
  }
  stage.finish(out);
  CHECK(sizes == std::vector<std::size_t>{4, 1});
  CHECK(out.ids == std::vector<std::string>{"", "1", "2", "", "3"});
}

TEST_CASE("grouping by file ignores sessions", "[conversation]") {
  auto messages = read_messages(
      R"({"type":"user","message":{"role":"user","content":"a"},"uuid":"1","sessionId":"A"})" "\n"
      R"({"type":"user","message":{"role":"user","content":"c"},"uuid":"3","sessionId":"B"})" "\n");
  std::vector<std::size_t> sizes;
  ConversationStage stage(
      [&](std::vector<Message> conversation) {
        sizes.push_back(conversation.size());
        return std::vector<Message>{};
      },
      GroupBy::file);
  Collect out;
  for (Message& message : messages) {
    stage.push(std::move(message), out);
  }
  stage.finish(out);
  CHECK(sizes == std::vector<std::size_t>{2});
  CHECK(out.ids.empty());
}
