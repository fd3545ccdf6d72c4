// trim: fit a conversation into a token budget without breaking it apart.
// A whole-conversation stage (run it through ConversationStage). LangChain's
// trim_messages semantics for every option, with one difference: a tool call and
// the results that answer it, and the records of one API response, are kept or
// dropped together (lib/tool_links.h computes these units). Linear in the input.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conversation.h"
#include "formats/format.h"
#include "message.h"
#include "message_types.h"
#include "pipeline.h"
#include "tokens.h"

namespace convo {

enum class TrimStrategy : std::uint8_t {
  first,  // keep the oldest messages that fit
  last,   // keep the newest messages that fit (the default)
};

// How --allow-partial cuts a message's text into pieces it can keep some of.
enum class TextSplitter : std::uint8_t {
  newline,    // at "\n", each piece keeping its newline (LangChain's default)
  space,      // at " ", each piece keeping its space
  character,  // every code point
};

struct TrimOptions {
  std::int64_t max_tokens = 0;  // the budget; >= 0
  TrimStrategy strategy = TrimStrategy::last;
  // Keep the first turn when it is a system message, counting it against the budget
  // (strategy last only). It is kept even when it alone is over the budget.
  bool include_system = false;
  // Keep part of the message at the cut when a whole one does not fit.
  bool allow_partial = false;
  TypeSet start_on;  // drop the oldest kept units until one starts with one of these (last only)
  TypeSet end_on;    // drop the newest kept units until one ends with one of these
  TextSplitter text_splitter = TextSplitter::newline;
  // When set, counts the conversations of which nothing was kept (the stages of
  // several inputs may count at once), for the caller to warn about.
  std::shared_ptr<std::atomic<std::uint64_t>> emptied;
};

// The names of the splitters as on the command line: newline, space, char.
const std::vector<std::string>& text_splitter_names();
// The splitter called `name`, or nullopt.
std::optional<TextSplitter> parse_text_splitter(std::string_view name);

// Throws convo::Error (ExitCode::usage) for what LangChain rejects too: --start-on or
// --include-system with strategy first; and for a negative budget.
void check_trim_options(const TrimOptions& options);

// `text` cut into pieces that concatenate back to it.
std::vector<std::string> split_text(std::string_view text, TextSplitter splitter);

// The part of `conversation` that fits in `options.max_tokens` as `counter` counts:
//   - strategy first: the longest run of units from the start that fits, then
//     (--allow-partial) part of the next message, then units dropped from the end
//     until one ends with an `end_on` type;
//   - strategy last: units dropped from the end until one ends with an `end_on`
//     type, the system message set aside (--include-system), the longest run of
//     units from the end that fits what is left, part of the message before it
//     (--allow-partial), then units dropped from the start until one starts with a
//     `start_on` type; the system message goes first.
// A unit (`atomic_units`) is kept or dropped whole; only a unit that is a single
// message without tool blocks is cut by --allow-partial: the largest run of its
// blocks that fits (from the start for first, the end for last), or else the
// largest run of its text's pieces (of its first or last block), which then becomes
// its whole content as a string. A cut message is marked modified; every other
// record is returned as it came. Records that are not turns count no tokens and
// stay with their unit.
std::vector<Message> trim(std::vector<Message> conversation, const TrimOptions& options,
                          const TokenCounter& counter);

// `trim` over a stream: conversations as ConversationStage makes them (`group_by`).
// Memory: one conversation. Each message's tokens are counted as it arrives; a
// message that will be written as its own bytes (`to` is its format or nullopt, and
// it is not part of a multi-message document) then keeps only those bytes and what
// trim looks at (kinds, roles, envelopes, block types and tool ids), so a held
// conversation costs little more than its size in bytes. With GroupBy::file (a
// conversation is a whole input) such a message is held as its bytes in
// `HeldRecords` and what trim reads of it beside them (tokens, response, traits,
// its atomic unit found as it comes), and becomes a `Message` only when kept. The
// one message --allow-partial cuts is decoded again from its bytes. Throws like
// `check_trim_options`.
std::unique_ptr<StreamStage> make_trim_stage(const TrimOptions& options,
                                             std::shared_ptr<const TokenCounter> counter,
                                             GroupBy group_by, std::optional<Format> to);

}  // namespace convo
