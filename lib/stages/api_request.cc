// normalize-for-api --request: each conversation written as one Messages API
// request body (lib/formats/anthropic_request.h builds it).
#include "formats/anthropic_request.h"
#include "io/output.h"
#include "stages/normalize_for_api.h"

namespace convo {

namespace {

class RequestWriter final : public MessageSink {
 public:
  RequestWriter(Output& out, LossReport& loss, std::shared_ptr<const RequestOptions> options)
      : m_out(out), m_loss(loss), m_options(std::move(options)) {}

  // Messages that come one by one (not through ConversationStage) are one conversation.
  void put(Message&& message) override { m_held.push_back(std::move(message)); }
  void put_conversation(std::vector<Message>&& conversation) override {
    write_body();
    m_held = std::move(conversation);
    write_body();
  }
  void end_input() override { write_body(); }
  bool takes_conversations_whole() const override { return true; }

 private:
  void write_body() {
    if (m_held.empty()) {
      return;
    }
    std::vector<Message> conversation;
    conversation.swap(m_held);
    m_out.write_line(anthropic_request_body(std::move(conversation), *m_options, m_loss));
  }

  Output& m_out;
  LossReport& m_loss;
  std::shared_ptr<const RequestOptions> m_options;
  std::vector<Message> m_held;
};

}  // namespace

SinkFactory request_sink(RequestOptions options) {
  auto shared = std::make_shared<const RequestOptions>(std::move(options));
  return [shared](Output& out, LossReport& loss) -> std::unique_ptr<MessageSink> {
    return std::make_unique<RequestWriter>(out, loss, shared);
  };
}

}  // namespace convo
