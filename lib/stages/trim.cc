#include "stages/trim.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <tuple>
#include <utility>
#include <functional>
#include <optional>

#include "formats/format.h"
#include "tool_links.h"

namespace convo {

namespace {

// Which end of a message --allow-partial keeps.
enum class Side : std::uint8_t { front, back };

bool is_text_block(const Block& block) {
  return block.type == BlockType::text &&
         (block.type_name.empty() || block.type_name == "text");
}

// A message --allow-partial may cut: no block in it belongs to a tool exchange,
// so no call can lose its result and no result its call.
bool can_cut(const Message& message) {
  if (!message.content.is_blocks()) {
    return true;
  }
  return std::none_of(message.content.blocks.begin(), message.content.blocks.end(),
                      [](const Block& b) {
                        return b.type == BlockType::tool_use || b.type == BlockType::tool_result ||
                               b.type == BlockType::server_tool_use ||
                               b.type == BlockType::server_tool_result;
                      });
}

// The largest n in [low, high] with fits(n), given fits is monotone (true up to
// some n, false after); low - 1 when there is none.
template <typename Fits>
std::size_t largest_fitting(std::size_t low, std::size_t high, Fits fits) {
  std::size_t best = low - 1;
  while (low <= high) {
    std::size_t mid = low + (high - low) / 2;
    if (fits(mid)) {
      best = mid;
      low = mid + 1;
    } else {
      if (mid == 0) {
        break;
      }
      high = mid - 1;
    }
  }
  return best;
}

// Part of `message` that counts at most `room` tokens, as LangChain's
// _first_max_tokens cuts the message at the boundary (Python semantics): first the
// largest run of whole blocks (1 to n-1 of them) from `side`; failing that, the
// largest run of pieces of the text of the string content or of the block at
// `side`, as a string content. nullopt when nothing fits.
std::optional<Message> cut(const Message& message, Side side, std::int64_t room,
                           TextSplitter splitter, const TokenCounter& counter) {
  Message part = message;
  part.modified = true;
  const Content& content = message.content;
  if (content.is_blocks() && content.blocks.size() >= 2) {
    const std::size_t n = content.blocks.size();
    auto keep_blocks = [&](std::size_t count) {
      auto begin = side == Side::front ? content.blocks.begin()
                                       : content.blocks.end() - static_cast<std::ptrdiff_t>(count);
      part.content.blocks.assign(begin, begin + static_cast<std::ptrdiff_t>(count));
    };
    std::size_t best = largest_fitting(1, n - 1, [&](std::size_t count) {
      keep_blocks(count);
      return counter.count_message(part) <= room;
    });
    if (best >= 1) {
      keep_blocks(best);
      return part;
    }
  }

  const Text* text = nullptr;
  if (content.is_string()) {
    text = &content.text;
  } else if (content.is_blocks() && !content.blocks.empty()) {
    const Block& block = side == Side::front ? content.blocks.front() : content.blocks.back();
    if (is_text_block(block)) {
      text = &block.text;
    }
  }
  if (text == nullptr || text->empty()) {
    return std::nullopt;
  }
  std::vector<std::string> pieces = split_text(*text, splitter);
  part.content = Content{};
  part.content.form = Content::Form::string;
  auto keep_pieces = [&](std::size_t count) {
    part.content.text.clear();
    std::size_t from = side == Side::front ? 0 : pieces.size() - count;
    for (std::size_t i = from; i < from + count; ++i) {
      part.content.text.edit() += pieces[i];
    }
  };
  std::size_t best = largest_fitting(1, pieces.size(), [&](std::size_t count) {
    keep_pieces(count);
    return counter.count_message(part) <= room;
  });
  if (best == 0) {
    return std::nullopt;
  }
  keep_pieces(best);
  return part;
}

// What trim keeps: units [from, to), the system unit before them, and in unit
// `cut_unit` its one message replaced by `cut_message`.
// Where `"parentUuid": "<parent>"` is in a record's bytes (whatever the spacing
// around the colon), and its length; npos when it is not there as such.
std::pair<std::size_t, std::size_t> find_parent_link(std::string_view raw,
                                                     const std::string& parent) {
  constexpr std::string_view k_key = "\"parentUuid\"";
  for (std::size_t at = raw.find(k_key); at != std::string::npos; at = raw.find(k_key, at + 1)) {
    std::size_t p = at + k_key.size();
    while (p < raw.size() && (raw[p] == ' ' || raw[p] == '\t')) {
      ++p;
    }
    if (p >= raw.size() || raw[p] != ':') {
      continue;
    }
    ++p;
    while (p < raw.size() && (raw[p] == ' ' || raw[p] == '\t')) {
      ++p;
    }
    std::string value = fmt::format("\"{}\"", parent);
    if (raw.compare(p, value.size(), value) == 0) {
      return {at, p + value.size() - at};
    }
  }
  return {std::string::npos, 0};
}

struct Window {
  bool system = false;  // unit 0 is the system message, kept apart
  std::size_t from = 0;
  std::size_t to = 0;
  std::optional<std::size_t> cut_unit;
  std::optional<Message> cut_message;
};

// The message as it was read, for cutting: the message itself, or (for a message
// whose content was released as it was held) decoded again from its bytes.
// `index` is its place in the conversation.
using Restore = std::function<Message(const Message& message, std::size_t index)>;

class Trimmer {
 public:
  // `counts[i]` is the tokens of `conversation[i]` within the conversation.
  Trimmer(const std::vector<Message>& conversation, std::vector<std::int64_t> counts,
          const TrimOptions& options, const TokenCounter& counter, Restore restore)
      : m_conversation(conversation),
        m_options(options),
        m_counter(counter),
        m_restore(std::move(restore)),
        m_units(atomic_units(conversation)),
        m_tokens(std::move(counts)) {
    // Each unit's sum is written over the counts (unit u starts at record u or
    // later): not a second vector beside them.
    for (std::size_t u = 0; u < m_units.size(); ++u) {
      std::int64_t sum = 0;
      for (std::size_t i = m_units[u].begin; i < m_units[u].end; ++i) {
        sum += m_tokens[i];
      }
      m_tokens[u] = sum;
    }
    m_tokens.resize(m_units.size());
  }

  Window first() const {
    Window w;
    const std::size_t n = m_units.size();
    std::int64_t used = 0;
    std::size_t idx = 0;
    while (idx < n && used + m_tokens[idx] <= m_options.max_tokens) {
      used += m_tokens[idx];
      ++idx;
    }
    if (m_options.allow_partial && idx < n) {
      try_cut(w, idx, Side::front, m_options.max_tokens - used);
      if (w.cut_unit) {
        ++idx;
      }
    }
    if (!m_options.end_on.empty()) {
      while (idx > 0 && !ends_with(idx - 1, m_options.end_on)) {
        --idx;
      }
    }
    w.to = idx;
    return w;
  }

  Window last() const {
    Window w;
    std::size_t end = m_units.size();
    if (!m_options.end_on.empty()) {
      while (end > 0 && !ends_with(end - 1, m_options.end_on)) {
        --end;
      }
    }
    std::size_t begin = 0;
    std::int64_t room = m_options.max_tokens;
    if (m_options.include_system && end > 0 && m_units[0].turns > 0 &&
        has_type(m_conversation[m_units[0].first_turn], "system")) {
      w.system = true;
      begin = 1;
      room = std::max<std::int64_t>(0, room - m_tokens[0]);
    }
    std::size_t idx = end;  // units [idx, end) are kept
    std::int64_t used = 0;
    while (idx > begin && used + m_tokens[idx - 1] <= room) {
      used += m_tokens[idx - 1];
      --idx;
    }
    if (m_options.allow_partial && idx > begin) {
      try_cut(w, idx - 1, Side::back, room - used);
      if (w.cut_unit) {
        --idx;
      }
    }
    if (!m_options.start_on.empty()) {
      while (idx < end && !starts_with(idx, m_options.start_on)) {
        ++idx;
      }
    }
    w.from = idx;
    w.to = end;
    return w;
  }

  std::vector<Message> take(std::vector<Message>& conversation, Window& w) const {
    // A kept record whose parent is dropped (Claude Code's parentUuid chain) is
    // linked to its nearest kept ancestor, or made a root: the result reads as a
    // conversation on its own, and `check` finds no dangling parent in it.
    // Copies, not views: the messages move out as they are taken.
    std::unordered_set<std::string> kept;
    auto each_kept = [&](auto fn) {
      if (w.system) {
        for (std::size_t i = m_units[0].begin; i < m_units[0].end; ++i) {
          fn(0, i);
        }
      }
      for (std::size_t u = w.from; u < w.to; ++u) {
        for (std::size_t i = m_units[u].begin; i < m_units[u].end; ++i) {
          fn(u, i);
        }
      }
    };
    each_kept([&](std::size_t, std::size_t i) {
      if (!conversation[i].meta->uuid.empty()) {
        kept.insert(conversation[i].meta->uuid);
      }
    });
    std::unordered_map<std::string, std::string> parent_of;
    if (!kept.empty()) {
      for (const Message& m : conversation) {
        if (!m.meta->uuid.empty()) {
          parent_of.emplace(m.meta->uuid, m.meta->parent_uuid);
        }
      }
    }
    // The nearest kept ancestor of a record whose parent is `parent`, or "".
    auto kept_ancestor = [&](std::string parent) -> std::string {
      std::size_t steps = 0;
      while (!parent.empty() && kept.count(parent) == 0 && steps++ < parent_of.size()) {
        auto up = parent_of.find(parent);
        parent = up == parent_of.end() ? std::string() : up->second;
      }
      return kept.count(parent) != 0 ? parent : std::string();
    };
    std::vector<Message> out;
    each_kept([&](std::size_t u, std::size_t i) {
      const std::string parent = conversation[i].meta->parent_uuid;
      bool orphan = !kept.empty() && !parent.empty() && kept.count(parent) == 0;
      bool cut = w.cut_unit == u && i == m_units[u].first_turn;
      // The link is patched in the record's bytes, which stay otherwise as they
      // were (and count as they did); a record written otherwise is re-encoded.
      std::size_t at = std::string::npos;
      std::size_t link_size = 0;
      if (orphan && !cut) {
        std::tie(at, link_size) = find_parent_link(conversation[i].raw, parent);
      }
      if (cut) {
        out.push_back(std::move(*w.cut_message));
      } else if (orphan && at == std::string::npos) {
        out.push_back(m_restore(conversation[i], i));  // whole again, to be re-encoded
        out.back().modified = true;
      } else {
        out.push_back(std::move(conversation[i]));
      }
      if (orphan) {
        Message& m = out.back();
        m.meta.edit().parent_uuid = kept_ancestor(parent);
        if (at != std::string::npos) {
          std::string patched = m.raw.str();
          patched.replace(at, link_size,
                          m.meta->parent_uuid.empty()
                              ? std::string("\"parentUuid\":null")
                              : fmt::format("\"parentUuid\":\"{}\"", m.meta->parent_uuid));
          m.raw = patched;
        }
      }
    });
    return out;
  }

 private:
  bool starts_with(std::size_t unit, const TypeSet& types) const {
    return m_units[unit].turns > 0 && types.matches(m_conversation[m_units[unit].first_turn]);
  }
  bool ends_with(std::size_t unit, const TypeSet& types) const {
    return m_units[unit].turns > 0 && types.matches(m_conversation[m_units[unit].last_turn]);
  }

  // Cuts the one message of unit `unit` to fit `room`, when the unit is a single
  // message (calls and results are never split apart).
  void try_cut(Window& w, std::size_t unit, Side side, std::int64_t room) const {
    if (m_units[unit].turns != 1) {
      return;
    }
    const std::size_t index = m_units[unit].first_turn;
    const Message& message = m_conversation[index];
    if (room < 0 || !can_cut(message)) {
      return;
    }
    std::optional<Message> part =
        cut(m_restore(message, index), side, room, m_options.text_splitter, m_counter);
    if (part) {
      w.cut_unit = unit;
      w.cut_message = std::move(part);
    }
  }

  const std::vector<Message>& m_conversation;
  const TrimOptions& m_options;
  const TokenCounter& m_counter;
  Restore m_restore;
  std::vector<AtomicUnit> m_units;
  std::vector<std::int64_t> m_tokens;  // per unit
};

}  // namespace

const std::vector<std::string>& text_splitter_names() {
  static const std::vector<std::string> names = {"newline", "space", "char"};
  return names;
}

std::optional<TextSplitter> parse_text_splitter(std::string_view name) {
  if (name == "newline") {
    return TextSplitter::newline;
  }
  if (name == "space") {
    return TextSplitter::space;
  }
  if (name == "char") {
    return TextSplitter::character;
  }
  return std::nullopt;
}

void check_trim_options(const TrimOptions& options) {
  if (options.max_tokens < 0) {
    throw Error(fmt::format("--max-tokens must be 0 or more, not {}", options.max_tokens),
                ExitCode::usage);
  }
  if (options.strategy == TrimStrategy::first) {
    if (!options.start_on.empty()) {
      throw Error("--start-on works only with --strategy last", ExitCode::usage);
    }
    if (options.include_system) {
      throw Error("--include-system works only with --strategy last", ExitCode::usage);
    }
  }
}

std::vector<std::string> split_text(std::string_view text, TextSplitter splitter) {
  std::vector<std::string> pieces;
  if (splitter == TextSplitter::character) {
    std::size_t i = 0;
    while (i < text.size()) {
      std::size_t j = i + 1;
      while (j < text.size() && (static_cast<unsigned char>(text[j]) & 0xC0) == 0x80) {
        ++j;
      }
      pieces.emplace_back(text.substr(i, j - i));
      i = j;
    }
    return pieces;
  }
  // Like Python's text.split(sep), with the separator kept on every piece but the last.
  const char separator = splitter == TextSplitter::newline ? '\n' : ' ';
  std::size_t start = 0;
  while (true) {
    std::size_t at = text.find(separator, start);
    if (at == std::string_view::npos) {
      pieces.emplace_back(text.substr(start));
      return pieces;
    }
    pieces.emplace_back(text.substr(start, at + 1 - start));
    start = at + 1;
  }
}

namespace {

std::vector<Message> trim_counted(std::vector<Message> conversation,
                                  std::vector<std::int64_t> counts,
                                  const TrimOptions& options, const TokenCounter& counter,
                                  Restore restore) {
  if (conversation.empty()) {
    return conversation;
  }
  Trimmer trimmer(conversation, std::move(counts), options, counter, std::move(restore));
  Window window = options.strategy == TrimStrategy::first ? trimmer.first() : trimmer.last();
  return trimmer.take(conversation, window);
}

// Drops what trim does not look at from a message that will be written as its
// original bytes: its text, tool inputs and results, media data, its parsed JSON,
// and the envelope's strings it never reads (id, timestamp, model, ...). Kept:
// kind, role, names, the session links, response and tool ids, usage, and each
// block's type and ids (for tool links and message types).
void release_content(Message& message) {
  // Swapped with empty ones, not assigned: libstdc++'s move assignment from an
  // empty (short) string keeps the target's heap buffer.
  auto release = [](std::string& s) { std::string().swap(s); };
  message.content.text.release();
  for (Block& block : message.content.blocks) {
    block.text.release();
    release(block.input);
    release(block.cache_control);
    block.source.data.release();
    block.signature.reset();
    block.result.text.release();
    std::vector<Block>().swap(block.result.blocks);
    block.json = nullptr;
    block.input_value = nullptr;
    block.json_owner.reset();
  }
  message.json = nullptr;
  message.source.reset();
  message.id = std::string();
  message.timestamp = std::string();
  if (message.meta.allocated()) {
    RecordMeta& meta = message.meta.edit();
    for (std::string* unread : {&meta.request_id, &meta.model, &meta.stop_reason, &meta.cwd,
                                &meta.git_branch, &meta.short_id}) {
      std::string().swap(*unread);
    }
  }
}

// The first `n` of `values`, taken out of it: the vector itself, not a copy beside
// it (8 bytes a message of a conversation held whole), with what follows (the one
// message of the next conversation) left in `values`.
template <typename T>
std::vector<T> take_front(std::vector<T>& values, std::size_t n) {
  std::vector<T> rest(values.begin() + static_cast<std::ptrdiff_t>(n), values.end());
  values.resize(n);
  std::vector<T> front = std::move(values);
  values = std::move(rest);
  return front;
}

// Holds one conversation at a time (through ConversationStage), counting each
// message's tokens as it comes and releasing the content of those that will be
// written as their bytes.
class TrimStage final : public StreamStage {
 public:
  TrimStage(const TrimOptions& options, std::shared_ptr<const TokenCounter> counter,
            GroupBy group_by, std::optional<Format> to)
      : m_options(options),
        m_counter(std::move(counter)),
        m_to(to),
        m_conversations([this](std::vector<Message> conversation) { return trim_held(std::move(conversation)); },
                        group_by) {}

  void push(Message&& message, MessageSink& next) override {
    m_counts.push_back(m_counter->count_message(message));
    bool own_bytes = message.origin != Format::none && keeps_own_bytes(message, m_to);
    m_released.push_back(own_bytes && message.kind != Kind::invalid);
    if (m_released.back()) {
      release_content(message);
    }
    m_conversations.push(std::move(message), next);
  }

  void finish(MessageSink& next) override { m_conversations.finish(next); }

 private:
  // ConversationStage hands over the messages held so far; the message that made it
  // flush (the first of the next session) has been counted already and stays.
  std::vector<Message> trim_held(std::vector<Message> conversation) {
    const std::size_t n = conversation.size();
    std::vector<std::int64_t> counts = take_front(m_counts, n);
    std::vector<bool> released = take_front(m_released, n);
    m_counter->count_across(conversation, counts);
    Restore restore = [&released](const Message& message, std::size_t index) {
      return released[index] ? decode_again(message) : message;
    };
    std::vector<Message> out =
        trim_counted(std::move(conversation), std::move(counts), m_options, *m_counter, restore);
    if (out.empty() && n > 0 && m_options.emptied) {
      m_options.emptied->fetch_add(1, std::memory_order_relaxed);
    }
    return out;
  }

  TrimOptions m_options;
  std::shared_ptr<const TokenCounter> m_counter;
  std::optional<Format> m_to;
  std::vector<std::int64_t> m_counts;  // of the messages held, and of one more at most
  std::vector<bool> m_released;
  ConversationStage m_conversations;
};

}  // namespace

std::vector<Message> trim(std::vector<Message> conversation, const TrimOptions& options,
                          const TokenCounter& counter) {
  check_trim_options(options);
  std::vector<std::int64_t> counts = counter.count_conversation(conversation);
  return trim_counted(std::move(conversation), std::move(counts), options, counter,
                      [](const Message& message, std::size_t) { return message; });
}

std::unique_ptr<StreamStage> make_trim_stage(const TrimOptions& options,
                                             std::shared_ptr<const TokenCounter> counter,
                                             GroupBy group_by, std::optional<Format> to) {
  check_trim_options(options);
  return std::make_unique<TrimStage>(options, std::move(counter), group_by, to);
}

}  // namespace convo
