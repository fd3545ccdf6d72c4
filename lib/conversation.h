// Conversations for the stages that need one whole (trim, normalize-for-api,
// check): which messages form one, and an adapter that holds one at a time.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "message.h"
#include "pipeline.h"

namespace convo {

// A message decoded again from its bytes (`raw`: one record of its format, as the
// reader read it), as the reader decoded it: for a stage that held the message as
// little more than its bytes. Throws convo::Error when they no longer decode to one
// message.
Message decode_again(const Message& message);

// A message held as its bytes: a stage that needs a record's content only if the
// record is used in the end (normalize-for-api and check use the records of the
// threads they write or check, not every record of a file) drops its content and
// parsed record while it holds it, marks it, and `decode_again`s it when it is
// used. Marking sets `json` to a null value that is no record's; it stays set
// through moves, and nothing reads a marked message's content.
void mark_held_as_bytes(Message& message);
// Whether `message` was marked by `mark_held_as_bytes` (and not decoded again).
bool held_as_bytes(const Message& message);

// What makes a conversation.
enum class GroupBy : std::uint8_t {
  session,  // an input, split further where Claude Code's sessionId changes (default)
  file,     // an input
  // As session, except that a session whose first record continues the conversation
  // held (its parentUuid names one of its records) stays with it: Claude Code loads a
  // whole file and walks the links across sessionIds (a resumed session's records).
  session_chains,
};

// Adapts a whole-conversation function to the streaming interface: holds the
// messages of one conversation and hands them to `function` when it ends, then
// passes on what it returns. Memory: one conversation.
//
// With GroupBy::session a new conversation starts at a record whose sessionId is
// set and differs from the one before; records without a sessionId (summaries,
// snapshots) stay with the conversation they are in. Bad lines kept by
// --on-error keep stay in place.
//
// What `function` returns goes to `MessageSink::put_conversation` in one piece. A
// `SplitFunction` may turn one group of records into several conversations
// (normalize-for-api --sidechains: the main thread and each subagent's).
class ConversationStage final : public StreamStage {
 public:
  using Function = std::function<std::vector<Message>(std::vector<Message>)>;
  using SplitFunction = std::function<std::vector<std::vector<Message>>(std::vector<Message>)>;

  explicit ConversationStage(Function function, GroupBy group_by = GroupBy::session);
  explicit ConversationStage(SplitFunction function, GroupBy group_by = GroupBy::session);

  void push(Message&& message, MessageSink& next) override;
  void finish(MessageSink& next) override;

 private:
  void flush(MessageSink& next);

  void hold(Message&& message);

  SplitFunction m_function;
  GroupBy m_group_by;
  // The conversation so far, in chunks that never move: a single vector of
  // millions of messages grows by doubling (asking for 7 GB at once past 4 million
  // short records, and holding the old and new arrays together while it moves).
  // Chunks double up to a size that malloc maps on its own (32 MB and more, see
  // cmd/main.cc), so that `flush` returns each to the system as soon as its
  // messages are moved into the conversation: moving costs one chunk, not a copy.
  std::vector<std::vector<Message>> m_held;
  std::size_t m_held_count = 0;
  std::string m_session;

  // True when a record of the held conversation has uuid `uuid`.
  bool holds(std::string_view uuid) const;
};

}  // namespace convo
