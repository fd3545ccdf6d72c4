// normalize-for-api: a transcript in any format convo reads, turned into Anthropic
// Messages API messages that the API accepts. A whole-conversation stage in two
// halves: `api_view` builds the messages the API would see if the conversation were
// sent as recorded (what `convo check` validates), and `normalize_for_api` then
// repairs what the API would reject. Claude Code's own normalizeMessagesForAPI is
// the model; man/convo-normalize-for-api.1 lists every decision.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conversation.h"
#include "diagnostics.h"
#include "formats/anthropic_request.h"
#include "formats/format.h"
#include "message.h"
#include "pipeline.h"

namespace convo {

struct NormalizeOptions {
  // Which thinking blocks to send (unsigned ones never are: the API rejects them).
  enum class Thinking : std::uint8_t {
    keep,          // all (as Claude Code resends them)
    current_turn,  // those of the assistant's current turn, where the API requires them
    drop,          // none
  };
  Thinking thinking = Thinking::keep;
  // The model the messages go to (`--model`); empty: the model of the conversation's
  // last assistant message that names one. Signed thinking that a message of
  // another model holds is not sent (keep and current_turn): a signature is its
  // model's own, and Claude Code strips such blocks when it resumes a session with
  // another model.
  std::string model;
  // The names tool calls go under.
  enum class ToolNames : std::uint8_t {
    current,   // Claude Code 2.1.330's: its Task tool is now Agent
    recorded,  // as the transcript recorded them
  };
  ToolNames tool_names = ToolNames::current;
  bool strip_cache_control = false;  // remove every cache_control marker
  bool sidechains = false;           // also write each subagent's conversation
  // Told about messages dropped because the API has no place for them; may be null.
  Diagnostics* diagnostics = nullptr;
};

// Where a block of an API message came from: the record, and for reports that need
// a line within a multi-line document, the record's place in it.
struct BlockOrigin {
  static constexpr std::size_t k_whole = std::numeric_limits<std::size_t>::max();

  Location where;                              // the record (its first line)
  std::shared_ptr<const Container> container;  // the document the record is in, if any
  std::size_t slot = 0;                        // the record's place in `container`
  std::size_t index = k_whole;  // the block's index in the record's content; k_whole for
                                // the content as a whole or a block convo made up
};

// Where one message of the API's view came from.
struct ApiOrigins {
  BlockOrigin origin;               // the first record it was made from
  std::vector<BlockOrigin> blocks;  // one per block when the content is blocks
};

// One message as the API sees it, and where its parts came from: a view of one
// message of an ApiConversation, valid while it is.
struct ApiMessage {
  const Message& message;  // role user, assistant or system (or a role the API does
                           // not have, for check to report)
  BlockOrigin origin;      // the first record it was made from
  // One per block when the content is blocks; null when the message is the record
  // it was made from, each block the record's block of the same index.
  const std::vector<BlockOrigin>* block_origins;

  // Where block `index` came from: `origin` for string content or a block convo
  // made up.
  BlockOrigin block_origin(std::size_t index) const;
};

// One conversation as the API sees it: its messages, and where each came from, in
// vectors of their own so that the messages can be built over the records they are
// made from (a conversation is then held once).
class ApiConversation {
 public:
  std::vector<Message> messages;
  // One per message; empty when not asked for. Null for a message that is the
  // record it was made from (most are): its own `where`, `container` and `slot`
  // say where it and its blocks came from, and the 88 bytes they would take here
  // were a fifth of a short record's cost to `check`.
  std::vector<std::unique_ptr<ApiOrigins>> origins;

  std::size_t size() const { return messages.size(); }
  bool empty() const { return messages.empty(); }
  ApiMessage operator[](std::size_t i) const;
  ApiMessage front() const { return (*this)[0]; }
  ApiMessage back() const { return (*this)[size() - 1]; }

  // Iterates over the messages as ApiMessages.
  class Iterator {
   public:
    Iterator(const ApiConversation& view, std::size_t at) : m_view(&view), m_at(at) {}
    ApiMessage operator*() const { return (*m_view)[m_at]; }
    Iterator& operator++() {
      ++m_at;
      return *this;
    }
    bool operator==(const Iterator& other) const { return m_at == other.m_at; }

   private:
    const ApiConversation* m_view;
    std::size_t m_at;
  };
  Iterator begin() const { return {*this, 0}; }
  Iterator end() const { return {*this, size()}; }
};

// Steps 1-5 of normalize-for-api: the conversations in `records` (one group of
// records, in file order) as the API would see them if they were sent as recorded.
// The main thread comes first, then, with `options.sidechains`, each subagent's.
// Records that are not API messages are left out; nothing is repaired. OpenAI tool
// messages become user messages holding tool_result blocks, as Anthropic's API has
// them, unless `tool_messages` keeps them apart (role tool), as OpenAI's has them.
std::vector<ApiConversation> api_view(std::vector<Message> records, const NormalizeOptions& options,
                                      bool tool_messages = false);

// The whole stage: `api_view`, then tool pairing, empty content and thinking blocks
// repaired so that every conversation is a valid Messages API `messages` list. One
// list of messages per conversation; each message is written as an anthropic message.
std::vector<std::vector<Message>> normalize_for_api(std::vector<Message> records,
                                                    const NormalizeOptions& options);

// Releases what `record` holds that the API view never uses: all of a record the
// view drops whatever thread it is on (progress, bookkeeping, most system records),
// and a Claude Code record's bytes (it is always written afresh), keeping what the
// session tree needs (kind, uuid, parentUuid, ...). Stages call it as records
// arrive, so that a conversation held whole stays small. Without `keep_bytes` no
// record keeps its bytes (a stage that writes nothing, such as check's). With
// `as_bytes`, a record the view may use (a turn) of a format whose records decode
// alone is held as its bytes instead, marked (`held_as_bytes`, conversation.h):
// `api_view` decodes it again if it is on a thread. The function given the
// conversation must then use its records only through `api_view`.
void slim_for_api(Message& record, bool keep_bytes = true, bool as_bytes = false);

// A whole-conversation stage for work on the API view: records slimmed as they
// arrive (slim_for_api with `keep_bytes` and `as_bytes`), grouped into
// conversations by `group_by`, each given to `function`. With `as_bytes` and
// GroupBy::file, records are held compactly (held_records.h) and `function` gets
// only those the session tree's threads use (`HeldRecords::take_used`); a sink that
// is a `HeldLinksSink` (check's report) is told the links of the others first.
std::unique_ptr<StreamStage> make_api_view_stage(ConversationStage::SplitFunction function,
                                                 GroupBy group_by, bool keep_bytes = true,
                                                 bool as_bytes = false);

// The normalize-for-api stage: `make_api_view_stage` running `normalize_for_api`.
std::unique_ptr<StreamStage> make_normalize_stage(NormalizeOptions options, GroupBy group_by);

// Which messages may hold a block of some type in the Messages API.
enum class BlockHolder : std::uint8_t {
  any,        // text, and blocks convo does not model (kept for newer API features)
  user,       // tool_result, image, document
  assistant,  // tool_use, thinking, redacted_thinking, server tool blocks
  none,       // not an Anthropic block: audio, video, OpenAI file parts
};
BlockHolder anthropic_block_holder(BlockType type);

// The text put in place of content the API would reject as empty.
inline constexpr std::string_view k_no_content = "[no content]";
// The content of the error result given to a tool call the transcript has no result
// for: Claude Code's pairing step's text, and for the calls of the last assistant
// message its resume step's (the session ended before their results were recorded).
inline constexpr std::string_view k_missing_result = "[Tool result missing due to internal error]";
inline constexpr std::string_view k_interrupted_result =
    "[Tool call interrupted: the session ended before this call's result was recorded, so its "
    "outcome is unknown. Check whether it took effect before relying on it or running it again.]";
// What Claude Code's pairing step puts in a first message left empty by the removal
// of tool results that answer nothing.
inline constexpr std::string_view k_orphaned_result =
    "[Orphaned tool result removed due to conversation resume]";

// A sink that writes each conversation as one Messages API request body, on one
// line (anthropic_request_body in lib/formats/anthropic_request.h says what it holds).
SinkFactory request_sink(RequestOptions options);

}  // namespace convo
