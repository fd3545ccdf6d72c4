#include "stages/merge_runs.h"

#include <algorithm>

#include "formats/format.h"

namespace convo {

namespace {

// Formats whose messages hold their tool calls apart from their content (OpenAI's
// `tool_calls`). Their decoders fold the calls into the content as tool_use blocks
// after the text, which they turn into a text block of its own; that text is still
// the message's string content in LangChain's terms.
bool calls_apart(Format format) { return keeps_calls_apart(format); }

// A text block that a decoder or this stage made from string content (it has no
// JSON of its own).
bool is_folded_text(const Block& block) {
  return block.type == BlockType::text && block.json == nullptr;
}

// True when `content` is text in LangChain's terms (a string, or nothing), in which
// case two such contents are joined as strings. In a calls-apart format the
// content may also be the folded text followed by tool calls.
bool is_text(const Content& content, Format format) {
  switch (content.form) {
    case Content::Form::absent:
    case Content::Form::null:
    case Content::Form::string:
      return true;
    case Content::Form::blocks:
      break;
  }
  if (!calls_apart(format)) {
    return false;
  }
  const std::vector<Block>& blocks = content.blocks;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    if (blocks[i].type != BlockType::tool_use && !(i == 0 && is_folded_text(blocks[i]))) {
      return false;
    }
  }
  return true;
}

// The text of a text content (see is_text), for reading.
std::string_view text_of(const Content& content) {
  if (content.form == Content::Form::string) {
    return content.text;
  }
  if (content.is_blocks() && !content.blocks.empty() && is_folded_text(content.blocks[0])) {
    return content.blocks[0].text;
  }
  return {};
}

// Turns `content` into a list of blocks: a non-empty string becomes one text block.
void make_blocks(Content& content) {
  if (content.is_blocks()) {
    return;
  }
  Text text = std::move(content.text);
  content.text.clear();
  content.blocks.clear();
  if (!text.empty()) {
    content.blocks.push_back(Block::make_text(std::move(text)));
  }
  content.form = Content::Form::blocks;
}

// Where the text of a text content lives, made ready to append to: the string, or
// the folded text block (made when there is none yet).
std::string& text_target(Content& content) {
  if (!content.is_blocks()) {
    if (content.form != Content::Form::string) {
      content.form = Content::Form::string;
      content.text.clear();
    }
    return content.text.edit();
  }
  if (content.blocks.empty() || !is_folded_text(content.blocks[0])) {
    content.blocks.insert(content.blocks.begin(), Block::make_text(""));
  }
  return content.blocks[0].text.edit();
}

void add(std::optional<std::int64_t>& a, const std::optional<std::int64_t>& b) {
  if (b) {
    a = a.value_or(0) + *b;
  }
}

Usage sum(Usage a, const Usage& b) {
  add(a.input, b.input);
  add(a.output, b.output);
  add(a.reasoning, b.reasoning);
  add(a.cache_read, b.cache_read);
  add(a.cache_write, b.cache_write);
  add(a.total, b.total);
  if (b.cost) {
    a.cost = a.cost.value_or(0) + *b.cost;
  }
  return a;
}

}  // namespace

bool can_ever_merge(const Message& message) {
  return message.kind == Kind::turn && message.role != Role::tool &&
         message.role != Role::none && !message.has_tool_results();
}

namespace {

// The rest of can_merge: what must be equal. Does not look at the content, so that
// checking a long run's held message stays cheap.
bool same_speaker(const Message& a, const Message& b) {
  if (a.role != b.role || a.custom_role != b.custom_role || a.name != b.name ||
      a.origin != b.origin || a.container != b.container) {
    return false;
  }
  const RecordMeta& x = *a.meta;
  const RecordMeta& y = *b.meta;
  return x.is_sidechain == y.is_sidechain && x.is_meta == y.is_meta &&
         x.is_compact_summary == y.is_compact_summary && x.is_api_error == y.is_api_error &&
         x.session_id == y.session_id;
}

}  // namespace

bool can_merge(const Message& a, const Message& b) {
  return can_ever_merge(a) && can_ever_merge(b) && same_speaker(a, b);
}

namespace {

// Appends the content of `b` to `a` (LangChain's content merge): two text contents
// become one text with `separator` between them when both are non-empty; in
// formats that keep tool calls apart from the content (OpenAI) a message's calls
// do not stop its text from being text, and the calls follow in order; any other
// pair of contents becomes the list of `a`'s blocks followed by `b`'s.
// `a_is_text` is is_text(a), kept up to date here, so that a merge costs the size
// of `b` and a run is merged in linear time.
void merge_content(Message& a, bool& a_is_text, Message&& b, const std::string& separator) {
  Content& x = a.content;
  Content& y = b.content;
  a_is_text = a_is_text && is_text(y, b.origin);
  if (a_is_text) {
    std::string_view more = text_of(y);
    if (!more.empty()) {
      bool had_text = !text_of(x).empty();
      std::string& text = text_target(x);
      if (had_text) {
        text += separator;
      }
      text += more;
    } else if (x.form != Content::Form::string && !x.is_blocks() && y.form == Content::Form::string) {
      x.form = Content::Form::string;  // null + "" is "", as LangChain reads null
    }
    if (y.is_blocks()) {
      if (!x.is_blocks() && std::any_of(y.blocks.begin(), y.blocks.end(), [](const Block& block) {
            return block.type == BlockType::tool_use;
          })) {
        make_blocks(x);
      }
      for (Block& block : y.blocks) {
        if (block.type == BlockType::tool_use) {
          x.blocks.push_back(std::move(block));
        }
      }
    }
    return;
  }
  make_blocks(x);
  if (y.is_blocks()) {
    x.blocks.insert(x.blocks.end(), std::make_move_iterator(y.blocks.begin()),
                    std::make_move_iterator(y.blocks.end()));
  } else if (y.form == Content::Form::string && !y.text.empty()) {
    x.blocks.push_back(Block::make_text(std::move(y.text)));
  }
}

}  // namespace

void MergeRuns::merge(Message&& message) {
  Message& held = *m_held;
  if (!message.usage->empty()) {
    // The pieces of one response carry running totals: the latest replaces the
    // response's count. A new response adds to what came before.
    bool same = !message.meta->message_id.empty() &&
                message.meta->message_id == m_last_response;
    if (!same) {
      m_usage_before = held.usage;
    }
    held.usage = sum(m_usage_before, message.usage);
  }
  m_last_response = message.meta->message_id;
  if (!message.meta->stop_reason.empty()) {
    held.meta.edit().stop_reason = message.meta->stop_reason;
  }
  if (!message.meta->uuid.empty()) {
    if (held.id == held.meta->uuid) {
      held.id = message.meta->uuid;
    }
    held.meta.edit().uuid = std::move(message.meta->uuid);
  }
  // Its record stays named with the held one's: a byte that cannot be written is
  // reported where it is, and --on-error keep writes both records as read.
  if (!message.raw.empty()) {
    held.meta.edit().merged.push_back(JoinedRecord{message.where.line, std::move(message.raw)});
  }
  merge_content(held, m_held_is_text, std::move(message), m_options.separator);
  held.touch();
}

void MergeRuns::push(Message&& message, MessageSink& next) {
  if (message.kind != Kind::turn) {
    if (message.kind == Kind::invalid || message.kind == Kind::remove) {
      flush(next);
    } else if (m_held) {
      // Kept with the held message so that, if nothing merges into it, every
      // record comes out where it was.
      m_between.push_back(std::move(message));
      return;
    }
    next.put(std::move(message));
    return;
  }
  if (m_held && can_ever_merge(message) && same_speaker(*m_held, message)) {
    merge(std::move(message));
    return;
  }
  flush(next);
  if (!can_ever_merge(message)) {
    next.put(std::move(message));
    return;
  }
  m_held = std::move(message);
  m_held_is_text = is_text(m_held->content, m_held->origin);
  m_usage_before = Usage{};
  m_last_response = m_held->meta->message_id;
}

void MergeRuns::finish(MessageSink& next) { flush(next); }

void MergeRuns::flush(MessageSink& next) {
  if (m_held) {
    next.put(std::move(*m_held));
    m_held.reset();
  }
  for (Message& message : m_between) {
    next.put(std::move(message));
  }
  m_between.clear();
}

}  // namespace convo
