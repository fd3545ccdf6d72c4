#include "tokens.h"

#include <algorithm>
#include <cmath>

#include "formats/format.h"
#include "formats/openai.h"
#include "python_repr.h"
#include "tool_links.h"

namespace convo {

namespace {

// What count_tokens_approximately adds up for one message.
struct Tally {
  std::size_t chars = 0;
  std::int64_t images = 0;
};

// A tool_use block that LangChain holds in `tool_calls` rather than in the content:
// one read from OpenAI `tool_calls` (or another format's tool call objects), as
// opposed to an Anthropic `{"type": "tool_use"}` content block.
bool is_tool_call_field(const Message& message, const Block& block) {
  if (block.type != BlockType::tool_use) {
    return false;
  }
  if (block.json != nullptr) {
    auto type = string_member(*block.json, "type");
    return !(type && *type == "tool_use");
  }
  return keeps_calls_apart(message.origin);
}

// Whether LangChain would see the content as a list: the source's `content` member
// was an array (OpenAI moves its text into blocks only to hold the tool calls).
bool content_was_list(const Message& message) {
  if (message.json != nullptr && !message.modified) {
    if (const JsonValue* content = find_member(*message.json, "content")) {
      return content->IsArray();
    }
    return false;
  }
  return std::any_of(message.content.blocks.begin(), message.content.blocks.end(),
                     [&](const Block& b) { return !is_tool_call_field(message, b) && b.json; });
}

// The Anthropic JSON of a block that has none from its source (a stage made it).
std::size_t synthesized_repr_length(const Block& block) {
  JsonDoc doc;
  doc.SetObject();
  JsonAllocator& a = doc.GetAllocator();
  std::string_view type = block.type_name.empty() ? block_type_name(block.type)
                                                  : std::string_view(block.type_name);
  doc.AddMember("type", make_string(type, a), a);
  switch (block.type) {
    case BlockType::tool_use:
    case BlockType::server_tool_use: {
      doc.AddMember("id", make_string(block.id, a), a);
      doc.AddMember("name", make_string(block.name, a), a);
      JsonDoc input;
      if (parse_json(block.input_json(), input)) {
        doc.AddMember("input", make_string(block.input_json(), a), a);
      } else {
        doc.AddMember("input", JsonValue(input, a), a);
      }
      break;
    }
    case BlockType::tool_result: {
      doc.AddMember("tool_use_id", make_string(block.id, a), a);
      std::size_t n = python_repr_length(doc);
      // + ", 'content': " + the content's repr
      std::size_t content = 0;
      if (block.result.is_blocks()) {
        content = 2 + (block.result.blocks.empty() ? 0 : 2 * (block.result.blocks.size() - 1));
        for (const Block& inner : block.result.blocks) {
          content += inner.json ? python_repr_length(*inner.json) : synthesized_repr_length(inner);
        }
      } else if (block.result.is_string()) {
        content = python_repr_length(block.result.text);
      } else {
        content = 4;  // None
      }
      std::size_t is_error = block.is_error ? 14 + (*block.is_error ? 4 : 5) : 0;  // , 'is_error': True
      return n + 13 + content + is_error;
    }
    case BlockType::thinking:
      doc.AddMember("thinking", make_string(block.text, a), a);
      if (block.signature) {
        doc.AddMember("signature", make_string(*block.signature, a), a);
      }
      break;
    case BlockType::redacted_thinking:
      doc.AddMember("data", make_string(block.text, a), a);
      break;
    default:
      if (!block.text.empty()) {
        doc.AddMember("text", make_string(block.text, a), a);
      }
      break;
  }
  return python_repr_length(doc);
}

void tally_block(const Block& block, Tally& tally) {
  if (block.json != nullptr && block.json->IsString()) {
    tally.chars += python_len(block.text);  // a bare string in a content list
    return;
  }
  std::string_view type = block.type_name;
  if (type == "image" || type == "image_url") {
    tally.images += 1;
    return;
  }
  if (block.type == BlockType::text && (type == "text" || type.empty())) {
    tally.chars += python_len(block.text);
    return;
  }
  tally.chars += block.json != nullptr ? python_repr_length(*block.json)
                                       : synthesized_repr_length(block);
}

void tally_content(const Message& message, const Content& content, Tally& tally) {
  switch (content.form) {
    case Content::Form::string:
      tally.chars += python_len(content.text);
      return;
    case Content::Form::absent:
    case Content::Form::null:
      return;  // LangChain reads a missing or null content as ""
    case Content::Form::blocks:
      for (const Block& block : content.blocks) {
        // LangChain keeps tool calls, and the reasoning OpenAI-compatible providers
        // add, outside the content.
        if (!is_tool_call_field(message, block) && !is_openai_reasoning(block)) {
          tally_block(block, tally);
        }
      }
      return;
  }
}

// len(repr(message.tool_calls)), each call as LangChain holds it:
// {'name': NAME, 'args': ARGS, 'id': ID, 'type': 'tool_call'}.
std::size_t tool_calls_repr_length(const Message& message) {
  // "{'name': " + ", 'args': " + ", 'id': " + ", 'type': 'tool_call'}"
  constexpr std::size_t k_call_frame = 9 + 10 + 8 + 22;
  std::size_t n = 0;
  std::size_t calls = 0;
  for (const Block& block : message.content.blocks) {
    if (!is_tool_call_field(message, block)) {
      continue;
    }
    std::size_t args = 2;  // {}
    if (block.input_value != nullptr) {
      args = python_repr_length(*block.input_value);
    } else if (!block.input.empty()) {
      JsonDoc parsed;
      // Arguments that are not JSON make LangChain fail; count them as the string.
      args = parse_json(block.input, parsed) ? python_repr_length(block.input)
                                             : python_repr_length(parsed);
    }
    std::size_t id = block.id.empty() ? 4 : python_repr_length(block.id);  // None
    n += k_call_frame + python_repr_length(block.name) + args + id;
    ++calls;
  }
  return calls == 0 ? 0 : 2 + n + 2 * (calls - 1);
}

}  // namespace

std::int64_t approx_tokens(const Message& message, double chars_per_token) {
  if (!message.is_turn()) {
    return 0;
  }
  Tally tally;
  const Content& content = message.content;
  if (message.role == Role::tool && content.is_blocks() && content.blocks.size() == 1 &&
      content.blocks[0].type == BlockType::tool_result) {
    // A ToolMessage: its content is the result's; tool_call_id counts too.
    const Block& result = content.blocks[0];
    tally_content(message, result.result, tally);
    tally.chars += python_len(result.id);
    // A ToolMessage's name is the tool's; formats that record it (langchain,
    // agentscope) keep it on the result block.
    if (message.name.empty()) {
      tally.chars += python_len(result.name);
    }
  } else {
    tally_content(message, content, tally);
    if (message.role == Role::assistant && content.is_blocks() && !content_was_list(message)) {
      tally.chars += tool_calls_repr_length(message);
    }
  }
  tally.chars += python_len(openai_role_name(message));
  tally.chars += python_len(message.name);
  auto text_tokens =
      static_cast<std::int64_t>(std::ceil(static_cast<double>(tally.chars) / chars_per_token));
  return text_tokens + k_extra_tokens_per_message + tally.images * k_tokens_per_image;
}

void TokenCounter::count_across(std::span<const Message> conversation,
                                std::span<std::int64_t> counts) const {
  // Nothing is made before the first output: most counters record none, and a
  // vector a message beside a conversation held whole is memory it did not need.
  std::size_t first = 0;
  while (first < conversation.size() && response_output(conversation[first]) < 0) {
    ++first;
  }
  if (first == conversation.size()) {
    return;
  }
  std::vector<std::int64_t> outputs(conversation.size(), -1);
  for (std::size_t i = first; i < conversation.size(); ++i) {
    outputs[i] = response_output(conversation[i]);
  }
  std::vector<std::size_t> found = response_starts(conversation);
  std::vector<std::uint32_t> starts(found.begin(), found.end());
  count_responses(starts, outputs, counts);
}

void TokenCounter::count_responses(std::span<const std::uint32_t> starts,
                                   std::span<const std::int64_t> outputs,
                                   std::span<std::int64_t> counts) {
  // The largest recorded output of each response, at its first record; -1: none.
  std::vector<std::int64_t> output(starts.size(), -1);
  for (std::size_t i = 0; i < starts.size(); ++i) {
    output[starts[i]] = std::max(output[starts[i]], outputs[i]);
  }
  for (std::size_t i = 0; i < starts.size(); ++i) {
    std::int64_t response = output[starts[i]];
    if (response >= 0) {
      counts[i] = starts[i] == i ? response : 0;
    }
  }
}

std::vector<std::int64_t> TokenCounter::count_conversation(
    std::span<const Message> conversation) const {
  std::vector<std::int64_t> counts;
  counts.reserve(conversation.size());
  for (const Message& message : conversation) {
    counts.push_back(count_message(message));
  }
  count_across(conversation, counts);
  return counts;
}

namespace {

class ApproxCounter final : public TokenCounter {
 public:
  explicit ApproxCounter(double chars_per_token) : m_chars_per_token(chars_per_token) {}
  std::int64_t count_message(const Message& message) const override {
    return approx_tokens(message, m_chars_per_token);
  }

 private:
  double m_chars_per_token;
};

class MessagesCounter final : public TokenCounter {
 public:
  std::int64_t count_message(const Message& message) const override {
    return message.is_turn() ? 1 : 0;
  }
};

// Transcripts record, per API response, how many tokens the model wrote
// (`usage.output_tokens`), which is what the response takes in the context when the
// conversation is sent again. A response split over several records (Claude Code)
// repeats its usage on each, with the output count growing as it streamed: the
// largest is the response's, and it is counted once, on the response's first
// record. Prompts, tool results and system messages have no per-message count in
// any transcript (the recorded input tokens are totals for the whole prompt), so
// they are counted approximately.
class UsageCounter final : public TokenCounter {
 public:
  explicit UsageCounter(double chars_per_token) : m_chars_per_token(chars_per_token) {}

  std::int64_t response_output(const Message& message) const override {
    return recorded_output(message).value_or(-1);
  }

  std::int64_t count_message(const Message& message) const override {
    if (auto recorded = recorded_output(message)) {
      return *recorded;
    }
    return approx_tokens(message, m_chars_per_token);
  }

 private:
  static std::optional<std::int64_t> recorded_output(const Message& message) {
    if (!message.is_turn() || message.role != Role::assistant || message.modified ||
        !message.usage->output || *message.usage->output < 0) {
      return std::nullopt;
    }
    return message.usage->output;
  }

  double m_chars_per_token;
};

}  // namespace

const std::vector<std::string>& token_counter_names() {
  static const std::vector<std::string> names = {"approx", "messages", "usage"};
  return names;
}

std::optional<TokenCounterKind> parse_token_counter(std::string_view name) {
  if (name == "approx") {
    return TokenCounterKind::approx;
  }
  if (name == "messages") {
    return TokenCounterKind::messages;
  }
  if (name == "usage") {
    return TokenCounterKind::usage;
  }
  return std::nullopt;
}

std::unique_ptr<TokenCounter> make_token_counter(const TokenCountOptions& options) {
  switch (options.kind) {
    case TokenCounterKind::messages:
      return std::make_unique<MessagesCounter>();
    case TokenCounterKind::usage:
      return std::make_unique<UsageCounter>(options.chars_per_token);
    case TokenCounterKind::approx:
      break;
  }
  return std::make_unique<ApproxCounter>(options.chars_per_token);
}

}  // namespace convo
