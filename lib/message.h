// The canonical message: one record of a transcript, in a shape every format maps
// into without loss of meaning. Formats decode into it and encode from it; stages
// read and change it and never see JSON text.
#pragma once

#include <algorithm>
#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "error.h"
#include "json.h"

namespace convo {

enum class Format : std::uint8_t;
struct Container;

// Who speaks. `none` for records that are not conversation turns.
enum class Role : std::uint8_t {
  none,
  system,     // the system prompt (LangChain "system")
  developer,  // OpenAI's developer message: a system message in LangChain terms
  user,       // LangChain "human"
  assistant,  // LangChain "ai"
  tool,       // a tool result message (OpenAI, LangChain); Anthropic uses user + tool_result
  function,   // OpenAI's legacy function result message
  custom,     // any other role string (LangChain ChatMessage); see `Message::custom_role`
};

// What a record is. Only `turn` records are conversation messages; the others are
// the bookkeeping that agent logs interleave with them. Stages decide what each
// kind means; formats only map.
enum class Kind : std::uint8_t {
  turn,         // a conversation message with a role and content
  event,        // Claude Code `system` record: notices, compact boundary, hooks, API errors
  progress,     // Claude Code `progress` record
  attachment,   // Claude Code `attachment` record (hook output, context, skill listings)
  summary,      // Claude Code `summary` record (session title pointing at a leaf)
  bookkeeping,  // other known non-message records: file-history-snapshot, queue-operation,
                // last-prompt, permission-mode, titles, ...
  remove,       // LangChain/Synaptic RemoveMessage
  unknown,      // a record type convo does not know; always passed through
  invalid,      // a malformed line kept by `--on-error keep`; written through unchanged;
                // its content is a string saying what is wrong with it
};

// The name used in `--include-types` etc. and in messages: "human", "ai", ...
std::string_view role_name(Role role);
// "turn", "event", "progress", ...
std::string_view kind_name(Kind kind);

struct Source;

// Moves `from` into `to`, an empty string, unless `from` is empty too. libstdc++
// moves a string held in its own room (15 bytes or fewer: most of a Block's, and
// empty) by copying it with a call to memcpy, however short; a Block has ten of
// them, and is moved for every Responses item converted.
inline void move_unless_empty(std::string& to, std::string& from) noexcept {
  if (!from.empty()) {
    to = std::move(from);
  }
}

// A string of its own, or a view into the parsed record it was decoded from, which
// it keeps alive: a message's text (`Content::text`, `Block::text`) and a media
// source's bytes. A 500 MB tool result is then held once, in the parsed record,
// not a second time as the message's text; base64 images (59% of a Codex
// session's Responses items) likewise. Reads as a std::string_view (==, size,
// empty, find, ...); assigning a std::string gives it its own copy, and `edit()`
// gives the string to change (copying a borrowed view first).
class Text {
 public:
  // Strings this long or longer are borrowed by `share`, shorter ones copied: a
  // short text copied lets its record's parsed JSON go when a stage drops it (a
  // whole conversation held keeps only what it reads), and a long one is most of
  // its record anyway. The long-line size of io/record_reader.h.
  static constexpr std::size_t k_borrow_at = std::size_t{1} << 20;
  // The size `share` borrows from: `k_borrow_at` unless set lower, as the fuzz
  // targets do to reach borrowed texts with inputs of a few KB. One for the
  // process: set it while nothing decodes.
  static std::size_t borrow_at();
  static void set_borrow_at(std::size_t bytes);

  Text() = default;
  // An empty string's move is no call (move_unless_empty).
  Text(Text&& other) noexcept : m_plain(other.m_plain) {
    const auto* own = std::get_if<std::string>(&other.m_value);
    if (own == nullptr || !own->empty()) {
      m_value = std::move(other.m_value);
    }
  }
  Text(const Text&) = default;
  Text& operator=(const Text&) = default;
  Text& operator=(Text&&) noexcept = default;
  ~Text() = default;
  Text(std::string text) : m_value(std::move(text)) {}  // NOLINT(google-explicit-constructor)
  Text(std::string_view text) : m_value(std::string(text)) {}  // NOLINT(google-explicit-constructor)
  Text(const char* text) : m_value(std::string(text)) {}  // NOLINT(google-explicit-constructor)
  Text& operator=(std::string text) {
    m_value = std::move(text);
    m_plain = false;
    return *this;
  }
  Text& operator=(std::string_view text) {
    m_value.emplace<std::string>(text);
    m_plain = false;
    return *this;
  }
  Text& operator=(const char* text) { return *this = std::string_view(text); }

  // Views `bytes`, which `owner` holds (a record's parsed JSON), instead of copying them.
  void borrow(std::string_view bytes, std::shared_ptr<const Source> owner) {
    m_value = Borrowed{bytes, std::move(owner)};
    m_plain = false;
  }
  // `bytes` (a string of `owner`'s, or of nothing when it is null): borrowed when
  // `borrow_at()` bytes or longer and owned, else copied.
  void share(std::string_view bytes, const std::shared_ptr<const Source>& owner) {
    if (owner != nullptr && bytes.size() >= borrow_at()) {
      borrow(bytes, owner);
    } else {
      *this = bytes;
    }
  }
  // Empties it and gives back its memory (or its hold on the record).
  void release() {
    m_value.emplace<std::string>();
    m_plain = false;
  }
  void clear() { release(); }
  bool borrowed() const { return m_value.index() == 1; }
  // The string, to change: a borrowed view is copied first.
  std::string& edit() {
    m_plain = false;
    if (const auto* borrowed = std::get_if<Borrowed>(&m_value)) {
      std::string copy(borrowed->bytes);
      m_value = std::move(copy);
    }
    return std::get<std::string>(m_value);
  }

  // Moves the string out, leaving it empty (a borrowed view is copied).
  std::string take() {
    std::string out = std::move(edit());
    release();
    return out;
  }

  // True when no byte of it needs escaping in a JSON string (no quote, backslash
  // or control character): it was read from a JSON string that had no escapes,
  // and has not changed since. The writers then copy it rather than escape it (a
  // base64 image is most of a record). False says nothing.
  bool plain() const { return m_plain; }
  // Says it is plain when `string`, a string value of `owner`'s parsed JSON that it
  // is (part of), was read without escapes: the parse marked it so
  // (ShadowMark::as_read). (A JsonValue, not a view: a part of a string with
  // escapes may look like a whole one to the marks.)
  void set_plain_as(const JsonValue& string, const Source* owner);

  std::string_view view() const {
    if (const auto* own = std::get_if<std::string>(&m_value)) {
      return *own;
    }
    return std::get<Borrowed>(m_value).bytes;
  }
  operator std::string_view() const { return view(); }  // NOLINT(google-explicit-constructor)
  std::string str() const { return std::string(view()); }
  const char* data() const { return view().data(); }
  std::size_t size() const { return view().size(); }
  std::size_t length() const { return size(); }
  bool empty() const { return view().empty(); }
  char front() const { return view().front(); }
  char back() const { return view().back(); }
  char operator[](std::size_t i) const { return view()[i]; }
  bool starts_with(std::string_view prefix) const { return view().starts_with(prefix); }
  bool ends_with(std::string_view suffix) const { return view().ends_with(suffix); }
  std::size_t find(std::string_view what, std::size_t from = 0) const { return view().find(what, from); }
  std::size_t find(char c, std::size_t from = 0) const { return view().find(c, from); }
  std::size_t rfind(std::string_view what, std::size_t from = std::string_view::npos) const {
    return view().rfind(what, from);
  }
  std::size_t rfind(char c, std::size_t from = std::string_view::npos) const {
    return view().rfind(c, from);
  }
  std::size_t find_first_not_of(std::string_view chars, std::size_t from = 0) const {
    return view().find_first_not_of(chars, from);
  }
  std::size_t find_last_not_of(std::string_view chars,
                               std::size_t from = std::string_view::npos) const {
    return view().find_last_not_of(chars, from);
  }
  std::size_t find_first_of(std::string_view chars, std::size_t from = 0) const {
    return view().find_first_of(chars, from);
  }
  std::string_view substr(std::size_t from, std::size_t count = std::string_view::npos) const {
    return view().substr(from, count);
  }
  std::string_view::const_iterator begin() const { return view().begin(); }
  std::string_view::const_iterator end() const { return view().end(); }
  friend bool operator==(const Text& a, const Text& b) { return a.view() == b.view(); }
  friend bool operator==(const Text& a, std::string_view b) { return a.view() == b; }
  friend bool operator==(const Text& a, const std::string& b) { return a.view() == b; }
  friend bool operator==(const Text& a, const char* b) { return a.view() == b; }
  friend auto operator<=>(const Text& a, const Text& b) { return a.view() <=> b.view(); }
  friend std::string operator+(std::string a, const Text& b) { return a.append(b.view()); }
  friend std::string operator+(const Text& a, std::string_view b) { return a.str().append(b); }

 private:
  struct Borrowed {
    std::string_view bytes;
    std::shared_ptr<const Source> owner;
  };
  // 33 bytes of 40: a member declared [[no_unique_address]] Text lets the next
  // members (a one-byte enum) take the other 7, so that a Text costs no more room
  // than the std::string it replaced.
  [[no_unique_address]] std::variant<std::string, Borrowed> m_value;
  // See plain(). Every change of the text clears it. In the variant's unused bytes.
  bool m_plain = false;
};

// The bytes of a media source (base64 data, a URL, ...).
using MediaBytes = Text;

// Where a media block's bytes are.
struct MediaSource {
  enum class Type : std::uint8_t { none, base64, url, file_id, text };
  Type type = Type::none;
  std::string media_type;  // "image/png", "application/pdf", "text/plain", ...
  MediaBytes data;         // base64 data, URL, file id, or plain text (per `type`)

  MediaSource() = default;
  // An empty media type's move is no call (move_unless_empty): a Block moves one.
  MediaSource(MediaSource&& other) noexcept : type(other.type), data(std::move(other.data)) {
    move_unless_empty(media_type, other.media_type);
  }
  MediaSource(const MediaSource&) = default;
  MediaSource& operator=(const MediaSource&) = default;
  MediaSource& operator=(MediaSource&&) noexcept = default;
  ~MediaSource() = default;

  // A source for `url`: base64 when it is a `data:<type>;base64,` URL, else a URL.
  // With an `owner` (the parsed record `url` is a string of), its data is a view
  // into the record, not a copy.
  static MediaSource from_url(std::string_view url,
                              const std::shared_ptr<const Source>& owner = nullptr);
  // The same for `url`, a string value of `owner`'s; its data is plain (Text::plain)
  // when the string was read without escapes.
  static MediaSource from_url(const JsonValue& url, const std::shared_ptr<const Source>& owner);
  // The source as a URL: the URL itself, or a `data:` URL for base64 data or plain
  // text (as its bytes in base64, `text/plain` unless `media_type` says). Empty for
  // other types.
  std::string to_url() const;
  // The bytes in base64: `data` for base64 data, plain text encoded. Empty for other
  // types.
  std::string base64_data() const;
};

// `bytes` in base64 (RFC 4648, padded).
std::string encode_base64(std::string_view bytes);

enum class BlockType : std::uint8_t {
  text,
  thinking,
  redacted_thinking,
  tool_use,          // a tool call (OpenAI/LangChain tool_calls map to this)
  tool_result,       // a tool result (OpenAI/LangChain tool messages map to this)
  image,
  document,          // PDF or plain-text document (Anthropic)
  audio,
  video,
  file,              // a generic file part (OpenAI `file`)
  server_tool_use,   // Anthropic server tool call (web search, code execution, ...)
  server_tool_result,  // the result blocks of server tools (`*_tool_result`)
  unknown,           // any other block; kept verbatim for its own format
};

std::string_view block_type_name(BlockType type);

// Whether a block of `type` carries media (a MediaSource): image, document, audio,
// video or file.
constexpr bool is_media(BlockType type) {
  return type == BlockType::image || type == BlockType::document || type == BlockType::audio ||
         type == BlockType::video || type == BlockType::file;
}

struct Block;

// A message's content, or a tool result's content: a plain string or a list of
// blocks, remembering which it was so a writer keeps a string a string.
struct Content {
  enum class Form : std::uint8_t { absent, null, string, blocks };
  // (`text` first: `form` takes a byte of its padding.)
  [[no_unique_address]] Text text;  // when `form == string`
  Form form = Form::string;
  std::vector<Block> blocks;  // when `form == blocks`

  bool is_string() const { return form == Form::string; }
  bool is_blocks() const { return form == Form::blocks; }
  // True when there is no text and no block.
  bool empty() const;
  // All text: the string, or the `text` blocks concatenated without separator
  // (LangChain's `.text`).
  std::string joined_text() const;
};

// One content block. Fields that do not apply to `type` are empty.
struct Block {
  // (`text` first: `type` and `is_error` take bytes of its padding.)
  [[no_unique_address]] Text text;  // text; thinking text; redacted_thinking data
  BlockType type = BlockType::text;
  std::optional<bool> is_error;  // tool_result; nullopt when the source did not say
  // `input` is a JSON object as the writer writes it, because convo wrote it (a
  // Responses custom tool call's {"input": TEXT}): no writer need check it again
  // (a patch of megabytes was scanned, copied and compared per call). Whoever
  // changes `input` clears it.
  bool input_as_written = false;
  std::string type_name;  // the "type" string as written in the source, e.g. "web_search_tool_result"
  std::optional<std::string> signature;  // thinking signature
  std::string id;           // tool_use/server_tool_use id; tool_result: the tool_use_id it answers
  std::string name;         // tool name (tool_use; tool_result when the format has it)
  // tool_use input. `input` holds JSON text when a stage set it or the format
  // carries text (OpenAI `arguments`); otherwise `input_value` points at the parsed
  // input in `source`. Read it with `input_json()`.
  std::string input;
  const JsonValue* input_value = nullptr;
  Content result;           // tool_result content
  MediaSource source;       // image/document/audio/video/file
  std::string cache_control;  // JSON text of an Anthropic cache_control marker, or empty
  // The block's JSON in its source format. Members the decoder does not model are
  // written back from here when the block is encoded in that same format.
  const JsonValue* json = nullptr;
  // Keeps `json` and `input_value` alive, wherever the block is moved.
  std::shared_ptr<const Source> json_owner;

  // Not value-initialised to zeros first (`emplace_back()`): the members' own
  // initialisers say it all.
  Block() {}  // NOLINT(modernize-use-equals-default)
  // Member by member, as the default would, but empty strings left as they are
  // (move_unless_empty): a Block's move was ten calls to memcpy. Every member
  // added must be moved here (the size check below is a reminder).
  Block(Block&& other) noexcept;
  Block(const Block&) = default;
  Block& operator=(const Block&) = default;
  Block& operator=(Block&&) noexcept = default;
  ~Block() = default;

  // The tool_use input as JSON text ("{}" when there is none).
  std::string input_json() const;

  static Block make_text(Text text);
  static Block make_tool_use(std::string id, std::string name, std::string input_json);
  static Block make_tool_result(std::string tool_use_id, Content content,
                                std::optional<bool> is_error = std::nullopt);
};

inline Block::Block(Block&& other) noexcept
    : text(std::move(other.text)),
      type(other.type),
      is_error(other.is_error),
      input_as_written(other.input_as_written),
      input_value(other.input_value),
      result(std::move(other.result)),
      source(std::move(other.source)),
      json(other.json),
      json_owner(std::move(other.json_owner)) {
#if defined(__GLIBCXX__) && defined(__x86_64__)  // the size it has there
  static_assert(sizeof(Block) == 416, "a member added to Block: move it in Block(Block&&)");
#endif
  move_unless_empty(type_name, other.type_name);
  if (other.signature) {
    signature = std::move(other.signature);
  }
  move_unless_empty(id, other.id);
  move_unless_empty(name, other.name);
  move_unless_empty(input, other.input);
  move_unless_empty(cache_control, other.cache_control);
}

// The media type a URL's file extension says (".png": "image/png"), "" when it says
// none that convo knows.
std::string_view media_type_of_url(std::string_view url);

// The loss name ("mime types of image blocks") when `block` is media given by URL
// whose media type says more than its kind and its URL (not `image/*`, not a PDF
// document, not what the extension says), which a format whose URL parts hold none
// loses; "" otherwise.
std::string url_media_type_loss(const Block& block);

// Token usage a transcript recorded for a response. Absent counts stay nullopt.
struct Usage {
  std::optional<std::int64_t> input, output, reasoning, cache_read, cache_write, total;
  std::optional<double> cost;

  bool empty() const;
};

// A value held on the heap only when it is not the default: `T`'s members cost a
// pointer in every object that leaves them empty (most messages of most formats
// carry no record metadata: 424 bytes a message, measured). Reads never allocate
// (`box->member`, the default when empty); writes go through `edit()`. Copies copy
// the value, as a plain member would.
template <typename T>
class Boxed {
 public:
  Boxed() = default;
  Boxed(const Boxed& other) : m_value(other.m_value ? std::make_unique<T>(*other.m_value) : nullptr) {}
  Boxed(Boxed&&) noexcept = default;
  Boxed& operator=(const Boxed& other) {
    if (this != &other) {
      m_value = other.m_value ? std::make_unique<T>(*other.m_value) : nullptr;
    }
    return *this;
  }
  Boxed& operator=(Boxed&&) noexcept = default;
  ~Boxed() = default;
  // Holds `value`; a value that is empty (`T::empty()`) takes no room.
  Boxed& operator=(T value) {
    if constexpr (requires { value.empty(); }) {
      if (value.empty()) {
        m_value.reset();
        return *this;
      }
    }
    if (m_value) {
      *m_value = std::move(value);
    } else {
      m_value = std::make_unique<T>(std::move(value));
    }
    return *this;
  }

  // Reads the value as a plain `const T&` (the default when empty).
  operator const T&() const { return **this; }  // NOLINT(google-explicit-constructor)
  // A boxed string reads as a view, and is empty when unset.
  operator std::string_view() const  // NOLINT(google-explicit-constructor)
    requires std::is_same_v<T, std::string>
  {
    return **this;
  }
  bool empty() const
    requires requires(const T& value) { value.empty(); }
  {
    return !m_value || m_value->empty();
  }
  bool operator==(const Boxed& other) const
    requires std::equality_comparable<T>
  {
    return **this == *other;
  }
  bool operator==(std::string_view other) const
    requires std::is_same_v<T, std::string>
  {
    return std::string_view(**this) == other;
  }
  auto operator<=>(const Boxed& other) const
    requires std::three_way_comparable<T>
  {
    return **this <=> *other;
  }

  const T& operator*() const { return m_value ? *m_value : k_default; }
  const T* operator->() const { return m_value ? m_value.get() : &k_default; }
  // The value, to change: allocated (as the default) on first use.
  T& edit() {
    if (!m_value) {
      m_value = std::make_unique<T>();
    }
    return *m_value;
  }
  bool allocated() const { return m_value != nullptr; }

 private:
  static inline const T k_default{};
  std::unique_ptr<T> m_value;
};

// A shared_ptr held on the heap when set: 8 bytes where a std::shared_ptr takes 16,
// for a pointer most messages leave null (the document a message came from). Reads
// and compares as the shared_ptr it holds; assign a shared_ptr or nullptr.
template <typename T>
class BoxedShared {
 public:
  BoxedShared() = default;
  BoxedShared(std::nullptr_t) {}  // NOLINT(google-explicit-constructor)
  BoxedShared(std::shared_ptr<T> p) { *this = std::move(p); }  // NOLINT(google-explicit-constructor)
  BoxedShared(const BoxedShared& other) : BoxedShared(other.shared()) {}
  BoxedShared(BoxedShared&&) noexcept = default;
  BoxedShared& operator=(const BoxedShared& other) {
    if (this != &other) {
      *this = other.shared();
    }
    return *this;
  }
  BoxedShared& operator=(BoxedShared&&) noexcept = default;
  BoxedShared& operator=(std::shared_ptr<T> p) {
    if (!p) {
      m_box.reset();
    } else if (m_box) {
      *m_box = std::move(p);
    } else {
      m_box = std::make_unique<std::shared_ptr<T>>(std::move(p));
    }
    return *this;
  }
  BoxedShared& operator=(std::nullptr_t) {
    m_box.reset();
    return *this;
  }
  ~BoxedShared() = default;

  void reset() { m_box.reset(); }
  T* get() const { return m_box ? m_box->get() : nullptr; }
  T& operator*() const { return *get(); }
  T* operator->() const { return get(); }
  explicit operator bool() const { return m_box != nullptr; }
  std::shared_ptr<T> shared() const { return m_box ? *m_box : nullptr; }
  operator std::shared_ptr<T>() const { return shared(); }  // NOLINT(google-explicit-constructor)
  friend bool operator==(const BoxedShared& a, const BoxedShared& b) { return a.get() == b.get(); }
  friend bool operator==(const BoxedShared& a, const std::shared_ptr<T>& b) {
    return a.get() == b.get();
  }
  friend bool operator==(const BoxedShared& a, std::nullptr_t) { return !a; }

 private:
  std::unique_ptr<std::shared_ptr<T>> m_box;  // null when the pointer is
};

// A record's bytes as they were read: one pointer (8 bytes, where a std::string
// takes 32) to a block holding the size and the bytes; null when empty. Reads as a
// std::string_view. A conversation of millions of short records held whole keeps
// each one's bytes (to write it unchanged), so the 24 bytes count: and the size is
// 4 bytes in a block from `assign` (a 35-byte record's block is then malloc's
// 48-byte chunk, not its 64), 8 in an adopted block or one past 4 GiB, which the
// pointer says by its lowest bit (malloc's blocks are 16-byte aligned).
class Bytes {
 public:
  Bytes() = default;
  Bytes(std::string_view text) { assign(text); }  // NOLINT(google-explicit-constructor)
  Bytes(const Bytes& other) { assign(other.view()); }
  Bytes(Bytes&& other) noexcept : m_block(other.m_block) { other.m_block = nullptr; }
  Bytes& operator=(const Bytes& other) {
    if (this != &other) {
      assign(other.view());
    }
    return *this;
  }
  Bytes& operator=(Bytes&& other) noexcept {
    if (this != &other) {
      clear();
      m_block = other.m_block;
      other.m_block = nullptr;
    }
    return *this;
  }
  Bytes& operator=(std::string_view text) {
    assign(text);
    return *this;
  }
  ~Bytes() { clear(); }

  // The bytes of an adopted block before its data: the size, 8 bytes.
  static constexpr std::size_t k_header = sizeof(std::uint64_t);

  // Holds a copy of `size` bytes at `data` (which may be its own).
  void assign(const char* data, std::size_t size);
  void assign(std::string_view text) { assign(text.data(), text.size()); }
  // Takes `block` without copying it: memory from malloc whose `size` bytes from
  // `block + k_header` on are the bytes, with room for a NUL after them (the size
  // and the NUL are written here). A record's long line is its read buffer, adopted.
  void adopt(char* block, std::size_t size);
  // Empties it, giving its memory back. Inline, and no call to free for an empty
  // one: every message destroyed or moved from clears its bytes, most of them
  // already moved on (five calls a record, converting a Responses file).
  void clear() {
    if (m_block != nullptr) {
      std::free(base());
      m_block = nullptr;
    }
  }

  std::size_t size() const {
    if (m_block == nullptr) {
      return 0;
    }
    if (long_header()) {
      std::uint64_t n = 0;
      std::memcpy(&n, base(), sizeof n);
      return static_cast<std::size_t>(n);
    }
    std::uint32_t n = 0;
    std::memcpy(&n, base(), sizeof n);
    return n;
  }
  bool empty() const { return m_block == nullptr; }
  const char* data() const {
    return m_block != nullptr ? base() + (long_header() ? k_header : k_short_header) : "";
  }
  std::string_view view() const { return std::string_view(data(), size()); }
  operator std::string_view() const { return view(); }  // NOLINT(google-explicit-constructor)
  std::string str() const { return std::string(view()); }
  bool operator==(std::string_view other) const { return view() == other; }
  bool operator==(const Bytes& other) const { return view() == other.view(); }

 private:
  static constexpr std::size_t k_short_header = sizeof(std::uint32_t);
  static constexpr std::uintptr_t k_long_tag = 1;
  bool long_header() const { return (reinterpret_cast<std::uintptr_t>(m_block) & k_long_tag) != 0; }
  char* base() const {
    return reinterpret_cast<char*>(reinterpret_cast<std::uintptr_t>(m_block) & ~k_long_tag);
  }

  // The block: its size (4 bytes, or 8 when tagged), then the bytes and a NUL;
  // tagged in its lowest bit when the size takes 8 bytes.
  char* m_block = nullptr;
};

// A record joined to another one's message: by a stage that merged their messages
// (RecordMeta::merged), or by a writer whose format holds them as one turn
// (EncoderBase::join_reply). Its line in the file of the message it joined, and its
// bytes as read when they are held (Message::raw).
struct JoinedRecord {
  std::uint64_t line = 0;
  Bytes raw;
};

// Record metadata beyond the turn, filled where a format records it: the session
// links and flags of a Claude Code record (uuid, parentUuid, sessionId, isSidechain,
// isMeta, ... : the record's envelope around its message), which other session
// formats map onto (OpenCode's ids, Codex's session); and the identity of the API
// response a message came from (message id, request id, model, stop reason), which
// every format with responses fills. Empty strings mean absent.
struct RecordMeta {
  std::string uuid;
  std::string parent_uuid;
  std::string logical_parent_uuid;  // compact_boundary's link across a compaction
  std::string session_id;
  std::string message_id;  // API response id shared by split assistant records (message.id)
  std::string request_id;
  std::string model;
  std::string stop_reason;
  std::string subtype;            // Claude Code system record subtype, attachment type, ...
  std::string tool_use_id;        // Claude Code progress/attachment: the tool_use it belongs to
  std::string leaf_uuid;          // Claude Code summary: the message it titles
  std::string cwd;         // the agent's working directory (Claude Code `cwd`)
  std::string git_branch;  // its git branch then (Claude Code `gitBranch`)
  std::string short_id;           // split-blocks: Claude Code's short id of `uuid`
                                  // (deriveShortMessageId), written as "shortId"
  bool is_sidechain = false;
  bool is_meta = false;
  bool is_compact_summary = false;
  bool is_virtual = false;
  bool is_api_error = false;  // synthetic API error message (isApiErrorMessage)
  // The records a stage merged into this message after its own (merge-runs joins a
  // run of one speaker's messages), in order: a message that cannot be written is
  // named at the record that holds the fault, and --on-error keep writes all their
  // bytes, as it does a reply a writer joined. Here rather than in Message, whose
  // size every record of a conversation held whole pays.
  std::vector<JoinedRecord> merged;
};

// The source JSON of a decoded record, kept alive for as long as any message or
// block points into it.
//
// `doc`'s values come from `allocator`, a pool whose chunks are sized for the
// record: RapidJSON's default of 64 KB a document is most of the memory of a
// conversation of short records held whole (7.7 KB a 31-byte record, measured).
// Not movable: `doc` points at `allocator`.
struct Source {
  // For a document about as large as `text_size` bytes of JSON text.
  explicit Source(std::size_t text_size = k_default_chunk)
      : allocator(chunk_for(text_size), &json_base_allocator()),
        doc(&allocator, k_parse_stack, &json_base_allocator()) {}
  Source(const Source&) = delete;
  Source& operator=(const Source&) = delete;

  // The same, made with its pool's first chunk in its own allocation (one malloc
  // and free a record read, not two): what the record reader makes for each record.
  static std::shared_ptr<Source> make(std::size_t text_size);

  // A private copy of the record's bytes that the parser unescapes strings into
  // (in-situ parsing: no string is copied twice); `doc`'s strings point into it.
  // Empty when `doc` owns its strings or `strings` holds them.
  std::string text;
  // A record read by io/record_reader.h: the strings the parser unescaped, each at
  // its own offset in the record's bytes, which it read without copying them
  // (`parse_json_shadowed`); as long as the bytes, `doc`'s strings point into it,
  // and `text` is empty.
  Bytes strings;
  // The text `doc` was parsed from, as far as where its strings are goes: `text`,
  // or `strings`, laid out alike (json_as_read finds a value's bytes by it).
  std::string_view parsed_text() const { return text.empty() ? strings.view() : std::string_view(text); }
  JsonAllocator allocator;
  JsonDoc doc;
  // What the decoder made of one object of `doc` that its encoder would otherwise
  // read again, in the decoder's words (for a Responses item, what of it other
  // formats cannot hold: formats/responses_items.cc); `noted` is that object, null
  // when there is none. Set while decoding, through the messages' const view of
  // this: it only saves work, and says nothing of an object it does not name.
  mutable const JsonValue* noted = nullptr;
  mutable std::uint64_t note = 0;

 private:
  struct FirstChunk;
  template <typename T>
  friend class SourceAllocator;
  Source(std::size_t text_size, const FirstChunk& first);
  static constexpr std::size_t k_default_chunk = std::size_t{64} << 10;
  static constexpr std::size_t k_parse_stack = 1024;  // RapidJSON's default
  // A parsed record's values take less room than its text (strings stay in
  // `text`; a member is 32 bytes, a value 16): one chunk is the text's size,
  // between 64 bytes and 64 KB.
  static std::size_t chunk_for(std::size_t text_size) {
    return std::min(std::max(text_size, std::size_t{64}), k_default_chunk);
  }
};

class Message {
 public:
  Kind kind = Kind::turn;
  Role role = Role::user;
  Format origin{};        // the format it was decoded from (see Provenance below)
  bool modified = false;  // a stage changed it: re-encode instead of passing `raw`
  // Set for messages decoded from a multi-message document (a request body, a
  // `{"loglines": [...]}` file): the position within `container` (below). Held in
  // the bytes after the flags, where it costs nothing.
  std::uint32_t slot = 0;
  // Strings most records of most formats leave empty are boxed (8 bytes, not 32,
  // when empty: a conversation of millions of short records held whole is mostly
  // its `Message`s): read `*id`, `id->size()` or compare `id == "x"`, assign a
  // std::string.
  Boxed<std::string> custom_role;  // when role == custom
  Boxed<std::string> record_type;  // the record's own type string ("progress", "pr-link", "human")
  Boxed<std::string> id;           // the message's id (Claude Code: uuid); empty when absent
  Boxed<std::string> name;  // sender name (OpenAI/LangChain `name`); empty when absent
  Boxed<std::string> timestamp;
  Content content;
  Boxed<RecordMeta> meta;  // read `meta->uuid`; write `meta.edit().uuid = ...`
  // Token usage: on responses only (most records of most logs have none), so held
  // on the heap when set (112 bytes a message otherwise). Read `usage->input`;
  // write `usage.edit().input = ...`.
  Boxed<Usage> usage;

  // --- Provenance: how the message was read, for lossless writing. ---

  Location where;   // file and line it came from
  // The original bytes of the record (one line, or the whole document for a
  // record that spans lines). Written verbatim when the output format is
  // `origin` and `modified` is false.
  Bytes raw;
  // The parsed record; members the decoder did not model are written back from it.
  std::shared_ptr<const Source> source;
  // The JSON object of the message within `source` (the record itself, or e.g. the
  // `message` of a Claude Code line, or one element of a request's `messages`).
  const JsonValue* json = nullptr;
  // Set for messages decoded from a multi-message document (a request body, a
  // `{"loglines": [...]}` file); `slot` (above) is the position within it.
  BoxedShared<const Container> container;

  // Not value-initialised to zeros first (`emplace_back()`, a decoder's for each
  // record): the members' own initialisers say it all.
  Message() {}  // NOLINT(modernize-use-equals-default)

  // Stages call this before changing a message they did not create.
  void touch() { modified = true; }

  bool is_turn() const { return kind == Kind::turn; }
  // The tool_use blocks, in order.
  std::vector<const Block*> tool_uses() const;
  // The tool_result blocks, in order.
  std::vector<const Block*> tool_results() const;
  bool has_tool_uses() const;
  bool has_tool_results() const;
};

// The model `message` records as its writer: empty when it names none, and for an
// API error message's "<synthetic>", which is no model.
std::string_view recorded_model(const Message& message);

// The model that last answered in `messages`: the recorded_model of the last
// assistant message that has one; empty when none does. A request continuing the
// conversation goes to it by default, and Claude Code resumes a session with it.
std::string_view last_recorded_model(const std::vector<Message>& messages);

// How a role is named in the OpenAI API: "user", "assistant", "system",
// "developer", "tool", "function", or the custom role.
std::string openai_role_name(const Message& message);

}  // namespace convo
