// normalize-for-api, steps 6-8: the repairs that make a conversation's view one the
// Messages API accepts (api_repairs.h).
#include "stages/api_repairs.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "formats/anthropic.h"
#include "formats/anthropic_blocks.h"
#include "tool_links.h"

namespace convo {

namespace {

constexpr std::string_view k_whitespace = " \t\n\r\f\v";

bool is_blank(std::string_view text) {
  return text.find_first_not_of(k_whitespace) == std::string_view::npos;
}

bool is_thinking(const Block& block) {
  return block.type == BlockType::thinking || block.type == BlockType::redacted_thinking;
}

bool has_content(const Content& content) {
  return content.is_string() || (content.is_blocks() && !content.blocks.empty());
}

// A user message that starts a turn: one a person (or the harness on their behalf)
// wrote, answering no tool call. A message with tool results continues the
// assistant's turn, even with text beside them (an interruption, say): keeping the
// turn's thinking is safe, dropping what the API wants back is not.
bool starts_turn(const Message& message) {
  if (message.role != Role::user) {
    return false;
  }
  if (!message.content.is_blocks()) {
    return message.content.is_string();
  }
  return !message.has_tool_results();
}

// --- Repairs (steps 6-8) ---

void warn(const NormalizeOptions& options, const Location& where, const std::string& what) {
  if (options.diagnostics != nullptr) {
    options.diagnostics->warning(where, what);
  }
}

template <typename Pred>
bool erase_blocks(Message& message, Pred pred) {
  if (!message.content.is_blocks()) {
    return false;
  }
  auto& blocks = message.content.blocks;
  auto end = std::remove_if(blocks.begin(), blocks.end(), pred);
  if (end == blocks.end()) {
    return false;
  }
  blocks.erase(end, blocks.end());
  message.touch();
  return true;
}

// Messages whose role the Messages API does not have.
void drop_foreign_roles(std::vector<Message>& messages, const NormalizeOptions& options) {
  std::erase_if(messages, [&](const Message& m) {
    if (mergeable(m.role)) {
      return false;
    }
    std::string role = m.role == Role::custom ? m.custom_role : std::string(role_name(m.role));
    warn(options, m.where,
         fmt::format("dropped a message with role '{}': the Messages API has no such role", role));
    return true;
  });
}

// Blocks a role cannot hold (anthropic_block_holder). Blocks that are not
// Anthropic's are left to the encoder, which converts (a PDF file part becomes a
// document) or drops and counts them.
void drop_misplaced_blocks(std::vector<Message>& messages, const NormalizeOptions& options) {
  for (Message& m : messages) {
    erase_blocks(m, [&](const Block& b) {
      if (!anthropic_can_hold(b, uses_anthropic_blocks(m.origin))) {
        // The encoder would drop it; dropped here, a message it leaves empty says so.
        warn(options, m.where,
             fmt::format(
                 "dropped a {} block: the Messages API cannot take it",
                 b.type_name.empty() ? block_type_name(b.type) : std::string_view(b.type_name)));
        return true;
      }
      BlockHolder holder = anthropic_block_holder(b.type);
      bool misplaced = (holder == BlockHolder::user && m.role != Role::user) ||
                       (holder == BlockHolder::assistant && m.role != Role::assistant);
      if (misplaced) {
        warn(options, m.where,
             fmt::format("dropped a {} block from a {} message: the API does not take it there",
                         block_type_name(b.type), m.role == Role::user ? "user" : "non-user"));
      }
      return misplaced;
    });
  }
}

// A tool call's input must be a JSON object.
void fix_tool_inputs(std::vector<Message>& messages, const NormalizeOptions& options) {
  for (Message& m : messages) {
    if (!m.content.is_blocks()) {
      continue;
    }
    for (Block& b : m.content.blocks) {
      if (b.type != BlockType::tool_use) {
        continue;
      }
      bool object = true;
      if (!b.input.empty()) {
        JsonDoc parsed;
        object = !parse_json(b.input, parsed) && parsed.IsObject();
      } else if (b.input_value != nullptr) {
        object = b.input_value->IsObject();
      }
      if (!object) {
        warn(options, m.where,
             fmt::format("tool_use {}: its input is not a JSON object; sent as {{}}", b.id));
        b.input = "{}";
        b.input_as_written = false;
        b.input_value = nullptr;
        m.touch();
      }
    }
  }
}

// Step 8: which thinking blocks go to the API.
void select_thinking(std::vector<Message>& messages, NormalizeOptions::Thinking mode,
                     std::string_view model) {
  // Thinking a message of another model signed: Claude Code strips it when it
  // resumes with another model (a message without a model is taken as the
  // request's).
  const std::string_view to = model.empty() ? last_recorded_model(messages) : model;
  auto other_model = [&](const Message& m) {
    const std::string_view own = recorded_model(m);
    return !to.empty() && !own.empty() && own != to;
  };
  // The assistant's current turn: what follows the last user message that starts a
  // turn. With thinking on, the API requires its thinking blocks back, signatures
  // intact; it ignores those of earlier turns.
  std::size_t turn_start = 0;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    if (starts_turn(messages[i])) {
      turn_start = i + 1;
    }
  }
  for (std::size_t i = 0; i < messages.size(); ++i) {
    Message& m = messages[i];
    if (m.role != Role::assistant) {
      continue;
    }
    const bool other = other_model(m);
    erase_blocks(m, [&](const Block& b) {
      if (!is_thinking(b)) {
        return false;
      }
      if (mode == NormalizeOptions::Thinking::drop || other) {
        return true;
      }
      if (b.type == BlockType::thinking && (!b.signature || b.signature->empty())) {
        return true;  // the API rejects thinking it cannot verify
      }
      return mode == NormalizeOptions::Thinking::current_turn && i < turn_start;
    });
  }
}

// Step 7: empty and whitespace-only text blocks go; an error result holds only text.
void remove_blank_text(std::vector<Message>& messages) {
  auto blank_text = [](const Block& b) { return b.type == BlockType::text && is_blank(b.text); };
  for (Message& m : messages) {
    if (m.content.is_string() && is_blank(m.content.text) && !m.content.text.empty()) {
      m.content.text.clear();
      m.touch();
    }
    erase_blocks(m, blank_text);
    if (!m.content.is_blocks()) {
      continue;
    }
    for (Block& b : m.content.blocks) {
      if (b.type != BlockType::tool_result || !b.result.is_blocks()) {
        continue;
      }
      auto& inner = b.result.blocks;
      std::size_t before = inner.size();
      std::erase_if(inner, blank_text);
      if (b.is_error.value_or(false)) {
        // The API takes only text in an error result.
        std::erase_if(inner, [](const Block& x) { return x.type != BlockType::text; });
      }
      if (inner.size() != before) {
        if (inner.empty()) {
          b.result.form = Content::Form::absent;
        }
        m.touch();
      }
    }
  }
}

// Assistant messages with nothing the API would take: empty, or thinking only (a
// response cut off before it said anything).
void remove_empty_assistants(std::vector<Message>& messages) {
  std::erase_if(messages, [](const Message& m) {
    if (m.role != Role::assistant) {
      return false;
    }
    if (m.content.is_string()) {
      return m.content.text.empty();
    }
    if (!m.content.is_blocks()) {
      return true;
    }
    return std::all_of(m.content.blocks.begin(), m.content.blocks.end(), is_thinking);
  });
}

// A response with a tool call that no result answers anywhere goes whole, text and
// all, as Claude Code leaves it out when it loads a session; except the last
// response, whose calls the session ended in (pair_tools answers them).
void drop_unanswered_responses(std::vector<Message>& messages) {
  std::size_t last_assistant = messages.size();
  std::unordered_set<std::string_view> answered;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const Message& m = messages[i];
    if (m.role == Role::assistant) {
      last_assistant = i;
    } else if (m.content.is_blocks()) {
      for (const Block& b : m.content.blocks) {
        if (b.type == BlockType::tool_result) {
          answered.insert(b.id);
        }
      }
    }
  }
  std::size_t i = 0;
  std::erase_if(messages, [&](const Message& m) {
    bool last = i++ == last_assistant;
    if (last || m.role != Role::assistant) {
      return false;
    }
    std::vector<const Block*> calls = m.tool_uses();
    return std::any_of(calls.begin(), calls.end(),
                       [&](const Block* use) { return !answered.contains(use->id); });
  });
}

void merge_adjacent(std::vector<Message>& messages) {
  std::size_t kept = 0;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    if (kept > 0 && joins(messages[kept - 1], messages[i])) {
      append_content(messages[kept - 1], std::move(messages[i]), nullptr, nullptr, nullptr,
                     nullptr);
      continue;
    }
    if (kept != i) {
      messages[kept] = std::move(messages[i]);
    }
    ++kept;
  }
  messages.erase(messages.begin() + static_cast<std::ptrdiff_t>(kept), messages.end());
}

Message empty_user_message(const Message& after) {
  Message m;
  m.kind = Kind::turn;
  m.role = Role::user;
  m.origin = after.origin;
  m.where = after.where;
  m.content.form = Content::Form::blocks;
  m.modified = true;
  return m;
}

// Each tool_use id once: the API rejects a repeated one (a response written twice).
void dedupe_tool_uses(std::vector<Message>& messages) {
  std::vector<BlockAt> duplicates = duplicate_tool_uses(messages);
  // Last first, so that the indexes of the ones before stay right.
  for (auto it = duplicates.rbegin(); it != duplicates.rend(); ++it) {
    auto& blocks = messages[it->message].content.blocks;
    blocks.erase(blocks.begin() + static_cast<std::ptrdiff_t>(it->block));
    messages[it->message].touch();
  }
}

constexpr std::size_t k_no_message = static_cast<std::size_t>(-1);

// Step 6: every tool_use is answered in the next message, which is a user message;
// every tool_result answers a tool_use of the message before it; results come first.
void pair_tools(std::vector<Message>& messages) {
  // Room for the answers.
  bool room = false;
  for (std::size_t i = 0; i < messages.size() && !room; ++i) {
    room = messages[i].role == Role::assistant && messages[i].has_tool_uses() &&
           (i + 1 == messages.size() || messages[i + 1].role != Role::user);
  }
  if (room) {
    std::vector<Message> spaced;
    spaced.reserve(messages.size() + 8);
    for (std::size_t i = 0; i < messages.size(); ++i) {
      bool needs = messages[i].role == Role::assistant && messages[i].has_tool_uses() &&
                   (i + 1 == messages.size() || messages[i + 1].role != Role::user);
      spaced.push_back(std::move(messages[i]));
      if (needs) {
        spaced.push_back(empty_user_message(spaced.back()));
      }
    }
    messages = std::move(spaced);
  }
  // The calls of the last assistant message: the session ended before their results.
  std::size_t last_assistant = k_no_message;
  for (std::size_t i = messages.size(); i-- > 0;) {
    if (messages[i].role == Role::assistant) {
      last_assistant = i;
      break;
    }
  }
  // A call with no answer in the next message gets the transcript's result from
  // later on (link_tools: a result answers the latest call of its id before it), or
  // else an error result. Ids are unique here (dedupe_tool_uses).
  struct Answer {
    bool next = false;                 // in the message right after the call
    std::size_t later = k_no_message;  // else the first message after that with one
  };
  std::unordered_map<std::string_view, Answer> answer_of;
  for (const ToolLink& link : link_tools(messages).links) {
    Answer& answer = answer_of[link.id];
    if (link.result == link.call + 1) {
      answer.next = true;
    } else if (answer.later == k_no_message) {
      answer.later = link.result;
    }
  }
  std::vector<std::pair<std::size_t, Block>> answers;  // (message, block to add)
  for (std::size_t i = 0; i < messages.size(); ++i) {
    if (messages[i].role != Role::assistant) {
      continue;
    }
    for (const Block* use : messages[i].tool_uses()) {
      auto found = answer_of.find(use->id);
      if (found != answer_of.end() && found->second.next) {
        continue;
      }
      if (found != answer_of.end() && found->second.later != k_no_message) {
        const auto& blocks = messages[found->second.later].content.blocks;
        auto result = std::find_if(blocks.begin(), blocks.end(), [&](const Block& b) {
          return b.type == BlockType::tool_result && b.id == use->id;
        });
        answers.emplace_back(i + 1, *result);
      } else {
        Content text;
        text.form = Content::Form::string;
        text.text = std::string(i == last_assistant ? k_interrupted_result : k_missing_result);
        answers.emplace_back(i + 1, Block::make_tool_result(use->id, std::move(text), true));
      }
    }
  }
  for (auto& [index, block] : answers) {
    Message& m = messages[index];
    to_blocks(m.content, nullptr, BlockOrigin{});
    m.content.blocks.push_back(std::move(block));
    m.touch();
  }
  // Results that answer nothing in the message before (moved ones included), and
  // second results for one call, go; results go first.
  bool orphans = false;
  for (std::size_t j = 0; j < messages.size(); ++j) {
    Message& m = messages[j];
    if (m.role != Role::user || !m.has_tool_results()) {
      continue;
    }
    std::vector<const Block*> calls;
    if (j > 0 && messages[j - 1].role == Role::assistant) {
      calls = messages[j - 1].tool_uses();
    }
    // Each call answered once; an answered call's entry is cleared.
    erase_blocks(m, [&](const Block& b) {
      if (b.type != BlockType::tool_result) {
        return false;
      }
      auto call = std::find_if(calls.begin(), calls.end(),
                               [&](const Block* use) { return use != nullptr && use->id == b.id; });
      if (call == calls.end()) {
        return true;
      }
      *call = nullptr;
      return false;
    });
    auto& blocks = m.content.blocks;
    if (blocks.empty()) {
      // Claude Code's pairing step says why the first message is empty, and drops a
      // later one that follows no assistant message.
      if (j == 0) {
        blocks.push_back(Block::make_text(std::string(k_orphaned_result)));
      } else if (messages[j - 1].role != Role::assistant) {
        orphans = true;
        continue;
      }
    }
    if (!std::is_partitioned(blocks.begin(), blocks.end(),
                             [](const Block& b) { return b.type == BlockType::tool_result; })) {
      std::stable_partition(blocks.begin(), blocks.end(),
                            [](const Block& b) { return b.type == BlockType::tool_result; });
      m.touch();
    }
  }
  if (orphans) {
    std::erase_if(messages, [](const Message& m) {
      return m.role == Role::user && m.content.is_blocks() && m.content.blocks.empty();
    });
    merge_adjacent(messages);
  }
}

// Step 7: a user or system message left with no content says so.
void fill_empty(std::vector<Message>& messages) {
  for (Message& m : messages) {
    bool empty = m.content.is_string() ? m.content.text.empty() : !has_content(m.content);
    if (empty) {
      m.content.form = Content::Form::string;
      m.content.blocks.clear();
      m.content.text = std::string(k_no_content);
      m.touch();
    }
  }
}

// The last message, when it is the assistant's, may not end in a thinking block or
// in whitespace: the API rejects both in a final assistant message.
void tidy_final_assistant(std::vector<Message>& messages) {
  while (!messages.empty() && messages.back().role == Role::assistant) {
    Message& m = messages.back();
    if (m.content.is_string()) {
      std::size_t end = m.content.text.find_last_not_of(k_whitespace);
      std::size_t keep = end == std::string::npos ? 0 : end + 1;
      if (keep != m.content.text.size()) {
        m.content.text.edit().resize(keep);
        m.touch();
      }
      if (!m.content.text.empty()) {
        return;
      }
    } else if (m.content.is_blocks()) {
      auto& blocks = m.content.blocks;
      while (!blocks.empty() && is_thinking(blocks.back())) {
        blocks.pop_back();
        m.touch();
      }
      if (!blocks.empty() && blocks.back().type == BlockType::text) {
        std::string& text = blocks.back().text.edit();
        std::size_t end = text.find_last_not_of(k_whitespace);
        if (end == std::string::npos) {
          blocks.pop_back();
          m.touch();
          continue;
        }
        if (end + 1 != text.size()) {
          text.resize(end + 1);
          m.touch();
        }
      }
      if (!blocks.empty()) {
        return;
      }
    }
    messages.pop_back();
  }
}

void strip_cache_control(Content& content, Message& owner) {
  if (!content.is_blocks()) {
    return;
  }
  for (Block& b : content.blocks) {
    if (!b.cache_control.empty()) {
      b.cache_control.clear();
      owner.touch();
    }
    strip_cache_control(b.result, owner);
  }
}

// Ready for the anthropic encoder: a message the stage left alone, read from a line
// that holds nothing but role and content, keeps its bytes; any other is written
// afresh with only what the API takes.
void finalize(Message& m) {
  if (!m.modified && anthropic_as_is(m)) {
    return;
  }
  m.modified = true;
  m.json = nullptr;
  m.container.reset();
  m.slot = 0;
}

// A string inside a content list (which convo reads as a text block) goes as a text
// block: the API takes only objects there.
void blocks_as_objects(Content& content, Message& owner) {
  if (!content.is_blocks()) {
    return;
  }
  for (Block& b : content.blocks) {
    if (b.json != nullptr && b.json->IsString()) {
      b.json = nullptr;
      owner.touch();
    }
    blocks_as_objects(b.result, owner);
  }
}

// Tool calls under the names Claude Code 2.1.330 gives their tools.
void rename_tools(std::vector<Message>& messages) {
  for (Message& m : messages) {
    if (m.role != Role::assistant || !m.content.is_blocks() || !calls_claude_code_tools(m.origin)) {
      continue;
    }
    for (Block& b : m.content.blocks) {
      if (b.type == BlockType::tool_use && b.name == "Task") {
        b.name = "Agent";
        m.touch();
      }
    }
  }
}

}  // namespace

std::vector<Message> repair_for_api(std::vector<Message> messages, const NormalizeOptions& options) {
  drop_foreign_roles(messages, options);
  drop_misplaced_blocks(messages, options);
  fix_tool_inputs(messages, options);
  select_thinking(messages, options.thinking, options.model);
  dedupe_tool_uses(messages);
  remove_blank_text(messages);
  remove_empty_assistants(messages);
  drop_unanswered_responses(messages);
  merge_adjacent(messages);
  pair_tools(messages);
  fill_empty(messages);
  tidy_final_assistant(messages);
  if (options.tool_names == NormalizeOptions::ToolNames::current) {
    rename_tools(messages);
  }
  for (Message& m : messages) {
    if (options.strip_cache_control) {
      strip_cache_control(m.content, m);
    }
    blocks_as_objects(m.content, m);
    finalize(m);
  }
  return messages;
}

}  // namespace convo
