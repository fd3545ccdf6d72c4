#include "stages/normalize_for_api.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "formats/anthropic_blocks.h"
#include "io/input.h"
#include "io/output.h"
#include "session_tree.h"
#include "stages/claude_code_attachments.h"
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

bool starts_with_tool_result(const Message& message) {
  return message.content.is_blocks() && !message.content.blocks.empty() &&
         message.content.blocks.front().type == BlockType::tool_result;
}

}  // namespace

BlockHolder anthropic_block_holder(BlockType type) {
  switch (type) {
    case BlockType::tool_use:
    case BlockType::server_tool_use:
    case BlockType::server_tool_result:
    case BlockType::thinking:
    case BlockType::redacted_thinking:
      return BlockHolder::assistant;
    case BlockType::tool_result:
    case BlockType::image:
    case BlockType::document:
      return BlockHolder::user;
    case BlockType::audio:
    case BlockType::video:
    case BlockType::file:
      return BlockHolder::none;
    case BlockType::text:
    case BlockType::unknown:
      return BlockHolder::any;
  }
  return BlockHolder::any;
}

namespace {

// --- The view (steps 1-5) ---

// Claude Code follows the result of a tool search (a tool_result holding
// tool_reference blocks) with the text "Tool loaded.", unless the record has it.
void mark_tools_loaded(Message& record) {
  static constexpr std::string_view k_tool_loaded = "Tool loaded.";
  if (!record.content.is_blocks()) {
    return;
  }
  const auto& blocks = record.content.blocks;
  bool references = std::any_of(blocks.begin(), blocks.end(), [](const Block& b) {
    return b.type == BlockType::tool_result && b.result.is_blocks() &&
           std::any_of(b.result.blocks.begin(), b.result.blocks.end(),
                       [](const Block& x) { return x.type_name == "tool_reference"; });
  });
  bool marked = std::any_of(blocks.begin(), blocks.end(), [](const Block& b) {
    return b.type == BlockType::text && b.text.starts_with(k_tool_loaded);
  });
  if (references && !marked) {
    record.content.blocks.push_back(Block::make_text(std::string(k_tool_loaded)));
    record.touch();
  }
}

// A task notification's text, framed as Claude Code sends it: string content stays a
// string; the text blocks of a list become one, ahead of the other blocks.
void frame_task_notification(Message& record) {
  Content& content = record.content;
  if (content.is_string()) {
    content.text = claude_code_task_notification(content.text);
  } else if (content.is_blocks()) {
    std::string text;
    bool first = true;
    std::vector<Block> others;
    for (Block& b : content.blocks) {
      if (b.type == BlockType::text) {
        text += first ? "" : "\n";
        text += b.text;
        first = false;
      } else {
        others.push_back(std::move(b));
      }
    }
    content.blocks.clear();
    content.blocks.push_back(Block::make_text(claude_code_task_notification(text)));
    for (Block& b : others) {
      content.blocks.push_back(std::move(b));
    }
  } else {
    return;
  }
  record.touch();
}

// Claude Code's API error messages: it leaves out an assistant record only when it
// is marked isApiErrorMessage and its model is <synthetic>; either alone is not
// enough. Other formats' error records carry the flag alone.
bool is_api_error_message(const Message& record) {
  if (!record.envelope.is_api_error) {
    return false;
  }
  if (record.json == nullptr || !record.json->IsObject()) {
    return true;
  }
  const JsonValue* flag = find_member(*record.json, "isApiErrorMessage");
  return flag != nullptr && flag->IsBool() && flag->GetBool() &&
         record.envelope.model == "<synthetic>";
}

// A tombstone record ({"type":"tombstone","message":{"uuid":...}}, in Claude Code's
// SDK stream output) takes back the last message before it with that uuid, as
// Claude Code does with the messages it streams. (Its session logs never hold one.)
void apply_tombstones(std::vector<Message>& records) {
  std::unordered_map<std::string_view, std::size_t> last;  // uuid -> latest record so far
  std::vector<std::size_t> removed;
  for (std::size_t i = 0; i < records.size(); ++i) {
    Message& record = records[i];
    if (record.record_type == "tombstone" && record.json != nullptr && record.json->IsObject()) {
      const JsonValue* message = find_member(*record.json, "message");
      std::optional<std::string_view> uuid =
          message != nullptr ? string_member(*message, "uuid") : std::nullopt;
      if (uuid) {
        if (auto found = last.find(*uuid); found != last.end()) {
          removed.push_back(found->second);
          last.erase(found);
        }
      }
      continue;
    }
    if (!record.envelope.uuid.empty()) {
      last[record.envelope.uuid] = i;
    }
  }
  for (std::size_t i : removed) {
    // Out of the view; its place in the session tree stays, so that the thread
    // through it holds.
    records[i].kind = Kind::unknown;
  }
}

BlockOrigin origin_of(const Message& record, std::size_t index = BlockOrigin::k_whole) {
  return BlockOrigin{record.where, record.container, record.slot, index};
}

ApiMessage start_message(Message&& record, bool origins) {
  ApiMessage out;
  out.origin = origin_of(record);
  if (origins && record.content.is_blocks()) {
    out.block_origins.reserve(record.content.blocks.size());
    for (std::size_t i = 0; i < record.content.blocks.size(); ++i) {
      out.block_origins.push_back(origin_of(record, i));
    }
  }
  out.message = std::move(record);
  return out;
}

// A user message holding `text`, made from `record` (an attachment or a local
// command's output).
ApiMessage made_user_message(const Message& record, std::string text, bool as_blocks,
                             bool origins) {
  ApiMessage out;
  Message& m = out.message;
  m.kind = Kind::turn;
  m.role = Role::user;
  m.origin = record.origin;
  m.where = record.where;
  m.envelope.uuid = record.envelope.uuid;
  m.envelope.session_id = record.envelope.session_id;
  m.envelope.is_meta = true;
  m.modified = true;
  out.origin = origin_of(record);
  if (as_blocks) {
    m.content.form = Content::Form::blocks;
    m.content.blocks.push_back(Block::make_text(std::move(text)));
    if (origins) {
      out.block_origins.push_back(out.origin);
    }
  } else {
    m.content.form = Content::Form::string;
    m.content.text = std::move(text);
  }
  return out;
}

// The record type of a user message made from an attachment (and of a message whose
// last piece is one): its text joins the next without a newline.
constexpr std::string_view k_attachment_record = "attachment";

// Turns string content into a block list (a string becomes one text block, kept even
// when empty so that `check` still sees it).
void to_blocks(Content& content, std::vector<BlockOrigin>* origins, const BlockOrigin& origin) {
  if (content.is_blocks()) {
    return;
  }
  if (content.is_string()) {
    content.blocks.push_back(Block::make_text(std::move(content.text)));
    content.text.clear();
    if (origins != nullptr) {
      origins->push_back(origin);
    }
  }
  content.form = Content::Form::blocks;
}

// Appends the content of `from` to `into`, which becomes a block list.
void append_content(Message& into, Message&& from, std::vector<BlockOrigin>* into_origins,
                    const BlockOrigin* into_origin, std::vector<BlockOrigin>* from_origins,
                    const BlockOrigin* from_origin) {
  static const BlockOrigin k_none;
  to_blocks(into.content, into_origins, into_origin != nullptr ? *into_origin : k_none);
  to_blocks(from.content, from_origins, from_origin != nullptr ? *from_origin : k_none);
  // Claude Code, loading its own session, joins user messages with a newline where
  // text meets text, but not two attachments' texts. Other transcripts are joined as
  // the API joins them, block after block, so that `check` sees a request's blocks
  // as the API does.
  auto& blocks = into.content.blocks;
  if (into.role == Role::user && calls_claude_code_tools(into.origin) && !blocks.empty() && blocks.back().type == BlockType::text &&
      !from.content.blocks.empty() && from.content.blocks.front().type == BlockType::text &&
      !(into.record_type == k_attachment_record && from.record_type == k_attachment_record)) {
    blocks.back().text += '\n';
  }
  into.record_type = from.record_type;  // what the message now ends with
  for (Block& block : from.content.blocks) {
    into.content.blocks.push_back(std::move(block));
  }
  if (into_origins != nullptr && from_origins != nullptr) {
    into_origins->insert(into_origins->end(), from_origins->begin(), from_origins->end());
  }
  into.touch();
}

void append_api(ApiMessage& into, ApiMessage&& from, bool origins) {
  if (!origins) {
    append_content(into.message, std::move(from.message), nullptr, nullptr, nullptr, nullptr);
    return;
  }
  append_content(into.message, std::move(from.message), &into.block_origins, &into.origin,
                 &from.block_origins, &from.origin);
}

bool mergeable(Role role) {
  return role == Role::user || role == Role::assistant || role == Role::system;
}

// Whether `next` joins `last`, the message before it: messages of one role in a row
// become one, except the assistant's responses, which Claude Code keeps apart when
// their message ids say they are two.
bool joins(const Message& last, const Message& next) {
  if (last.role != next.role || !mergeable(next.role)) {
    return false;
  }
  return next.role != Role::assistant || last.envelope.message_id.empty() ||
         next.envelope.message_id.empty() || last.envelope.message_id == next.envelope.message_id;
}

// How a view is made.
struct ViewMode {
  bool origins = false;        // record where each block came from (for check's reports)
  bool tool_messages = false;  // keep tool messages apart (OpenAI's view)
};

std::vector<ApiMessage> view_items(std::vector<Message>& records,
                                   const std::vector<std::size_t>& thread, std::vector<bool>& used,
                                   ViewMode mode) {
  const bool origins = mode.origins;
  // Step 2: what the API sees of each record. Attachments are held as they are
  // until step 3 has put them in place.
  std::vector<ApiMessage> items;
  items.reserve(thread.size());
  for (std::size_t index : thread) {
    if (used[index]) {
      continue;
    }
    used[index] = true;
    Message& record = records[index];
    switch (record.kind) {
      case Kind::turn:
        if (record.envelope.is_virtual || is_api_error_message(record)) {
          break;
        }
        if (record.role == Role::user && record.json != nullptr && record.json->IsObject() &&
            is_claude_code_task_notification(*record.json)) {
          frame_task_notification(record);
        }
        if (record.role == Role::user && calls_claude_code_tools(record.origin)) {
          mark_tools_loaded(record);
        }
        if (record.role == Role::developer) {
          record.role = Role::system;
          record.touch();
        } else if (record.role == Role::tool && !mode.tool_messages) {
          record.role = Role::user;  // tool results ride in user messages
          record.touch();
        }
        items.push_back(start_message(std::move(record), origins));
        break;
      case Kind::event:
        // Claude Code sends the output of local commands (/model, /cost, ...) as user text.
        if (record.envelope.subtype == "local_command" && record.content.is_string()) {
          items.push_back(
              made_user_message(record, std::move(record.content.text), false, origins));
        }
        break;
      case Kind::attachment: {
        const JsonValue* attachment =
            record.json != nullptr ? find_member(*record.json, "attachment") : nullptr;
        std::string text = attachment != nullptr ? claude_code_attachment_text(*attachment) : "";
        if (!text.empty()) {
          ApiMessage m = made_user_message(
              record, "<system-reminder>\n" + text + "\n</system-reminder>", true, origins);
          m.message.kind = Kind::attachment;  // until step 3 has put it in place
          m.message.record_type = std::string(k_attachment_record);
          items.push_back(std::move(m));
        }
        break;
      }
      default:
        break;  // progress, summaries, bookkeeping, unknown and bad records
    }
  }

  return items;
}

ApiConversation build_view(std::vector<ApiMessage> items, ViewMode mode) {
  const bool origins = mode.origins;
  // Step 3: attachments move up to just after the nearest assistant message or tool
  // result message before them (Claude Code's reorderAttachmentsForAPI).
  std::vector<std::size_t> order;
  order.reserve(items.size());
  std::vector<std::size_t> lifted;
  std::vector<std::size_t> rest;
  auto close_segment = [&] {
    order.insert(order.end(), lifted.begin(), lifted.end());
    order.insert(order.end(), rest.begin(), rest.end());
    lifted.clear();
    rest.clear();
  };
  for (std::size_t i = 0; i < items.size(); ++i) {
    Message& m = items[i].message;
    if (m.kind == Kind::attachment) {
      m.kind = Kind::turn;
      lifted.push_back(i);
    } else if (m.role == Role::assistant || (m.role == Role::user && starts_with_tool_result(m))) {
      close_segment();
      order.push_back(i);
    } else {
      rest.push_back(i);
    }
  }
  close_segment();

  // Steps 4 and 5: the records of one response become one assistant message, and
  // messages of one role in a row become one.
  ApiConversation out;
  out.reserve(order.size());
  // As Claude Code does, a piece of a response joins an earlier piece of it found by
  // looking back over assistant messages and tool results. The look-back is an
  // index (looking back message by message was quadratic: an agent run of 40,000
  // tool calls took a minute): the last assistant message of each response id
  // since the last message that is neither.
  std::unordered_map<std::string, std::size_t> response_at;
  for (std::size_t i : order) {
    ApiMessage& item = items[i];
    Message& m = item.message;
    if (m.role == Role::assistant && m.is_turn() && !m.envelope.message_id.empty() &&
        m.origin != Format::openai) {  // OpenAI choices share an id but are alternatives
      auto found = response_at.find(m.envelope.message_id);
      if (found != response_at.end()) {
        append_api(out[found->second], std::move(item), origins);
        continue;
      }
    }
    bool tool_join = mode.tool_messages && m.role == Role::tool;
    if (!out.empty() &&
        (joins(out.back().message, m) || (tool_join && out.back().message.role == Role::tool))) {
      append_api(out.back(), std::move(item), origins);
      continue;
    }
    out.push_back(std::move(item));
    const Message& added = out.back().message;
    if (added.role == Role::assistant) {
      if (added.is_turn() && !added.envelope.message_id.empty()) {
        response_at[added.envelope.message_id] = out.size() - 1;
      }
    } else if (added.role != Role::user || !starts_with_tool_result(added)) {
      response_at.clear();  // the look-back stops here
    }
  }
  return out;
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
        b.input_value = nullptr;
        m.touch();
      }
    }
  }
}

// Step 8: which thinking blocks go to the API.
void select_thinking(std::vector<Message>& messages, NormalizeOptions::Thinking mode) {
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
    erase_blocks(m, [&](const Block& b) {
      if (!is_thinking(b)) {
        return false;
      }
      if (mode == NormalizeOptions::Thinking::drop) {
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
        m.content.text.resize(keep);
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
        std::string& text = blocks.back().text;
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
  bool pristine = !m.modified && m.origin == Format::anthropic && !m.container && !m.raw.empty() &&
                  m.json != nullptr && m.json->IsObject() && m.json->MemberCount() == 2 &&
                  find_member(*m.json, "role") != nullptr &&
                  find_member(*m.json, "content") != nullptr;
  if (pristine) {
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

std::vector<Message> repair(ApiConversation view, const NormalizeOptions& options) {
  std::vector<Message> messages;
  messages.reserve(view.size());
  for (ApiMessage& m : view) {
    messages.push_back(std::move(m.message));
  }
  drop_foreign_roles(messages, options);
  drop_misplaced_blocks(messages, options);
  fix_tool_inputs(messages, options);
  select_thinking(messages, options.thinking);
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

}  // namespace

namespace {

std::vector<ApiConversation> views(std::vector<Message>& records, const NormalizeOptions& options,
                                   ViewMode mode) {
  apply_tombstones(records);
  std::vector<std::vector<std::size_t>> threads;
  {
    SessionTree tree(records);
    threads.push_back(tree.main_thread());
    if (options.sidechains) {
      for (std::vector<std::size_t>& thread : tree.sidechain_threads()) {
        threads.push_back(std::move(thread));
      }
    }
  }
  std::vector<bool> used(records.size(), false);
  // Step 2 for every thread, then the records go (their messages are in the items
  // now) before steps 3-5 build each view beside its items: a conversation is held
  // twice at most, not three times (records, items and view; 5 million short
  // records took 15 GB).
  std::vector<std::vector<ApiMessage>> items;
  items.reserve(threads.size());
  for (const std::vector<std::size_t>& thread : threads) {
    items.push_back(view_items(records, thread, used, mode));
  }
  std::vector<Message>().swap(records);
  std::vector<ApiConversation> out;
  for (std::vector<ApiMessage>& thread_items : items) {
    ApiConversation view = build_view(std::move(thread_items), mode);
    if (!view.empty()) {
      out.push_back(std::move(view));
    }
  }
  return out;
}

}  // namespace

std::vector<ApiConversation> api_view(std::vector<Message> records, const NormalizeOptions& options,
                                      bool tool_messages) {
  return views(records, options, ViewMode{true, tool_messages});
}

std::vector<std::vector<Message>> normalize_for_api(std::vector<Message> records,
                                                    const NormalizeOptions& options) {
  std::vector<std::vector<Message>> out;
  for (ApiConversation& view : views(records, options, ViewMode{})) {
    std::vector<Message> messages = repair(std::move(view), options);
    if (!messages.empty()) {
      out.push_back(std::move(messages));
    }
  }
  return out;
}

void slim_for_api(Message& record) {
  bool needed = false;
  switch (record.kind) {
    case Kind::turn:
    case Kind::attachment:
    case Kind::invalid:
      needed = true;
      break;
    case Kind::event:
      needed = record.envelope.subtype == "local_command";
      break;
    case Kind::unknown:
      needed = record.record_type == "tombstone";
      break;
    default:
      break;
  }
  if (record.origin != Format::anthropic || !needed) {
    std::string().swap(record.raw);
  }
  if (!needed) {
    record.source.reset();
    record.json = nullptr;
    record.content = Content{};
  }
}

namespace {

class ApiViewStage final : public StreamStage {
 public:
  ApiViewStage(ConversationStage::SplitFunction function, GroupBy group_by)
      : m_inner(std::move(function), group_by) {}

  void push(Message&& message, MessageSink& next) override {
    slim_for_api(message);
    m_inner.push(std::move(message), next);
  }
  void finish(MessageSink& next) override { m_inner.finish(next); }

 private:
  ConversationStage m_inner;
};

}  // namespace

std::unique_ptr<StreamStage> make_api_view_stage(ConversationStage::SplitFunction function,
                                                 GroupBy group_by) {
  return std::make_unique<ApiViewStage>(std::move(function), group_by);
}

std::unique_ptr<StreamStage> make_normalize_stage(NormalizeOptions options, GroupBy group_by) {
  return make_api_view_stage(
      [options = std::move(options)](std::vector<Message> records) {
        return normalize_for_api(std::move(records), options);
      },
      // Claude Code resumes a file whole: a session that continues another's
      // records is the same conversation.
      group_by == GroupBy::session ? GroupBy::session_chains : group_by);
}

}  // namespace convo
