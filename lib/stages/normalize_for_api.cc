#include "stages/normalize_for_api.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "formats/anthropic.h"
#include "formats/anthropic_blocks.h"
#include "formats/claude_code_api.h"
#include "held_records.h"
#include "io/output.h"
#include "session_tree.h"
#include "stages/api_repairs.h"
#include "tool_links.h"
#include "utf8.h"

namespace convo {

namespace {

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

BlockOrigin origin_of(const Message& record, std::size_t index = BlockOrigin::k_whole) {
  return BlockOrigin{record.where, record.container, record.slot, index};
}

// Where a record's message and blocks came from (`origins`: each block's too).
ApiOrigins origins_of(const Message& record, bool origins) {
  ApiOrigins out;
  out.origin = origin_of(record);
  if (origins && record.content.is_blocks()) {
    out.blocks.reserve(record.content.blocks.size());
    for (std::size_t i = 0; i < record.content.blocks.size(); ++i) {
      out.blocks.push_back(origin_of(record, i));
    }
  }
  return out;
}

// One message of the view being built, and where it came from.
struct ViewItem {
  Message message;
  ApiOrigins origins;
};

// A user message holding `text`, made from `record` (an attachment or a local
// command's output).
ViewItem made_user_message(const Message& record, std::string text, bool as_blocks,
                           bool origins) {
  ViewItem out;
  Message& m = out.message;
  m.kind = Kind::turn;
  m.role = Role::user;
  m.origin = record.origin;
  m.where = record.where;
  m.meta.edit().uuid = record.meta->uuid;
  m.meta.edit().session_id = record.meta->session_id;
  m.meta.edit().is_meta = true;
  m.modified = true;
  out.origins.origin = origin_of(record);
  if (as_blocks) {
    m.content.form = Content::Form::blocks;
    m.content.blocks.push_back(Block::make_text(std::move(text)));
    if (origins) {
      out.origins.blocks.push_back(out.origins.origin);
    }
  } else {
    m.content.form = Content::Form::string;
    m.content.text = std::move(text);
  }
  return out;
}

// The record type of a user message made from an attachment (and of a message whose
// last piece is one): its text joins the next without a newline.
}  // namespace

// Shared with the repairs (api_repairs.h).

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
    blocks.back().text.edit() += '\n';
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

namespace {

// The messages of a view being built, and where each came from (`origins`: one per
// message, or none when they are not asked for), in vectors of their own: the
// messages can then be written over the records they are made from.
struct ViewItems {
  std::vector<Message>& messages;
  std::vector<std::unique_ptr<ApiOrigins>>& origins;
  bool with_origins;

  // Where item `i` came from, written out (a record's item leaves it implied until
  // it is joined with another).
  ApiOrigins& origins_at(std::size_t i) {
    if (origins[i] == nullptr) {
      origins[i] = std::make_unique<ApiOrigins>(origins_of(messages[i], true));
    }
    return *origins[i];
  }
  // Appends item `from` to item `into`.
  void append(std::size_t into, std::size_t from) {
    if (!with_origins) {
      append_content(messages[into], std::move(messages[from]), nullptr, nullptr, nullptr,
                     nullptr);
      return;
    }
    ApiOrigins& to = origins_at(into);
    ApiOrigins& added = origins_at(from);
    append_content(messages[into], std::move(messages[from]), &to.blocks, &to.origin,
                   &added.blocks, &added.origin);
    origins[from].reset();
  }
  // Moves item `from` to `to`, before it.
  void move_down(std::size_t to, std::size_t from) {
    messages[to] = std::move(messages[from]);
    if (with_origins) {
      origins[to] = std::move(origins[from]);
    }
  }
  // Keeps the first `count` items.
  void keep(std::size_t count) {
    messages.erase(messages.begin() + static_cast<std::ptrdiff_t>(count), messages.end());
    if (with_origins) {
      origins.erase(origins.begin() + static_cast<std::ptrdiff_t>(count), origins.end());
    }
  }
};

}  // namespace

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
  return next.role != Role::assistant || last.meta->message_id.empty() ||
         next.meta->message_id.empty() || last.meta->message_id == next.meta->message_id;
}

namespace {

// How a view is made.
struct ViewMode {
  bool origins = false;        // record where each block came from (for check's reports)
  bool tool_messages = false;  // keep tool messages apart (OpenAI's view)
};

// Step 2: what the API sees of each record of `thread`, in order, each given to
// `emit` (a `Message&&`, which may be the record itself, and its origins: null for
// the record itself, see ApiConversation::origins).
// Attachments are held as they are until step 3 has put them in place.
template <typename Emit>
void view_items(std::vector<Message>& records, const std::vector<std::size_t>& thread,
                std::vector<bool>& used, ViewMode mode, Emit&& emit) {
  const bool origins = mode.origins;
  for (std::size_t index : thread) {
    if (used[index]) {
      continue;
    }
    used[index] = true;
    Message& record = records[index];
    switch (record.kind) {
      case Kind::turn:
        if (held_as_bytes(record)) {
          // Held as its bytes (slim_for_api): decoded again now that it is used,
          // and then as slim_for_api leaves a record it does not hold so.
          record = decode_again(record);
          record.raw.clear();
        }
        if (record.meta->is_virtual || is_api_error_message(record)) {
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
        // The record is its own origin (ApiConversation::origins).
        emit(std::move(record), std::unique_ptr<ApiOrigins>());
        break;
      case Kind::event:
        // Claude Code sends the output of local commands (/model, /cost, ...) as user text.
        if (record.meta->subtype == "local_command" && record.content.is_string()) {
          ViewItem made =
              made_user_message(record, record.content.text.take(), false, origins);
          emit(std::move(made.message), std::make_unique<ApiOrigins>(std::move(made.origins)));
        }
        break;
      case Kind::attachment: {
        const JsonValue* attachment =
            record.json != nullptr ? find_member(*record.json, "attachment") : nullptr;
        std::string text = attachment != nullptr ? claude_code_attachment_text(*attachment) : "";
        if (!text.empty()) {
          ViewItem m = made_user_message(
              record, "<system-reminder>\n" + text + "\n</system-reminder>", true, origins);
          m.message.kind = Kind::attachment;  // until step 3 has put it in place
          m.message.record_type = std::string(k_attachment_record);
          emit(std::move(m.message), std::make_unique<ApiOrigins>(std::move(m.origins)));
        }
        break;
      }
      default:
        break;  // progress, summaries, bookkeeping, unknown and bad records
    }
  }
}

// Puts `items[order[i]]` at `i`, in place (following the permutation's cycles), so
// that the view is not built beside a second copy of its items.
template <typename Item>
void apply_order(std::vector<Item>& items, const std::vector<std::size_t>& order) {
  std::vector<bool> placed(order.size(), false);
  for (std::size_t start = 0; start < order.size(); ++start) {
    if (placed[start] || order[start] == start) {
      continue;
    }
    Item held = std::move(items[start]);
    std::size_t at = start;
    while (order[at] != start) {
      items[at] = std::move(items[order[at]]);
      placed[at] = true;
      at = order[at];
    }
    items[at] = std::move(held);
    placed[at] = true;
  }
}

// Steps 3-5 over the items of one thread, in place: `items` becomes the view.
void build_view(ViewItems items, ViewMode mode) {
  std::vector<Message>& messages = items.messages;
  // Step 3: attachments move up to just after the nearest assistant message or tool
  // result message before them (Claude Code's reorderAttachmentsForAPI).
  std::vector<std::size_t> order;
  order.reserve(messages.size());
  std::vector<std::size_t> lifted;
  std::vector<std::size_t> rest;
  auto close_segment = [&] {
    order.insert(order.end(), lifted.begin(), lifted.end());
    order.insert(order.end(), rest.begin(), rest.end());
    lifted.clear();
    rest.clear();
  };
  for (std::size_t i = 0; i < messages.size(); ++i) {
    Message& m = messages[i];
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
  apply_order(messages, order);
  if (items.with_origins) {
    apply_order(items.origins, order);
  }

  // Steps 4 and 5: the records of one response become one assistant message, and
  // messages of one role in a row become one. The view is written over the items
  // (`kept` of them so far): an item joins one before it, or moves down to `kept`.
  std::size_t kept = 0;
  // As Claude Code does, a piece of a response joins an earlier piece of it found by
  // looking back over assistant messages and tool results. The look-back is an
  // index (looking back message by message was quadratic: an agent run of 40,000
  // tool calls took a minute): the last assistant message of each response id
  // since the last message that is neither.
  std::unordered_map<std::string, std::size_t> response_at;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    Message& m = messages[i];
    if (m.role == Role::assistant && m.is_turn() && !m.meta->message_id.empty() &&
        !format_traits(m.origin).ids_name_alternatives) {
      auto found = response_at.find(m.meta->message_id);
      if (found != response_at.end()) {
        items.append(found->second, i);
        continue;
      }
    }
    bool tool_join = mode.tool_messages && m.role == Role::tool;
    if (kept > 0) {
      Message& last = messages[kept - 1];
      if (joins(last, m) || (tool_join && last.role == Role::tool)) {
        items.append(kept - 1, i);
        continue;
      }
    }
    if (i != kept) {
      items.move_down(kept, i);
    }
    ++kept;
    const Message& added = messages[kept - 1];
    if (added.role == Role::assistant) {
      if (added.is_turn() && !added.meta->message_id.empty()) {
        response_at[added.meta->message_id] = kept - 1;
      }
    } else if (added.role != Role::user || !starts_with_tool_result(added)) {
      response_at.clear();  // the look-back stops here
    }
  }
  items.keep(kept);
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
  std::vector<ApiConversation> views;
  views.reserve(threads.size());
  if (threads.size() == 1 && std::is_sorted(threads[0].begin(), threads[0].end())) {
    // One thread in file order: its messages are written over the records (one
    // never lands after the record it is made from), so that a conversation is held
    // once, not twice (a view beside its records was most of the memory of a long
    // conversation of short records).
    ApiConversation& view = views.emplace_back();
    if (mode.origins) {
      view.origins.reserve(threads[0].size());
    }
    std::size_t count = 0;
    view_items(records, threads[0], used, mode, [&](Message&& m, std::unique_ptr<ApiOrigins>&& from) {
      if (&m != &records[count]) {  // a record kept where it is
        records[count] = std::move(m);
      }
      ++count;
      if (mode.origins) {
        view.origins.push_back(std::move(from));
      }
    });
    records.erase(records.begin() + static_cast<std::ptrdiff_t>(count), records.end());
    view.messages = std::move(records);
  } else {
    // Step 2 for every thread, then the records go (their messages are in the
    // views now) before steps 3-5 build each view in place: a conversation is held
    // twice at most.
    for (const std::vector<std::size_t>& thread : threads) {
      ApiConversation& view = views.emplace_back();
      view.messages.reserve(thread.size());
      if (mode.origins) {
        view.origins.reserve(thread.size());
      }
      view_items(records, thread, used, mode, [&](Message&& m, std::unique_ptr<ApiOrigins>&& from) {
        view.messages.push_back(std::move(m));
        if (mode.origins) {
          view.origins.push_back(std::move(from));
        }
      });
    }
  }
  std::vector<Message>().swap(records);
  std::vector<ApiConversation> out;
  for (ApiConversation& view : views) {
    build_view(ViewItems{view.messages, view.origins, mode.origins}, mode);
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
    std::vector<Message> messages = repair_for_api(std::move(view.messages), options);
    if (!messages.empty()) {
      out.push_back(std::move(messages));
    }
  }
  return out;
}

ApiMessage ApiConversation::operator[](std::size_t i) const {
  static const std::vector<BlockOrigin> k_no_blocks;
  if (i >= origins.size()) {
    return ApiMessage{messages[i], BlockOrigin{}, &k_no_blocks};
  }
  if (origins[i] == nullptr) {
    return ApiMessage{messages[i], origin_of(messages[i]), nullptr};
  }
  return ApiMessage{messages[i], origins[i]->origin, &origins[i]->blocks};
}

BlockOrigin ApiMessage::block_origin(std::size_t index) const {
  if (block_origins != nullptr) {
    return index < block_origins->size() ? (*block_origins)[index] : origin;
  }
  if (message.content.is_blocks() && index < message.content.blocks.size()) {
    BlockOrigin block = origin;
    block.index = index;
    return block;
  }
  return origin;
}

namespace {

// True when nothing reads `record`'s parsed JSON once it is decoded: a plain turn
// (string content, no envelope, not part of a request body) whose every member the
// decoder modelled, so that no writer counts a member it drops. Its parsed record
// (about 300 bytes for a short line: the Source, its pool chunk and its text) is
// then most of what it costs held whole.
bool parsed_record_unused(const Message& record) {
  if (record.kind != Kind::turn || record.source == nullptr || record.content.is_blocks() ||
      record.container != nullptr || record.meta.allocated()) {
    return false;
  }
  auto unmodelled = format_info(record.origin).unmodelled;
  bool any = false;
  if (unmodelled != nullptr) {
    unmodelled(record, [&any](std::string_view) { any = true; });
  }
  return !any;
}

}  // namespace

namespace {

// Whether `record`, a turn the view may use, is better held as its bytes until it
// is (`hold_as_bytes`): a record as read (no stage changed it) of a format whose
// records decode again alone, that the view would keep parsed and not write as it
// is, whose bytes are UTF-8 (those that are not keep their content, for check's
// invalid-utf8 rule).
bool may_hold_as_bytes(const Message& record, bool as_is) {
  return record.kind == Kind::turn && !record.modified && !as_is && record.container == nullptr &&
         record.source != nullptr && !record.raw.empty() &&
         format_traits(record.origin).records_decode_alone && !find_invalid_utf8(record.raw);
}

// Holds a record as its bytes and what the session tree reads before the view
// decodes it again (view_items): kind, role, record type, the session links and
// response id, whether it carries a tool result, and the timestamp of a record
// that is not a user or assistant message (the tree orders those by it). Its
// content, parsed record and the rest of its envelope (about 1.5 times its bytes)
// come back then.
void hold_as_bytes(Message& record) {
  const bool results = record.has_tool_results();
  Content kept;
  kept.form = record.content.form;
  if (results) {
    kept.blocks.emplace_back().type = BlockType::tool_result;
  }
  record.content = std::move(kept);
  record.source.reset();
  record.id = std::string();
  record.name = std::string();
  record.usage = Usage{};
  if (record.record_type == "user" || record.record_type == "assistant") {
    record.timestamp = std::string();
  }
  if (record.meta.allocated()) {
    RecordMeta& meta = record.meta.edit();
    for (std::string* unread : {&meta.request_id, &meta.model, &meta.stop_reason, &meta.cwd,
                                &meta.git_branch, &meta.tool_use_id, &meta.short_id}) {
      std::string().swap(*unread);
    }
  }
  mark_held_as_bytes(record);
}

}  // namespace

void slim_for_api(Message& record, bool keep_bytes, bool as_bytes) {
  bool needed = false;
  switch (record.kind) {
    case Kind::turn:
    case Kind::attachment:
    case Kind::invalid:
      needed = true;
      break;
    case Kind::event:
      needed = record.meta->subtype == "local_command";
      break;
    case Kind::unknown:
      needed = record.record_type == "tombstone";
      break;
    default:
      break;
  }
  // The bytes are kept only where the anthropic writer may write them as they are,
  // or where they are not UTF-8: the writer's error then names the bad byte's column.
  const bool as_is = needed && anthropic_as_is(record);
  if (as_bytes && needed && may_hold_as_bytes(record, as_is) && !parsed_record_unused(record)) {
    hold_as_bytes(record);
    return;
  }
  if (!needed || !keep_bytes || (!as_is && !find_invalid_utf8(record.raw))) {
    record.raw.clear();
  }
  if (needed && !as_is && parsed_record_unused(record)) {
    record.source.reset();
    record.json = nullptr;
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
  ApiViewStage(ConversationStage::SplitFunction function, GroupBy group_by, bool keep_bytes,
               bool as_bytes)
      : m_function(function),
        m_inner(std::move(function), group_by),
        m_keep_bytes(keep_bytes),
        // Held as bytes only where a conversation is a whole file of sessions, most of
        // whose records are off the thread written or checked. A session's records are
        // mostly on it, and each would be parsed twice (check 1.8x the CPU on a 155 MB
        // Claude Code log, for no memory saved).
        m_as_bytes(as_bytes && group_by == GroupBy::file) {}

  void push(Message&& message, MessageSink& next) override {
    slim_for_api(message, m_keep_bytes, m_as_bytes);
    if (m_as_bytes) {
      m_held.hold(std::move(message));  // the conversation is the input: held compactly
    } else {
      m_inner.push(std::move(message), next);
    }
  }
  void finish(MessageSink& next) override {
    if (!m_as_bytes) {
      m_inner.finish(next);
      return;
    }
    if (m_held.empty()) {
      return;
    }
    // Only the records the threads use become `Message`s; check is told the links
    // of the others, which its file integrity rules read.
    auto* links_sink = dynamic_cast<HeldLinksSink*>(&next.target());
    std::vector<RecordLink> links;
    std::vector<Message> records = m_held.take_used(links_sink != nullptr ? &links : nullptr);
    if (links_sink != nullptr) {
      links_sink->put_held_links(std::move(links));
    }
    for (std::vector<Message>& part : m_function(std::move(records))) {
      next.put_conversation(std::move(part));
    }
    m_held.clear();  // after the sink read the links' views
  }

 private:
  ConversationStage::SplitFunction m_function;
  ConversationStage m_inner;
  HeldRecords m_held;
  bool m_keep_bytes;
  bool m_as_bytes;
};

}  // namespace

std::unique_ptr<StreamStage> make_api_view_stage(ConversationStage::SplitFunction function,
                                                 GroupBy group_by, bool keep_bytes,
                                                 bool as_bytes) {
  return std::make_unique<ApiViewStage>(std::move(function), group_by, keep_bytes, as_bytes);
}

std::unique_ptr<StreamStage> make_normalize_stage(NormalizeOptions options, GroupBy group_by) {
  return make_api_view_stage(
      [options = std::move(options)](std::vector<Message> records) {
        return normalize_for_api(std::move(records), options);
      },
      // Claude Code resumes a file whole: a session that continues another's
      // records is the same conversation.
      group_by == GroupBy::session ? GroupBy::session_chains : group_by, /*keep_bytes=*/true,
      /*as_bytes=*/true);
}

}  // namespace convo
