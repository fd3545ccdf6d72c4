#include "conversation.h"

#include <algorithm>
#include <iterator>

#include "formats/format.h"
#include "io/record_reader.h"

namespace convo {

Message decode_again(const Message& message) {
  // Parsed as RecordReader parses a record: in place, lone surrogate escapes read
  // as U+FFFD.
  Record record;
  record.raw = message.raw;
  record.where = message.where;
  record.source = std::make_shared<Source>(message.raw.size());
  reserve_parse_padding(record.source->text, message.raw.size());
  record.source->text.assign(message.raw.view());
  record.lone_surrogates = replace_lone_surrogates(record.source->text);
  if (!parse_json_in_place(record.source->text, record.source->doc)) {
    throw Error(message.where, "cannot read this record again");
  }
  std::vector<Message> decoded;
  format_info(message.origin).make_decoder()->decode(std::move(record), decoded);
  if (decoded.size() != 1) {
    throw Error(message.where, "cannot read this record again");
  }
  return std::move(decoded.front());
}

namespace {

const JsonValue k_held_as_bytes;  // the mark: a null value that is no record's

}  // namespace

void mark_held_as_bytes(Message& message) { message.json = &k_held_as_bytes; }

bool held_as_bytes(const Message& message) { return message.json == &k_held_as_bytes; }

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
  const std::string& session = message.meta->session_id;
  if (m_group_by != GroupBy::file && !session.empty()) {
    if (!m_session.empty() && session != m_session &&
        !(m_group_by == GroupBy::session_chains && !message.meta->parent_uuid.empty() &&
          holds(message.meta->parent_uuid))) {
      flush(next);
    }
    m_session = session;
  }
  hold(std::move(message));
}

namespace {

// Chunks of the held conversation: the first is small (most conversations are a
// few hundred records), the largest one 64 MB, past malloc's mmap threshold (32 MB,
// cmd/main.cc), so that `flush` gives each back to the system as it empties it.
// Counted in bytes, not messages: when `Message` shrank to 480 bytes, 64 Ki
// messages (31 MB) fell under the threshold, the emptied chunks stayed in the heap
// beside the conversation they were moved to, and a conversation held whole cost
// its messages twice (trim: 1.06 KB a short record, 0.55 KB with this).
constexpr std::size_t k_first_chunk = 64;
constexpr std::size_t k_largest_chunk = (std::size_t{64} << 20) / sizeof(Message);

}  // namespace

void ConversationStage::hold(Message&& message) {
  if (m_held.empty() || m_held.back().size() == m_held.back().capacity()) {
    std::size_t capacity =
        m_held.empty() ? k_first_chunk : std::min(m_held.back().capacity() * 2, k_largest_chunk);
    m_held.emplace_back().reserve(capacity);
  }
  m_held.back().push_back(std::move(message));
  ++m_held_count;
}

bool ConversationStage::holds(std::string_view uuid) const {
  // Only where the sessionId changes: a scan of the held records is cheap there.
  for (auto chunk = m_held.rbegin(); chunk != m_held.rend(); ++chunk) {
    for (auto it = chunk->rbegin(); it != chunk->rend(); ++it) {
      if (it->meta->uuid == uuid) {
        return true;
      }
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
  if (m_held.size() == 1) {
    conversation.swap(m_held.front());
  } else {
    conversation.reserve(m_held_count);
    for (std::vector<Message>& chunk : m_held) {
      std::move(chunk.begin(), chunk.end(), std::back_inserter(conversation));
      std::vector<Message>().swap(chunk);  // given back before the next is moved
    }
  }
  m_held.clear();
  m_held_count = 0;
  for (std::vector<Message>& part : m_function(std::move(conversation))) {
    next.put_conversation(std::move(part));
  }
}

}  // namespace convo
