// Token counters: how many tokens each message of a conversation takes, for trim's
// budget. `approx` is LangChain Python's count_tokens_approximately, exactly;
// `messages` counts each message 1; `usage` uses the token counts a transcript
// recorded for its responses. Records that are not conversation turns count 0.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "message.h"

namespace convo {

enum class TokenCounterKind : std::uint8_t {
  approx,    // LangChain's count_tokens_approximately (the default)
  messages,  // every message counts 1 (LangChain's `len`)
  usage,     // recorded output tokens of each response, else approx
};

// LangChain's defaults for count_tokens_approximately.
inline constexpr double k_chars_per_token = 4.0;
inline constexpr std::int64_t k_extra_tokens_per_message = 3;
inline constexpr std::int64_t k_tokens_per_image = 85;

struct TokenCountOptions {
  TokenCounterKind kind = TokenCounterKind::approx;
  double chars_per_token = k_chars_per_token;  // approx, and usage's fallback; > 0
};

// The names of the counters as on the command line: approx, messages, usage.
const std::vector<std::string>& token_counter_names();
// The counter called `name`, or nullopt.
std::optional<TokenCounterKind> parse_token_counter(std::string_view name);

// LangChain Python's count_tokens_approximately for one message (langchain-core
// 1.2, without tools or usage scaling), on the message as LangChain would hold it
// when read from its format:
//   chars = the content: a string's length (code points); for a list, each string
//           item and `text` block by its text's length, each other block by the
//           length of Python's repr() of its JSON (images: see below)
//         + for an assistant message whose content is not a list, repr() of its
//           tool calls as LangChain tool calls ({'name', 'args', 'id', 'type'})
//         + for a tool message, its tool_call_id
//         + the OpenAI role name ("user", "assistant", ...) + the name, if any
//   tokens = ceil(chars / chars_per_token) + 3 + 85 per `image`/`image_url` block.
// Records that are not turns count 0.
std::int64_t approx_tokens(const Message& message, double chars_per_token = k_chars_per_token);

// Counts tokens for the messages of one conversation.
class TokenCounter {
 public:
  virtual ~TokenCounter() = default;

  // The tokens of `message` on its own. A message that a stage changed (`modified`)
  // is counted by what it holds now: recorded usage no longer describes it.
  virtual std::int64_t count_message(const Message& message) const = 0;

  // Turns the counts of messages on their own (`counts[i]` is `count_message` of
  // `conversation[i]`) into their counts within the conversation, for counters that
  // look across messages (usage: a response split over records counts once). Reads
  // only kinds, roles, envelopes and usage, never content: `response_output` of
  // each message and `response_starts`, then `count_responses`.
  void count_across(std::span<const Message> conversation, std::span<std::int64_t> counts) const;

  // What `count_across` reads of a message: the output tokens its usage records,
  // when this counter counts a response by them (usage), as -1 when it does not.
  // A stage that holds its messages compactly keeps this and counts across with
  // `count_responses`.
  virtual std::int64_t response_output(const Message& message) const {
    (void)message;
    return -1;
  }
  // `count_across` over what it reads: for each message, the index of the first
  // message of its response (`response_starts`) and its `response_output`. A
  // response counts the largest output any of its records records, at its first
  // record, and 0 at the others.
  static void count_responses(std::span<const std::uint32_t> starts,
                              std::span<const std::int64_t> outputs,
                              std::span<std::int64_t> counts);

  // The tokens of every message of `conversation`, in order; records that are not
  // turns count 0: `count_message` of each, then `count_across`.
  std::vector<std::int64_t> count_conversation(std::span<const Message> conversation) const;
};

// The counter `options` describe.
std::unique_ptr<TokenCounter> make_token_counter(const TokenCountOptions& options);

}  // namespace convo
