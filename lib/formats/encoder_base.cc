// What every format's encoder shares (EncoderBase in format.h): writing unchanged
// records as their own bytes, the records of one reply joined into one turn, what a
// target cannot hold counted by name, and the UTF-8 check on what convo writes.
// Containers and API bodies written whole are in encoder_bodies.cc.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>

#include "formats/anthropic_blocks.h"
#include "formats/encoder_parts.h"
#include "formats/format.h"

#include "formats/api_body.h"
#include "formats/api_error.h"
#include "formats/fields.h"
#include "formats/json_out.h"
#include "formats/responses_items.h"
#include "formats/session_ids.h"
#include "io/output.h"
#include "utf8.h"

namespace convo {

namespace {

bool is_session_turn(const JsonValue& element) {
  auto type = element.IsObject() ? string_member(element, "type") : std::nullopt;
  return type && (*type == "user" || *type == "gemini");  // not info, error, ...
}

// True when a Gemini CLI session holds a turn (a user or gemini message), which the
// other formats keep; true too for a session that has no `messages` array to say.
bool session_has_turns(const JsonValue& root) {
  const JsonValue* messages = find_member(root, "messages");
  return messages == nullptr || !messages->IsArray() ||
         std::any_of(messages->Begin(), messages->End(), is_session_turn);
}

// True when a Gemini CLI session's `startTime` (`key`, or `lastUpdated`) is the time
// of its first (last) turn, which is what a chat written from its turns gets back;
// true too for a session that has no `messages` array to say.
bool session_time_of_turns(std::string_view key, const JsonValue& value, const JsonValue& root) {
  const JsonValue* messages = find_member(root, "messages");
  if (messages == nullptr || !messages->IsArray()) {
    return true;
  }
  std::optional<std::string_view> first, last;
  for (const JsonValue& element : messages->GetArray()) {
    if (!is_session_turn(element)) {
      continue;  // info, error, ...: records other formats do not keep as turns
    }
    if (auto time = string_member(element, "timestamp")) {
      first = first ? first : time;
      last = time;
    }
  }
  auto turn = key == "startTime" ? first : last;
  return turn && value.IsString() && *turn == view_of(value);
}

// True when a tool call's arguments are JSON text (OpenAI's `arguments` string) that
// a format holding them as an object gives back spelled otherwise: the object,
// written compactly, is not the text (`{"a": 1}` comes back as `{"a":1}`).
bool argument_text_respelled(const Block& block) {
  if (block.type != BlockType::tool_use || block.input.empty() || block.input_as_written) {
    return false;
  }
  return json_object_as_written(block.input) == false;
}

// Whether a stage merged records into `message` (RecordMeta::merged). Only a stage
// merges, and it marks what it changes: an unchanged message is told without a
// look at its metadata, which is elsewhere in memory.
bool has_merged(const Message& message) {
  return message.modified && !message.meta->merged.empty();
}

bool thinking_alone(const Content& content) {
  return content.is_blocks() && !content.blocks.empty() &&
         std::all_of(content.blocks.begin(), content.blocks.end(), [](const Block& b) {
           return b.type == BlockType::thinking || b.type == BlockType::redacted_thinking;
         });
}

bool all_tool_results(const Content& content) {
  return content.is_blocks() && !content.blocks.empty() &&
         std::all_of(content.blocks.begin(), content.blocks.end(),
                     [](const Block& b) { return b.type == BlockType::tool_result; });
}

// A content that is a string (or none) counts as text on either edge.
bool ends_in_text(const Content& content) {
  return !content.is_blocks() ||
         (!content.blocks.empty() && content.blocks.back().type == BlockType::text);
}
bool starts_with_text(const Content& content) {
  return !content.is_blocks() ||
         (!content.blocks.empty() && content.blocks.front().type == BlockType::text);
}

}  // namespace

void check_utf8(std::string_view value, const Location& where, std::string_view raw,
                std::span<const JoinedRecord> joined, bool merged) {
  std::optional<std::size_t> bad = find_invalid_utf8(value);
  if (!bad) {
    return;
  }
  Location at = where;
  unsigned byte = static_cast<unsigned char>(value[*bad]);
  auto point_at = [&](const Location& record, std::string_view bytes) {
    std::optional<std::size_t> in_raw = find_invalid_utf8(bytes);
    if (!in_raw) {
      return false;
    }
    at = record;
    byte = static_cast<unsigned char>(bytes[*in_raw]);
    std::size_t line_start = bytes.rfind('\n', *in_raw);
    line_start = line_start == std::string::npos ? 0 : line_start + 1;
    at.line += static_cast<std::uint64_t>(
        std::count(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(*in_raw), '\n'));
    at.column = *in_raw - line_start + 1;
    return true;
  };
  if (!point_at(where, raw)) {
    for (const JoinedRecord& record : joined) {
      if (point_at(Location{where.file, record.line, 0}, record.raw.view())) {
        break;
      }
    }
  }
  std::string what = fmt::format(
      "invalid UTF-8 (byte 0x{:02x}): a record convo re-encodes must be valid UTF-8", byte);
  if (joined.empty()) {
    throw EncodeError(at, std::move(what), std::string(raw));
  }
  // --on-error keep writes the reply's records as they were read, one after another.
  std::string all(raw);
  for (const JoinedRecord& record : joined) {
    all += '\n';
    all += record.raw.view();
  }
  if (merged) {
    what += fmt::format(" (a message merged from {} records, lines {} to {}: --on-error skip or "
                        "keep takes them together)",
                        joined.size() + 1, where.line, joined.back().line);
  } else {
    what += fmt::format(" (lines {}-{} are one turn in this format: --on-error skip or keep takes "
                        "them together)",
                        where.line, joined.back().line);
  }
  throw EncodeError(at, std::move(what), std::move(all));
}

std::string_view container_noun(const Container& container) {
  const std::string& key = container.array_key;
  switch (container.format) {
    case Format::anthropic:
    case Format::openai:
      return key == "messages" ? "request bodies" : key == "choices" ? "response bodies" : "";
    case Format::openai_responses:
      return key == "input" ? "request bodies" : key == "output" ? "response bodies" : "";
    case Format::gemini:
      return key == "contents" ? "request bodies" : key == "candidates" ? "response bodies" : "";
    case Format::gemini_cli:
      return key == "messages" ? "chat sessions" : "";  // not a `session-*.jsonl` message line
    default:
      return "";
  }
}

bool item_joins_reply(const Message& reply, const Message& item) {
  if (!item.is_turn() || item.role != reply.role) {
    return false;
  }
  if (reply.role == Role::tool) {
    return true;
  }
  if (reply.role != Role::assistant) {
    return false;
  }
  return !(ends_in_text(reply.content) && starts_with_text(item.content));
}

void append_reply_item(Message& reply, Message&& item) {
  auto as_blocks = [](Content& content) {
    if (!content.is_blocks()) {
      Text text = std::move(content.text);
      bool had_text = content.form == Content::Form::string;
      content = Content{};
      content.form = Content::Form::blocks;
      if (had_text) {
        content.blocks.push_back(Block::make_text(std::move(text)));
      }
    }
  };
  as_blocks(reply.content);
  as_blocks(item.content);
  // Room for the item's blocks, doubling: a reply of many items moves each block
  // once, not at every growth of a vector grown one block at a time.
  std::vector<Block>& blocks = reply.content.blocks;
  if (const std::size_t needed = blocks.size() + item.content.blocks.size();
      needed > blocks.capacity()) {
    blocks.reserve(std::max(needed, 2 * blocks.capacity()));
  }
  for (Block& block : item.content.blocks) {
    reply.content.blocks.push_back(std::move(block));
  }
  if (reply.usage->empty()) {
    reply.usage = item.usage;
  }
  reply.modified = true;
}

void EncoderBase::write(Message&& message, Output& out) {
  if (!message.modified && reshapes(message)) {
    message.modified = true;
  }
  if (m_reply) {
    if (joins_reply(message)) {
      join_reply(std::move(message));
      return;
    }
    // Bookkeeping lines between the items (Codex's event_msg, turn_context) are
    // dropped by every other format: they do not end the reply.
    bool passes = (holds_responses_items(message.origin) ||
                   format_traits(message.origin).splits_replies) &&
                  !message.container && message.kind != Kind::turn &&
                  message.kind != Kind::invalid;
    if (!passes) {
      try {
        write_reply(out);
      } catch (EncodeError& error) {
        error.set_next(std::move(message));
        throw;
      }
    }
  }
  if (m_container && message.container != m_container) {
    try {
      close_container(out);
    } catch (EncodeError& error) {
      error.set_next(std::move(message));
      throw;
    }
  }
  if (message.kind == Kind::invalid) {
    write_drained(out);
    out.write_line(message.raw);
    return;
  }
  if (message.container &&
      (message.container->format == m_format || translates_body(message))) {
    if (!m_container) {
      write_drained(out);
    }
    m_container = message.container;
    m_held.push_back(std::move(message));
    return;
  }
  if (!message.container && translates_body(message)) {
    // An Anthropic response: one message that is the whole body.
    write_drained(out);
    const JsonValue& root = *message.json;
    Format from = message.origin;
    std::vector<Message> held;
    held.push_back(std::move(message));
    write_translated_body(root, from, true, held, out);
    return;
  }
  if (!message.modified && keeps_own_bytes(message, m_format)) {
    write_drained(out);
    out.write_line(message.raw);
    return;
  }
  release_bytes(message);
  drop_unheld(message);
  if (auto type = opaque_item_type(message); !type.empty()) {
    // An encrypted Responses reasoning item (no summary), a web_search_call, a
    // tool_search_output: no format outside the family has a place for it, and a
    // message without it would be an empty turn that reads back as a turn of its
    // own. Counted as its writers count it.
    drop(fmt::format("{} blocks", type), message);
    return;
  }
  if (starts_reply(message)) {
    m_reply = std::move(message);
    m_reply_blocks_seen = 0;
    m_reply_has_calls = false;
    take_merged(*m_reply);
    m_reply_cut_kept = record_cut_kept(*m_reply);
    m_reply_thinking_records =
        format_traits(m_reply->origin).splits_replies && thinking_alone(m_reply->content) ? 1 : 0;
    return;
  }
  if (!record_cut_kept(message)) {
    drop("Claude Code record splits", message);
  }
  note_calls(message);
  encode_and_write(message, out);
}


// A record of a reply that its log splits over records (Claude Code writes a
// response one record per content block, sharing message.id, and each tool result
// in a user record of its own), read for a format that holds a reply as one turn.
bool EncoderBase::splits_record(const Message& message) const {
  if (!format_traits(message.origin).splits_replies || format_info(m_format).splits_replies ||
      !message.is_turn()) {
    return false;
  }
  return message.role == Role::assistant ? !message.meta->message_id.empty()
                                         : message.role == Role::user &&
                                               all_tool_results(message.content);
}

// False when `message`, a Claude Code record written in another format, holds its
// blocks otherwise than the Claude Code writer cuts a turn (one record per block of
// a response, one per tool result): the way back cuts it otherwise.
bool EncoderBase::record_cut_kept(const Message& message) const {
  if (!format_traits(message.origin).splits_replies || format_info(m_format).splits_replies ||
      !message.is_turn() || !message.content.is_blocks() ||
      message.content.blocks.size() < 2) {
    return true;
  }
  // Only a record as it was read: a turn a stage made of several (normalize-for-api's
  // merge) was cut by the stage, not by this conversion.
  std::string_view member = format_traits(message.origin).message_member;
  const JsonValue* inner = message.json != nullptr && message.json->IsObject() && !member.empty()
                               ? find_member(*message.json, member)
                               : nullptr;
  const JsonValue* read = inner != nullptr && inner->IsObject() ? find_member(*inner, "content")
                                                                : nullptr;
  if (read == nullptr || !read->IsArray() || read->Size() != message.content.blocks.size()) {
    return true;
  }
  if (message.role == Role::assistant) {
    // The claude-code writer keeps a run of texts in one record.
    return std::all_of(message.content.blocks.begin(), message.content.blocks.end(),
                       [](const Block& b) { return b.type == BlockType::text; });
  }
  return std::none_of(message.content.blocks.begin(), message.content.blocks.end(),
                      [](const Block& b) { return b.type == BlockType::tool_result; });
}

// Remembers the tool calls of a Claude Code assistant turn, in their order: the
// results after it are held in them by a format whose results sit in their calls.
void EncoderBase::note_calls(const Message& message) {
  if (!format_traits(message.origin).splits_replies || message.role != Role::assistant ||
      !message.is_turn()) {
    return;
  }
  m_call_ids.clear();
  for (const Block& b : message.content.blocks) {
    if (b.type == BlockType::tool_use) {
      m_call_ids.push_back(b.id);
    }
  }
}

// True when the tool results of `message` (the user records of a Claude Code
// response's parallel calls) came in another order than the calls.
// The tool results of `message` that a format holding each result in its call gives
// back at another place: each not where the calls' order puts it (one a record, the
// records the way back changes).
std::size_t EncoderBase::results_moved(const Message& message) const {
  std::vector<std::ptrdiff_t> order;  // each answered call's place among the calls
  for (const Block& b : message.content.blocks) {
    auto at = std::find(m_call_ids.begin(), m_call_ids.end(), b.id);
    if (b.type == BlockType::tool_result && at != m_call_ids.end()) {
      order.push_back(at - m_call_ids.begin());
    }
  }
  std::vector<std::ptrdiff_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  std::size_t moved = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    moved += order[i] != sorted[i] ? 1 : 0;
  }
  return moved;
}

// A tool message of a format that keeps each result a message of its own (Chat's,
// LangChain's), written where the results of one turn's calls are one user message
// (the Messages API requires it): held in `m_reply` for the tool messages after it.
bool EncoderBase::starts_tool_results(const Message& message) const {
  return message.role == Role::tool && message.is_turn() && !message.container &&
         keeps_calls_apart(message.origin) && uses_anthropic_blocks(m_format) &&
         !format_info(m_format).splits_replies;
}

// An assistant item of the Responses family outside the family, or a Claude Code
// record of a split reply: held in `m_reply` for what joins it.
bool EncoderBase::starts_reply(const Message& message) const {
  if (splits_record(message) || starts_tool_results(message)) {
    return true;
  }
  return holds_responses_items(message.origin) && !holds_responses_items(m_format) &&
         !format_info(m_format).splits_replies && !message.container && message.is_turn() &&
         (message.role == Role::assistant || message.role == Role::tool);
}

// An assistant turn of another format written as Responses items right after
// another assistant turn's items, when a reader of the items joins the two into one
// reply (item_joins_reply: the items hold no boundary between turns, e.g. two Gemini
// model turns of calls alone, or a turn of text and the next of calls once what was
// between them was dropped): counted. Claude Code's records are cut otherwise.
void EncoderBase::note_items_turn(const Message& message) {
  if (!holds_responses_items(m_format) || holds_responses_items(message.origin) ||
      format_traits(message.origin).splits_replies || !message.is_turn()) {
    return;
  }
  bool joined = message.role == Role::assistant && m_items_reply_file &&
                *m_items_reply_file == message.where.file &&
                !(m_items_reply_ends_in_text && starts_with_text(message.content));
  if (joined) {
    drop("consecutive assistant turns", message);
  }
  m_items_reply_file.reset();
  if (message.role == Role::assistant) {
    m_items_reply_file = message.where.file;
    m_items_reply_ends_in_text = ends_in_text(message.content);
  }
}

// `message`, re-encoded into this format from another, needs the bytes it was read
// from only for an EncodeError: the column of its first invalid UTF-8 byte (bytes
// that have one are kept) and --on-error keep's line (kept under it). A long record
// (1 MiB or more, the long-line size of io/record_reader.h) lets them go before it
// is encoded or held for its reply, so that the line, its strings and their
// encoding are not all alive at once (issue 15: a 500 MB line is converted in twice
// its size, not three times), and so does each long record a stage merged into it.
// The Responses family writes its members' items as they were read
// (responses_items.cc): they keep theirs.
void EncoderBase::release_bytes(Message& message) const {
  if (m_keeps_bad_records || message.origin == m_format ||
      (holds_responses_items(message.origin) && holds_responses_items(m_format))) {
    return;
  }
  auto release = [](Bytes& raw) {
    if (raw.size() >= Text::borrow_at() && !find_invalid_utf8(raw)) {
      raw.clear();
    }
  };
  release(message.raw);
  if (has_merged(message)) {
    for (JoinedRecord& record : message.meta.edit().merged) {
      release(record.raw);
    }
  }
}

// The records a stage merged into `message` join the reply it starts or joins, after
// its own record: a reply that cannot be written names the one at fault and is kept
// whole with them.
void EncoderBase::take_merged(Message& message) {
  if (!has_merged(message)) {
    return;
  }
  std::vector<JoinedRecord>& merged = message.meta.edit().merged;
  for (JoinedRecord& record : merged) {
    m_reply_records.push_back(std::move(record));
  }
  merged.clear();
}

// The records go into the output's buffer where they are written; one that fails
// (an EncodeError, invalid UTF-8) is taken back from it.
void EncoderBase::encode_and_write(const Message& message, Output& out,
                                   std::span<const JoinedRecord> joined) {
  Records records(out.buffer());
  encode(message, records);
  if (!records.empty()) {
    note_items_turn(message);
  }
  // A message a stage merged from several records names them as a joined reply does.
  const bool merged = joined.empty() && has_merged(message);
  const std::span<const JoinedRecord> others = merged ? std::span(message.meta->merged) : joined;
  for (std::string_view value : records) {
    check_utf8(value, message.where, message.raw, others, merged);
  }
  records.keep();
  out.wrote();
}

// An assistant item of the same input as the reply held, which the other formats
// hold in the same turn: reasoning, a tool call, or a message after something that
// is not one (two messages in a row stay two turns, as they come back).
//
// A Claude Code record joins the records of its reply right before it: the same
// message.id, or tool results after tool results.
bool EncoderBase::joins_reply(const Message& message) const {
  if (starts_tool_results(*m_reply)) {
    return starts_tool_results(message) && message.origin == m_reply->origin &&
           message.where.file == m_reply->where.file;
  }
  if (format_traits(m_reply->origin).splits_replies) {
    if (!splits_record(message) || message.origin != m_reply->origin ||
        message.where.file != m_reply->where.file || message.role != m_reply->role) {
      return false;
    }
    if (message.role == Role::user) {
      return true;
    }
    // Two texts in a row stay two turns (formats of one text per message join them).
    auto is_text = [](const Block& b) { return b.type == BlockType::text; };
    const Content& held = m_reply->content;
    bool text_after_text = held.is_blocks() && !held.blocks.empty() &&
                           is_text(held.blocks.back()) && message.content.is_blocks() &&
                           !message.content.blocks.empty() &&
                           is_text(message.content.blocks.front());
    return message.meta->message_id == m_reply->meta->message_id && !text_after_text;
  }
  // A format that keeps calls apart from the text (OpenAI's `tool_calls`) writes a
  // turn's text before its calls: a message after calls (unanswered, as in an export
  // without outputs) starts a turn of its own, so that the order comes back.
  const Content& c = message.content;
  bool has_text = c.is_string() || std::any_of(c.blocks.begin(), c.blocks.end(), [](const Block& b) {
                    return b.type == BlockType::text;
                  });
  if (has_text && keeps_calls_apart(m_format) && reply_has_tool_uses()) {
    return false;
  }
  return holds_responses_items(message.origin) && !message.container &&
         message.where.file == m_reply->where.file && item_joins_reply(*m_reply, message);
}

// Whether the reply held has a tool call: Message::has_tool_uses, looking only at the
// blocks joined since the last look (a reply of thousands of items was looked at
// whole for each of them: 19,200 reasoning items took 155 ms, 58% of it here).
// Joining only appends blocks; should the reply have fewer than were seen, it is
// looked at again from the start.
bool EncoderBase::reply_has_tool_uses() const {
  const Content& content = m_reply->content;
  if (!content.is_blocks()) {
    return false;
  }
  if (m_reply_blocks_seen > content.blocks.size()) {
    m_reply_blocks_seen = 0;
    m_reply_has_calls = false;
  }
  for (; m_reply_blocks_seen < content.blocks.size() && !m_reply_has_calls; ++m_reply_blocks_seen) {
    m_reply_has_calls = content.blocks[m_reply_blocks_seen].type == BlockType::tool_use;
  }
  return m_reply_has_calls;
}

void EncoderBase::join_reply(Message&& message) {
  release_bytes(message);
  drop_unheld(message);
  m_reply_records.push_back(JoinedRecord{message.where.line, std::move(message.raw)});
  take_merged(message);
  if (auto type = opaque_item_type(message); !type.empty()) {
    drop(fmt::format("{} blocks", type), message);
    return;
  }
  if (message.timestamp != m_reply->timestamp && format_info(m_format).holds_timestamps) {
    drop("timestamps", message);  // the turn has one: its first item's
  }
  // One reply is held at a time: room for a few items' blocks from the start, so
  // that each is moved once (a Block move is a few hundred instructions).
  if (std::vector<Block>& held = m_reply->content.blocks;
      m_reply->content.is_blocks() && held.capacity() < 8) {
    held.reserve(8);
  }
  if (!format_traits(message.origin).splits_replies) {
    append_reply_item(*m_reply, std::move(message));
    return;
  }
  // Each Claude Code record holds the response as it stood when its block was
  // written: the last one's usage and stop reason are the response's.
  Message& reply = *m_reply;
  m_reply_cut_kept = m_reply_cut_kept && record_cut_kept(message);
  m_reply_thinking_records += thinking_alone(message.content) ? 1 : 0;
  if (!message.usage->empty()) {
    reply.usage = message.usage;
  }
  if (!message.meta->stop_reason.empty()) {
    reply.meta.edit().stop_reason = message.meta->stop_reason;
  }
  append_reply_item(reply, std::move(message));
}

void EncoderBase::write_reply(Output& out) {
  Message reply = std::move(*m_reply);
  m_reply.reset();
  struct Clear {  // after it is written, or has failed
    std::vector<JoinedRecord>& records;
    ~Clear() { records.clear(); }
  } clear{m_reply_records};
  if (!m_reply_cut_kept) {
    drop("Claude Code record splits", reply);
    m_reply_cut_kept = true;
  }
  if (reply.role == Role::user && format_info(m_format).results_with_calls &&
      format_traits(reply.origin).splits_replies) {
    for (std::size_t i = results_moved(reply); i > 0; --i) {
      drop("order of tool results", reply);
    }
  }
  note_calls(reply);
  const int thinking_records = std::exchange(m_reply_thinking_records, 0);
  m_thinking_dropped = false;
  encode_and_write(reply, out, m_reply_records);
  if (thinking_records > 0 && m_thinking_dropped && !thinking_alone(reply.content)) {
    // A record of the reply held thinking alone: the way back has no record for it.
    for (int i = 0; i < thinking_records; ++i) {
      drop("thinking-only assistant messages", reply);
    }
    // Texts that only thinking kept apart are a run of texts without it, which the
    // claude-code writer keeps in one record: the way back cuts the reply otherwise.
    bool after_text = false;  // the last block but thinking is a text
    bool between = false;     // and thinking came after it
    for (const Block& b : reply.content.blocks) {
      if (b.type == BlockType::thinking || b.type == BlockType::redacted_thinking) {
        between = between || after_text;
        continue;
      }
      if (b.type == BlockType::text && after_text && between) {
        drop("Claude Code record splits", reply);
      }
      after_text = b.type == BlockType::text;
      between = false;
    }
  }
}

std::string_view EncoderBase::opaque_item_type(const Message& message) const {
  if (!holds_responses_items(message.origin) || holds_responses_items(m_format) ||
      !message.is_turn() || !message.content.is_blocks() || message.content.blocks.size() != 1) {
    return "";
  }
  const Block& b = message.content.blocks.front();
  bool whole_item = b.type == BlockType::unknown && b.json != nullptr && b.json == message.json;
  return whole_item ? std::string_view(b.type_name) : std::string_view();
}

bool EncoderBase::counts_unheld(std::string_view what, const Message& message, bool in_body) const {
  const FormatInfo& target = format_info(m_format);
  if ((what == "timestamps" && target.holds_timestamps) ||
      (what == "session ids" && target.holds_session_ids) ||
      (what == "message ids" && target.holds_message_ids &&
       format_info(message.origin).holds_message_ids)) {
    return false;
  }
  if (target.holds_response_members && message.role == Role::assistant &&
      (what == "message ids" || what == "model names" || what == "stop reasons" ||
       what == "usage" || what.ends_with(" of response messages"))) {
    return false;  // e.g. a Claude Code record's message is an Anthropic response message
  }
  if (m_format == Format::claude_code && what == "message ids" && is_uuid(message.id)) {
    return false;  // the record's uuid (a user message's too: Gemini CLI's ids are UUIDs)
  }
  if (in_body && (what == "message ids" || what == "model names" || what == "stop reasons" ||
                  what == "usage")) {
    return false;  // the translated body's own members
  }
  if (m_format == Format::codex && what == "usage") {
    return false;  // written as the response's token_count event
  }
  if (m_format == Format::gemini_cli && what == "model names" &&
      message.role == Role::assistant) {
    return false;  // a gemini message has its model (a user one has none)
  }
  if (uses_anthropic_blocks(m_format) && uses_anthropic_blocks(message.origin) &&
      what.ends_with(" blocks")) {
    return false;  // Anthropic blocks keep their members between anthropic and claude-code
  }
  return true;
}

void EncoderBase::drop_unheld(const Message& message, bool in_body) {
  if (message.origin == m_format || message.origin == Format::none ||
      message.kind == Kind::invalid || is_error_body(message)) {
    return;  // an error body's members are counted where it is written (api_error.h)
  }
  const FormatInfo& target = format_info(m_format);
  std::string_view kind = message.container ? container_noun(*message.container) : "";
  if (message.container && message.container.get() != m_counted_container && !kind.empty() &&
      !in_body) {
    // A request body's settings (tools, tool_choice, thinking, metadata, ...) and a
    // response body's members (id, model, usage, created, each choice's
    // finish_reason, ...) have no place in a message-per-line format: counted once
    // per body, by name.
    m_counted_container = message.container.get();
    const Container& body = *message.container;
    const JsonValue& root = body.source->doc;
    if (root.IsObject()) {
      for (const auto& member : root.GetObject()) {
        std::string_view key = view_of(member.name);
        if ((key == "system" || key == "instructions" || key == "systemInstruction") &&
            body.system_slot) {
          continue;  // the system prompt: a message
        }
        if (key != body.array_key && body.format == Format::gemini_cli) {
          drop_session_member(key, member.value, message);
        } else if (key != body.array_key) {
          drop(fmt::format("{} of {}", key, kind), message);
        } else if ((body.array_key == "choices" || body.array_key == "candidates") &&
                   member.value.IsArray()) {
          counted_choice_members(member.value, kind, message);
        }
      }
    }
  }
  if (message.usage->cost && !target.holds_cost) {
    drop("costs", message);
  }
  if (!target.writes_cache_control) {
    for (const Block& block : message.content.blocks) {
      if (!block.cache_control.empty()) {
        drop("cache_control markers", message);
      }
      for (const Block& inner : block.result.blocks) {
        if (!inner.cache_control.empty()) {
          drop("cache_control markers", message);
        }
      }
    }
  }
  if (!target.holds_argument_text) {
    for (const Block& block : message.content.blocks) {
      if (argument_text_respelled(block)) {
        drop("tool call argument text", message);
      }
    }
  }
  if (!target.holds_file_names) {
    for (const Block& block : message.content.blocks) {
      if (is_media(block.type) && !block.name.empty()) {
        drop("file names", message);
      }
      for (const Block& inner : block.result.blocks) {  // a tool result's files
        if (is_media(inner.type) && !inner.name.empty()) {
          drop("file names", message);
        }
      }
    }
  }
  // Tool calls kept apart from the content come after all of it: a text that followed
  // a call (Anthropic's answer after the calls its code execution made) comes back
  // before it.
  if (target.calls_apart && message.role == Role::assistant) {
    bool called = false;
    for (const Block& block : message.content.blocks) {
      called = called || block.type == BlockType::tool_use;
      if (called && block.type == BlockType::text) {
        drop("text after tool calls", message);
        break;
      }
    }
  }
  // Formats of the Responses family hold each other's items whole: only a time can
  // be lost between them.
  if (holds_responses_items(message.origin) && holds_responses_items(m_format)) {
    if (!message.timestamp.empty() && !target.holds_timestamps && message.is_turn()) {
      drop("timestamps", message);
    }
    return;
  }
  // Once per source object: the turns split from one record share it.
  const FormatInfo& origin = format_info(message.origin);
  if (origin.unmodelled == nullptr || message.json == nullptr || message.json == m_counted_json) {
    return;
  }
  m_counted_json = message.json;
  // A message whose names a key tells (a Responses item, by what decoding noted of it)
  // is counted as the first of its key and kind was; a rollout's items are of a few
  // kinds, and reading each item again for its names was 2.5% of converting one.
  const std::optional<std::uint64_t> key =
      origin.unmodelled_key != nullptr ? origin.unmodelled_key(message) : std::nullopt;
  const bool uuid_id = m_format == Format::claude_code && is_uuid(message.id);
  auto same_kind = [&](const UnheldNames& names) {
    return names.key == *key && names.origin == message.origin && names.role == message.role &&
           names.in_body == in_body && names.uuid_id == uuid_id;
  };
  if (key) {
    for (UnheldNames& names : m_unheld_names) {
      if (same_kind(names)) {
        for (auto& [what, entry] : names.names) {
          entry = m_loss.drop(m_format, what, message.where, entry);
          m_thinking_dropped |= what == "thinking blocks";
        }
        return;
      }
    }
  }
  constexpr std::size_t k_kinds_kept = 32;  // kinds of items, by what they lose
  UnheldNames counted{.key = key.value_or(0),
                      .origin = message.origin,
                      .role = message.role,
                      .in_body = in_body,
                      .uuid_id = uuid_id,
                      .names = {}};
  // The callback holds one pointer, which std::function keeps without allocating.
  struct Scope {
    EncoderBase& encoder;
    const Message& message;
    bool in_body;
    UnheldNames& counted;
  } scope{*this, message, in_body, counted};
  origin.unmodelled(message, [s = &scope](std::string_view what) {
    if (s->encoder.counts_unheld(what, s->message, s->in_body)) {
      s->counted.names.emplace_back(what, s->encoder.drop(what, s->message));
    }
  });
  if (key && m_unheld_names.size() < k_kinds_kept) {
    m_unheld_names.push_back(std::move(counted));
  }
}

// A Gemini CLI session's member: its id is the messages' session id, its times the
// first and last message's; empty members say nothing.
void EncoderBase::drop_session_member(std::string_view key, const JsonValue& value,
                                      const Message& message) {
  if (value.IsNull() || (value.IsString() && value.GetStringLength() == 0)) {
    return;
  }
  if (key == "sessionId") {
    // A target holds the id in the turns it writes: a session of none (an update
    // notice alone) leaves it nowhere.
    if (!format_info(m_format).holds_session_ids ||
        (message.container && !session_has_turns(message.container->source->doc))) {
      drop("session ids", message);
    }
  } else if (key == "startTime" || key == "lastUpdated") {
    if (!format_info(m_format).holds_timestamps ||
        (message.container &&
         !session_time_of_turns(key, value, message.container->source->doc))) {
      drop("timestamps", message);
    }
  } else {
    drop(fmt::format("{} of chat sessions", key), message);
  }
}

void EncoderBase::counted_choice_members(const JsonValue& choices, std::string_view kind,
                                         const Message& message) {
  std::vector<std::string_view> seen;
  for (const JsonValue& choice : choices.GetArray()) {
    if (!choice.IsObject()) {
      continue;
    }
    for (const auto& member : choice.GetObject()) {
      std::string_view key = view_of(member.name);
      bool turn = key == "message" || key == "content";  // OpenAI's, Gemini's
      if (!turn && std::find(seen.begin(), seen.end(), key) == seen.end()) {
        seen.push_back(key);
        drop(fmt::format("{} of {}", key, kind), message);
      }
    }
  }
}

void EncoderBase::finish(Output& out) {
  try {
    if (m_reply) {
      write_reply(out);
    }
    if (m_container) {
      close_container(out);
    }
  } catch (EncodeError& error) {
    error.set_finish_pending();  // what is held after the reply is written then
    throw;
  }
  write_drained(out);
}

void EncoderBase::write_drained(Output& out) {
  Records records(out.buffer());
  drain(records);
  records.keep();
  out.wrote();
}

void EncoderBase::values_of(const Message& message, Records& values) {
  values.clear();
  if (!message.modified && message.json != nullptr) {
    values.add(to_json(*message.json));
  } else {
    encode(message, values);
  }
}

}  // namespace convo
