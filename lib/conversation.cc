#include "conversation.h"

namespace convo {

ConversationStage::ConversationStage(Function function, GroupBy group_by)
    : m_function([function = std::move(function)](std::vector<Message> conversation) {
        std::vector<std::vector<Message>> out;
        out.push_back(function(std::move(conversation)));
        return out;
      }),
      m_group_by(group_by) {}

ConversationStage::ConversationStage(SplitFunction function, GroupBy group_by)
    : m_function(std::move(function)), m_group_by(group_by) {}

void ConversationStage::push(Message&& message, MessageSink& next) {
  const std::string& session = message.envelope.session_id;
  if (m_group_by == GroupBy::session && !session.empty()) {
    if (!m_session.empty() && session != m_session) {
      flush(next);
    }
    m_session = session;
  }
  m_held.push_back(std::move(message));
}

void ConversationStage::finish(MessageSink& next) {
  flush(next);
  m_session.clear();
}

void ConversationStage::flush(MessageSink& next) {
  if (m_held.empty()) {
    return;
  }
  std::vector<Message> conversation;
  conversation.swap(m_held);
  for (std::vector<Message>& part : m_function(std::move(conversation))) {
    next.put_conversation(std::move(part));
  }
}

}  // namespace convo
