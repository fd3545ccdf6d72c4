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
#include "held_records.h"
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

// Where `"parentUuid": "<parent>"` is in a record's bytes (whatever the spacing
// around the colon), and its length; npos when it is not there as such.
std::pair<std::size_t, std::size_t> find_parent_link(std::string_view raw,
                                                     std::string_view parent) {
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

// What trim keeps: units [from, to), the system unit before them, and in unit
// `cut_unit` its one message replaced by `cut_message`.
struct Window {
  bool system = false;  // unit 0 is the system message, kept apart
  std::size_t from = 0;
  std::size_t to = 0;
  std::optional<std::size_t> cut_unit;
  std::optional<Message> cut_message;
};

// What trim reads of a record besides its tokens and its unit, one byte a record.
enum TrimTrait : std::uint8_t {
  k_starts = 1,    // of a --start-on type
  k_ends = 2,      // of an --end-on type
  k_system = 4,    // a system message (--include-system)
  k_cuttable = 8,  // one --allow-partial may cut (`can_cut`)
  k_released = 16, // its content released as it was held (`release_content`)
};

std::uint8_t trim_traits(const Message& message, const TrimOptions& options) {
  if (!message.is_turn()) {
    return 0;  // only turns start or end a unit, or are cut
  }
  std::uint8_t traits = 0;
  if (!options.start_on.empty() && options.start_on.matches(message)) {
    traits |= k_starts;
  }
  if (!options.end_on.empty() && options.end_on.matches(message)) {
    traits |= k_ends;
  }
  if (options.include_system && has_type(message, "system")) {
    traits |= k_system;
  }
  if (can_cut(message)) {
    traits |= k_cuttable;
  }
  return traits;
}

// The records of one conversation as trim reads them: their traits, their session
// links (as ids in `strings()`, which may grow as they are asked for) and bytes,
// and each as a `Message`: whole, as it was read (to be cut, or re-encoded with a
// patched link), or as held (to be written as its bytes; each record taken once).
class TrimRecords {
 public:
  virtual ~TrimRecords() = default;
  virtual std::uint8_t traits(std::size_t index) const = 0;
  virtual std::uint32_t uuid(std::size_t index) = 0;
  virtual std::uint32_t parent(std::size_t index) = 0;
  virtual const StringTable& strings() = 0;
  virtual std::string_view bytes(std::size_t index) const = 0;
  virtual Message whole(std::size_t index) const = 0;
  virtual Message take(std::size_t index) = 0;
};

// A conversation held as its `Message`s, some with their content released
// (`released`, or none).
class MessageRecords final : public TrimRecords {
 public:
  MessageRecords(std::vector<Message>& conversation, const std::vector<bool>* released,
                 const TrimOptions& options)
      : m_conversation(conversation), m_released(released), m_options(options) {}

  std::uint8_t traits(std::size_t index) const override {
    const bool released = m_released != nullptr && (*m_released)[index];
    return static_cast<std::uint8_t>(trim_traits(m_conversation[index], m_options) |
                                     (released ? k_released : 0));
  }
  // Interned as they are asked for: copies, which stay as the messages move out.
  std::uint32_t uuid(std::size_t index) override {
    return m_strings.intern(m_conversation[index].meta->uuid);
  }
  std::uint32_t parent(std::size_t index) override {
    return m_strings.intern(m_conversation[index].meta->parent_uuid);
  }
  const StringTable& strings() override { return m_strings; }
  std::string_view bytes(std::size_t index) const override {
    return m_conversation[index].raw.view();
  }
  Message whole(std::size_t index) const override {
    const Message& message = m_conversation[index];
    return (traits(index) & k_released) != 0 ? decode_again(message) : message;
  }
  Message take(std::size_t index) override { return std::move(m_conversation[index]); }

 private:
  std::vector<Message>& m_conversation;
  const std::vector<bool>* m_released;
  const TrimOptions& m_options;
  StringTable m_strings;
};

// A conversation held compactly (`HeldRecords`), with the traits of its records
// read as they were held.
class CompactRecords final : public TrimRecords {
 public:
  CompactRecords(HeldRecords& held, const std::vector<std::uint8_t>& traits)
      : m_held(held), m_traits(traits) {}

  std::uint8_t traits(std::size_t index) const override { return m_traits[index]; }
  std::uint32_t uuid(std::size_t index) override { return m_held.uuid_id(index); }
  std::uint32_t parent(std::size_t index) override { return m_held.parent_id(index); }
  const StringTable& strings() override { return m_held.strings(); }
  std::string_view bytes(std::size_t index) const override { return m_held.bytes(index); }
  Message whole(std::size_t index) const override {
    if (const Message* full = m_held.full(index)) {
      return (m_traits[index] & k_released) != 0 ? decode_again(*full) : *full;
    }
    // Made from its bytes (`take` copies them, and leaves them held).
    return decode_again(m_held.take(index));
  }
  Message take(std::size_t index) override {
    const bool compact = m_held.full(index) == nullptr;
    Message message = m_held.take(index);
    if (compact) {
      message.json = nullptr;  // written as its bytes, as a released message is
    }
    return message;
  }

 private:
  HeldRecords& m_held;
  const std::vector<std::uint8_t>& m_traits;
};

class Trimmer {
 public:
  // `counts[i]` is the tokens of record i within the conversation; `units` its
  // atomic units.
  Trimmer(TrimRecords& records, std::vector<AtomicUnit> units, std::vector<std::int64_t> counts,
          const TrimOptions& options, const TokenCounter& counter)
      : m_records(records),
        m_options(options),
        m_counter(counter),
        m_units(std::move(units)),
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
      while (idx > 0 && !ends_with(idx - 1)) {
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
      while (end > 0 && !ends_with(end - 1)) {
        --end;
      }
    }
    std::size_t begin = 0;
    std::int64_t room = m_options.max_tokens;
    if (m_options.include_system && end > 0 && m_units[0].turns > 0 &&
        (m_records.traits(m_units[0].first_turn) & k_system) != 0) {
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
      while (idx < end && !starts_with(idx)) {
        ++idx;
      }
    }
    w.from = idx;
    w.to = end;
    return w;
  }

  std::vector<Message> take(Window& w) const {
    // A kept record whose parent is dropped (Claude Code's parentUuid chain) is
    // linked to its nearest kept ancestor, or made a root: the result reads as a
    // conversation on its own, and `check` finds no dangling parent in it. The
    // links are ids of strings the records hold (they stay as the records move
    // out), the ancestors found through vectors by id: 5 bytes a uuid, not a map.
    constexpr std::uint32_t none = StringTable::k_none;
    const std::size_t n = m_units.empty() ? 0 : m_units.back().end;
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
    std::vector<std::uint32_t> kept_uuids;
    each_kept([&](std::size_t, std::size_t i) {
      if (std::uint32_t uuid = m_records.uuid(i); uuid != none) {
        kept_uuids.push_back(uuid);
      }
    });
    const bool any_kept = !kept_uuids.empty();
    if (any_kept) {
      for (std::size_t i = 0; i < n; ++i) {  // every link an id, before the ids are counted
        m_records.uuid(i);
        m_records.parent(i);
      }
    }
    const StringTable& strings = m_records.strings();
    std::vector<bool> kept(strings.size(), false);  // by uuid
    for (std::uint32_t uuid : kept_uuids) {
      kept[uuid] = true;
    }
    // Each uuid's parent, as its first record names it.
    std::vector<std::uint32_t> parent_of;
    std::vector<bool> has_parent_of;
    std::size_t uuids = 0;
    if (any_kept) {
      parent_of.assign(strings.size(), none);
      has_parent_of.assign(strings.size(), false);
      for (std::size_t i = 0; i < n; ++i) {
        if (std::uint32_t uuid = m_records.uuid(i); uuid != none && !has_parent_of[uuid]) {
          has_parent_of[uuid] = true;
          parent_of[uuid] = m_records.parent(i);
          ++uuids;
        }
      }
    }
    // The nearest kept ancestor of a record whose parent is `parent`, or none.
    auto kept_ancestor = [&](std::uint32_t parent) {
      std::size_t steps = 0;
      while (parent != none && !kept[parent] && steps++ < uuids) {
        parent = has_parent_of[parent] ? parent_of[parent] : none;
      }
      return parent != none && kept[parent] ? parent : none;
    };
    std::vector<Message> out;
    each_kept([&](std::size_t u, std::size_t i) {
      const std::uint32_t parent = m_records.parent(i);
      bool orphan = any_kept && parent != none && !kept[parent];
      bool cut = w.cut_unit == u && i == m_units[u].first_turn;
      // The link is patched in the record's bytes, which stay otherwise as they
      // were (and count as they did); a record written otherwise is re-encoded.
      std::size_t at = std::string::npos;
      std::size_t link_size = 0;
      if (orphan && !cut) {
        std::tie(at, link_size) = find_parent_link(m_records.bytes(i), strings.text(parent));
      }
      if (cut) {
        out.push_back(std::move(*w.cut_message));
      } else if (orphan && at == std::string::npos) {
        out.push_back(m_records.whole(i));  // whole again, to be re-encoded
        out.back().modified = true;
      } else {
        out.push_back(m_records.take(i));
      }
      if (orphan) {
        Message& m = out.back();
        m.meta.edit().parent_uuid = strings.text(kept_ancestor(parent));
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
  bool starts_with(std::size_t unit) const {
    return m_units[unit].turns > 0 && (m_records.traits(m_units[unit].first_turn) & k_starts) != 0;
  }
  bool ends_with(std::size_t unit) const {
    return m_units[unit].turns > 0 && (m_records.traits(m_units[unit].last_turn) & k_ends) != 0;
  }

  // Cuts the one message of unit `unit` to fit `room`, when the unit is a single
  // message (calls and results are never split apart).
  void try_cut(Window& w, std::size_t unit, Side side, std::int64_t room) const {
    if (m_units[unit].turns != 1) {
      return;
    }
    const std::size_t index = m_units[unit].first_turn;
    if (room < 0 || (m_records.traits(index) & k_cuttable) == 0) {
      return;
    }
    std::optional<Message> part =
        cut(m_records.whole(index), side, room, m_options.text_splitter, m_counter);
    if (part) {
      w.cut_unit = unit;
      w.cut_message = std::move(part);
    }
  }

  TrimRecords& m_records;
  const TrimOptions& m_options;
  const TokenCounter& m_counter;
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

std::vector<Message> trim_counted(TrimRecords& records, std::vector<AtomicUnit> units,
                                  std::vector<std::int64_t> counts, const TrimOptions& options,
                                  const TokenCounter& counter) {
  if (units.empty()) {
    return {};
  }
  Trimmer trimmer(records, std::move(units), std::move(counts), options, counter);
  Window window = options.strategy == TrimStrategy::first ? trimmer.first() : trimmer.last();
  return trimmer.take(window);
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
    block.input_as_written = false;
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

// Holds one conversation at a time, counting each message's tokens as it comes
// and releasing the content of those that will be written as their bytes. A
// conversation of one whole input (--group-by file: a Claude Code log of a
// gigabyte) is held compactly instead: each record written as its bytes is held
// as those bytes, what `HeldRecords` keeps beside them (48 bytes and its uuid),
// and what trim reads of it (its tokens and traits, 9 bytes, its response where it
// is not the first record of one, and the 4 bytes of its atomic unit, found as it
// comes); a `Message` is made only for a record kept. Other groupings hold a session, mostly short: as `Message`s.
class TrimStage final : public StreamStage {
 public:
  TrimStage(const TrimOptions& options, std::shared_ptr<const TokenCounter> counter,
            GroupBy group_by, std::optional<Format> to)
      : m_options(options),
        m_counter(std::move(counter)),
        m_to(to),
        m_compact(group_by == GroupBy::file),
        m_conversations([this](std::vector<Message> conversation) { return trim_held(std::move(conversation)); },
                        group_by),
        m_held(false) {}

  void push(Message&& message, MessageSink& next) override {
    m_counts.push_back(m_counter->count_message(message));
    bool own_bytes = message.origin != Format::none && keeps_own_bytes(message, m_to);
    const bool released = own_bytes && message.kind != Kind::invalid;
    if (released) {
      release_content(message);
    }
    if (!m_compact) {
      m_released.push_back(released);
      m_conversations.push(std::move(message), next);
      return;
    }
    // What trim reads is read as the record comes (of the released record, as it
    // is read of one held whole).
    const auto index = static_cast<std::uint32_t>(m_units.size());
    if (const std::size_t start = m_units.add(message); start != index) {
      m_later.emplace_back(index, static_cast<std::uint32_t>(start));
    }
    if (const std::int64_t output = m_counter->response_output(message); output >= 0) {
      m_outputs.emplace_back(index, output);
    }
    std::uint8_t traits = trim_traits(message, m_options);
    if (released && m_held.may_hold_as_bytes(message)) {
      mark_held_as_bytes(message);
    } else if (released) {
      traits |= k_released;
    }
    m_traits.push_back(traits);
    m_held.hold(std::move(message));
  }

  void finish(MessageSink& next) override {
    if (!m_compact) {
      m_conversations.finish(next);
      return;
    }
    if (m_held.empty()) {
      return;
    }
    count_across();
    CompactRecords records(m_held, m_traits);
    std::vector<Message> out = trim_counted(records, m_units.finish(), std::move(m_counts),
                                            m_options, *m_counter);
    m_counts = {};
    m_held.clear();
    std::vector<std::uint8_t>().swap(m_traits);
    count_emptied(out, 1);
    next.put_conversation(std::move(out));
  }

 private:
  // TokenCounter::count_across over what was kept of the records held compactly:
  // with usage recorded (the usage counter), each record's response and output.
  void count_across() {
    if (!m_outputs.empty()) {
      std::vector<std::uint32_t> starts(m_counts.size());
      for (std::uint32_t i = 0; i < starts.size(); ++i) {
        starts[i] = i;
      }
      for (auto [index, start] : m_later) {
        starts[index] = start;
      }
      std::vector<std::int64_t> outputs(m_counts.size(), -1);
      for (auto [index, output] : m_outputs) {
        outputs[index] = output;
      }
      TokenCounter::count_responses(starts, outputs, m_counts);
    }
    std::vector<std::pair<std::uint32_t, std::uint32_t>>().swap(m_later);
    std::vector<std::pair<std::uint32_t, std::int64_t>>().swap(m_outputs);
  }

  void count_emptied(const std::vector<Message>& out, std::size_t n) const {
    if (out.empty() && n > 0 && m_options.emptied) {
      m_options.emptied->fetch_add(1, std::memory_order_relaxed);
    }
  }

  // ConversationStage hands over the messages held so far; the message that made it
  // flush (the first of the next session) has been counted already and stays.
  std::vector<Message> trim_held(std::vector<Message> conversation) {
    const std::size_t n = conversation.size();
    std::vector<std::int64_t> counts = take_front(m_counts, n);
    std::vector<bool> released = take_front(m_released, n);
    m_counter->count_across(conversation, counts);
    std::vector<AtomicUnit> units = atomic_units(conversation);
    MessageRecords records(conversation, &released, m_options);
    std::vector<Message> out =
        trim_counted(records, std::move(units), std::move(counts), m_options, *m_counter);
    count_emptied(out, n);
    return out;
  }

  TrimOptions m_options;
  std::shared_ptr<const TokenCounter> m_counter;
  std::optional<Format> m_to;
  bool m_compact;
  std::vector<std::int64_t> m_counts;  // of the messages held, and of one more at most
  // Held as `Message`s (through m_conversations).
  std::vector<bool> m_released;
  ConversationStage m_conversations;
  // Held compactly.
  HeldRecords m_held;
  AtomicUnitBuilder m_units;
  // The records not the first of their response, with its first; the records with
  // a `TokenCounter::response_output` (only those: most counters record none).
  std::vector<std::pair<std::uint32_t, std::uint32_t>> m_later;
  std::vector<std::pair<std::uint32_t, std::int64_t>> m_outputs;
  std::vector<std::uint8_t> m_traits;  // TrimTrait
};

}  // namespace

std::vector<Message> trim(std::vector<Message> conversation, const TrimOptions& options,
                          const TokenCounter& counter) {
  check_trim_options(options);
  std::vector<std::int64_t> counts = counter.count_conversation(conversation);
  std::vector<AtomicUnit> units = atomic_units(conversation);
  MessageRecords records(conversation, nullptr, options);
  return trim_counted(records, std::move(units), std::move(counts), options, counter);
}

std::unique_ptr<StreamStage> make_trim_stage(const TrimOptions& options,
                                             std::shared_ptr<const TokenCounter> counter,
                                             GroupBy group_by, std::optional<Format> to) {
  check_trim_options(options);
  return std::make_unique<TrimStage>(options, std::move(counter), group_by, to);
}

}  // namespace convo
