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
  if (m_group_by != GroupBy::file && !session.empty()) {
    if (!m_session.empty() && session != m_session &&
        !(m_group_by == GroupBy::session_chains && !message.envelope.parent_uuid.empty() &&
          holds(message.envelope.parent_uuid))) {
      flush(next);
    }
    m_session = session;
  }
  m_held.push_back(std::move(message));
}

bool ConversationStage::holds(std::string_view uuid) const {
  // Only where the sessionId changes: a scan of the held records is cheap there.
  for (auto it = m_held.rbegin(); it != m_held.rend(); ++it) {
    if (it->envelope.uuid == uuid) {
      return true;
    }
  }
  return false;
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
