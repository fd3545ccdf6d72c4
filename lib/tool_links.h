// Which records of a conversation belong together: each tool call with the
// results that answer it, the records of one API response (Claude Code writes each
// content block of a response as its own assistant record, all sharing
// `message.id`), and the bookkeeping records that ride along with the turns. Stages
// that must not break a conversation apart (trim, normalize-for-api) cut only
// between the atomic units computed here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "message.h"
#include "string_table.h"

namespace convo {

// A tool call and one result answering it, as message indexes within a conversation.
struct ToolLink {
  std::size_t call = 0;    // the message holding the tool_use block
  std::size_t result = 0;  // the message holding the tool_result block (after `call`)
  std::string_view id;     // the tool_use id; points into the conversation's messages
};

// The tool call structure of a conversation.
struct ToolLinks {
  std::vector<ToolLink> links;                 // in the order the results appear
  std::vector<std::size_t> orphan_results;     // messages with a result whose call is not before it
  std::vector<std::size_t> unanswered_calls;   // messages with a call that no result answers
};

// Links every tool_result block (in a user or tool turn) to the latest tool_use block
// before it with the same id. Ids may be reused: a result answers the most recent
// call of that id. Records that are not turns are ignored. Linear in the input.
// This is the one rule for which call a result answers; every stage uses it.
ToolLinks link_tools(std::span<const Message> conversation);

// Where a block is: the index of its message and its index in that message's blocks.
struct BlockAt {
  std::size_t message = 0;
  std::size_t block = 0;
};

// The tool_use blocks whose id an earlier tool_use block already has, in order (the
// Anthropic API rejects a repeated id; a response written twice repeats them).
std::vector<BlockAt> duplicate_tool_uses(std::span<const Message> conversation);

// True when `a` and `b` are records of one API response: assistant turns with the
// same, non-empty `envelope.message_id`.
bool same_response(const Message& a, const Message& b);

// For each message, the index of the first record of the API response it is part of:
// assistant turns that share a non-empty `envelope.message_id` are one response. Any
// other message is a response of its own (its own index).
std::vector<std::size_t> response_starts(std::span<const Message> conversation);

// A contiguous run of records that must be kept or dropped whole: [begin, end).
// Indexes are 32 bits: a conversation held whole has one unit for most of its
// records (20 bytes each, not 40), and 4 billion records would not fit in memory.
struct AtomicUnit {
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  std::uint32_t first_turn = 0;  // the first and last conversation turn in it
  std::uint32_t last_turn = 0;
  std::uint32_t turns = 0;       // how many turns it holds (0 only when the input has none)
};

// Splits `conversation` into the smallest contiguous runs such that
//   - a tool call and every result linked to it (`link_tools`) are in one run,
//   - all records of one API response (`response_starts`) are in one run, and
//   - a record that is not a turn (progress, attachment, system event, summary,
//     bookkeeping, unknown or kept bad lines) is in the run of the turn before it,
//     or of the first turn when no turn comes before it.
// The runs cover the input in order. A conversation without turns is one run.
// Linear in the input.
std::vector<AtomicUnit> atomic_units(std::span<const Message> conversation);

// `atomic_units` one record at a time: what the units read of a record (kind,
// role, response id, tool ids) is read as it is added, so that a stage holding
// its records compactly (trim --group-by file) need not keep it. 4 bytes a
// record, and each tool and response id once.
class AtomicUnitBuilder {
 public:
  // Adds the next record; returns the index of the first record of its API
  // response (`response_starts`).
  std::size_t add(const Message& message);
  std::size_t size() const { return m_reach.size(); }
  // Room for `n` records: no copy of what is held as it grows.
  void reserve(std::size_t n) { m_reach.reserve(n); }
  // The units of the records added, as `atomic_units`; empties it.
  std::vector<AtomicUnit> finish();

 private:
  static constexpr std::uint32_t k_none = UINT32_MAX;
  // reach[i]: the last record that must be in the same run as record i; the top
  // bit marks a turn.
  std::vector<std::uint32_t> m_reach;
  StringTable m_ids;                      // tool ids and response ids
  std::vector<std::uint32_t> m_call;      // by tool id: its latest call
  std::vector<std::uint32_t> m_response;  // by response id: its first record
};

// --- One record at a time (streaming stages: filter) ---

// The id of the tool call `block` answers (a tool_result's tool_use_id), or "" for
// any other block.
std::string_view answered_call(const Block& block);

// The id of the tool call a record that is not a conversation turn belongs to: a
// Claude Code progress record's parentToolUseID or a system record's toolUseID
// (hook notices, agent progress). "" for turns and for records of no call. Such ids
// are not always tool_use ids (session hooks name a uuid), so only compare them
// with ids of calls.
std::string_view owning_call(const Message& message);

}  // namespace convo
