#include "message.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <utility>

namespace convo {

std::string_view role_name(Role role) {
  switch (role) {
    case Role::none:
      return "none";
    case Role::system:
      return "system";
    case Role::developer:
      return "developer";
    case Role::user:
      return "human";
    case Role::assistant:
      return "ai";
    case Role::tool:
      return "tool";
    case Role::function:
      return "function";
    case Role::custom:
      return "chat";
  }
  return "none";
}

std::string_view kind_name(Kind kind) {
  switch (kind) {
    case Kind::turn:
      return "turn";
    case Kind::event:
      return "event";
    case Kind::progress:
      return "progress";
    case Kind::attachment:
      return "attachment";
    case Kind::summary:
      return "summary";
    case Kind::bookkeeping:
      return "bookkeeping";
    case Kind::remove:
      return "remove";
    case Kind::unknown:
      return "unknown";
    case Kind::invalid:
      return "invalid";
  }
  return "unknown";
}

std::string_view block_type_name(BlockType type) {
  switch (type) {
    case BlockType::text:
      return "text";
    case BlockType::thinking:
      return "thinking";
    case BlockType::redacted_thinking:
      return "redacted_thinking";
    case BlockType::tool_use:
      return "tool_use";
    case BlockType::tool_result:
      return "tool_result";
    case BlockType::image:
      return "image";
    case BlockType::document:
      return "document";
    case BlockType::audio:
      return "audio";
    case BlockType::video:
      return "video";
    case BlockType::file:
      return "file";
    case BlockType::server_tool_use:
      return "server_tool_use";
    case BlockType::server_tool_result:
      return "server_tool_result";
    case BlockType::unknown:
      return "unknown";
  }
  return "unknown";
}

namespace {

// Atomic only so that a test or fuzz target setting it is no data race; relaxed
// loads cost what plain ones do.
std::atomic<std::size_t> g_borrow_at{Text::k_borrow_at};

}  // namespace

void Text::set_plain_as(const JsonValue& string, const Source* owner) {
  // A string of a shadowed parse (io/record_reader.h) sits in `strings` with its
  // mark in the byte before it; a string of an in-place parse has its opening
  // quote there, which is no mark.
  if (owner == nullptr || !owner->text.empty() || owner->strings.empty() || !string.IsString()) {
    return;
  }
  const std::string_view strings = owner->strings.view();
  const char* const begin = string.GetString();
  if (begin <= strings.data() || begin + string.GetStringLength() >= strings.data() + strings.size()) {
    return;
  }
  m_plain = begin[-1] == static_cast<char>(ShadowMark::as_read);
}

std::size_t Text::borrow_at() { return g_borrow_at.load(std::memory_order_relaxed); }

void Text::set_borrow_at(std::size_t bytes) { g_borrow_at.store(bytes, std::memory_order_relaxed); }

bool Content::empty() const {
  switch (form) {
    case Form::absent:
    case Form::null:
      return true;
    case Form::string:
      return text.empty();
    case Form::blocks:
      return blocks.empty();
  }
  return true;
}

std::string Content::joined_text() const {
  if (form == Form::string) {
    return text.str();
  }
  std::string out;
  for (const Block& block : blocks) {
    if (block.type == BlockType::text) {
      out += block.text;
    }
  }
  return out;
}

// Where Source::make's first chunk is: after the shared_ptr's control block and
// the Source in it, in the same allocation.
struct Source::FirstChunk {
  void* bytes = nullptr;
  std::size_t size = 0;
};

// Allocates the shared_ptr's block (its count and the Source) with the first
// chunk's room after it, and says where that is before the Source is made in it.
template <typename T>
class SourceAllocator {
 public:
  using value_type = T;
  explicit SourceAllocator(Source::FirstChunk& first) : m_first(&first) {}
  template <typename U>
  SourceAllocator(const SourceAllocator<U>& other) : m_first(other.m_first) {}  // NOLINT

  T* allocate(std::size_t n) {
    const std::size_t head = (n * sizeof(T) + 15) / 16 * 16;
    void* p = std::malloc(head + m_first->size);
    if (p == nullptr) {
      throw std::bad_alloc();
    }
    m_first->bytes = static_cast<char*>(p) + head;
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t) { std::free(p); }
  // The Source's constructor taking the chunk is its own (and this, a friend's).
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  template <typename U>
  void destroy(U* p) {
    p->~U();
  }
  template <typename U>
  bool operator==(const SourceAllocator<U>& other) const {
    return m_first == other.m_first;
  }

 private:
  template <typename U>
  friend class SourceAllocator;
  Source::FirstChunk* m_first;
};

Source::Source(std::size_t text_size, const FirstChunk& first)
    : allocator(first.bytes, first.size, chunk_for(text_size), &json_base_allocator()),
      doc(&allocator, k_parse_stack, &json_base_allocator()) {}

std::shared_ptr<Source> Source::make(std::size_t text_size) {
  // RapidJSON's chunk header: a chunk's capacity, its size and the next chunk.
  constexpr std::size_t k_chunk_header = 3 * sizeof(std::size_t);
  FirstChunk first;
  first.size = k_chunk_header + chunk_for(text_size);
  // The Source is made after `allocate` has said where the chunk is.
  return std::allocate_shared<Source>(SourceAllocator<Source>(first), text_size, first);
}

MediaSource MediaSource::from_url(std::string_view url,
                                  const std::shared_ptr<const Source>& owner) {
  MediaSource source;
  constexpr std::string_view k_data = "data:";
  constexpr std::string_view k_base64 = ";base64,";
  auto set_data = [&](std::string_view bytes) {
    if (owner) {
      source.data.borrow(bytes, owner);
    } else {
      source.data = std::string(bytes);
    }
  };
  if (url.substr(0, k_data.size()) == k_data) {
    std::size_t marker = url.find(k_base64);
    if (marker != std::string_view::npos) {
      source.type = Type::base64;
      source.media_type = std::string(url.substr(k_data.size(), marker - k_data.size()));
      set_data(url.substr(marker + k_base64.size()));
      return source;
    }
  }
  source.type = Type::url;
  set_data(url);
  return source;
}

MediaSource MediaSource::from_url(const JsonValue& url, const std::shared_ptr<const Source>& owner) {
  MediaSource source = from_url(view_of(url), owner);
  source.data.set_plain_as(url, owner.get());
  return source;
}

std::string MediaSource::to_url() const {
  switch (type) {
    case Type::url:
      return data.str();
    case Type::base64: {
      std::string url;
      url.reserve(5 + media_type.size() + 8 + data.size());
      url.append("data:").append(media_type).append(";base64,").append(data.view());
      return url;
    }
    case Type::text:
      return "data:" + (media_type.empty() ? std::string("text/plain") : media_type) +
             ";base64," + encode_base64(data.view());
    case Type::none:
    case Type::file_id:
      break;
  }
  return "";
}

std::string MediaSource::base64_data() const {
  return type == Type::base64 ? data.str()
         : type == Type::text ? encode_base64(data.view())
                              : std::string();
}

std::string encode_base64(std::string_view bytes) {
  static constexpr std::string_view k_alphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    std::uint32_t n = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    if (i + 1 < bytes.size()) {
      n |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    }
    if (i + 2 < bytes.size()) {
      n |= static_cast<unsigned char>(bytes[i + 2]);
    }
    out += k_alphabet[(n >> 18) & 63];
    out += k_alphabet[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? k_alphabet[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? k_alphabet[n & 63] : '=';
  }
  return out;
}

std::string Block::input_json() const {
  if (!input.empty()) {
    return input;
  }
  if (input_value != nullptr) {
    return to_json(*input_value);
  }
  return "{}";
}

Block Block::make_text(Text text) {
  Block block;
  block.type = BlockType::text;
  block.type_name = "text";
  block.text = std::move(text);
  return block;
}

Block Block::make_tool_use(std::string id, std::string name, std::string input_json) {
  Block block;
  block.type = BlockType::tool_use;
  block.type_name = "tool_use";
  block.id = std::move(id);
  block.name = std::move(name);
  block.input = input_json.empty() ? std::string("{}") : std::move(input_json);
  return block;
}

Block Block::make_tool_result(std::string tool_use_id, Content content,
                              std::optional<bool> is_error) {
  Block block;
  block.type = BlockType::tool_result;
  block.type_name = "tool_result";
  block.id = std::move(tool_use_id);
  block.result = std::move(content);
  block.is_error = is_error;
  return block;
}

bool Usage::empty() const {
  return !input && !output && !reasoning && !cache_read && !cache_write && !total && !cost;
}

namespace {
template <typename Pred>
std::vector<const Block*> blocks_where(const Content& content, Pred pred) {
  std::vector<const Block*> out;
  if (content.is_blocks()) {
    for (const Block& block : content.blocks) {
      if (pred(block)) {
        out.push_back(&block);
      }
    }
  }
  return out;
}

template <typename Pred>
bool any_block(const Content& content, Pred pred) {
  if (!content.is_blocks()) {
    return false;
  }
  for (const Block& block : content.blocks) {
    if (pred(block)) {
      return true;
    }
  }
  return false;
}

bool is_tool_use(const Block& b) { return b.type == BlockType::tool_use; }
bool is_tool_result(const Block& b) { return b.type == BlockType::tool_result; }
}  // namespace

std::vector<const Block*> Message::tool_uses() const { return blocks_where(content, is_tool_use); }
std::vector<const Block*> Message::tool_results() const {
  return blocks_where(content, is_tool_result);
}
std::string_view media_type_of_url(std::string_view url) {
  static constexpr std::pair<std::string_view, std::string_view> k_types[] = {
      {".png", "image/png"},   {".jpg", "image/jpeg"},      {".jpeg", "image/jpeg"},
      {".gif", "image/gif"},   {".webp", "image/webp"},     {".pdf", "application/pdf"},
      {".mp3", "audio/mpeg"},  {".wav", "audio/wav"},       {".mp4", "video/mp4"},
      {".txt", "text/plain"},
  };
  url = url.substr(0, url.find_first_of("?#"));
  for (const auto& [extension, type] : k_types) {
    if (url.ends_with(extension)) {
      return type;
    }
  }
  return {};
}

std::string url_media_type_loss(const Block& block) {
  const std::string& type = block.source.media_type;
  if (!is_media(block.type) || block.source.type != MediaSource::Type::url || type.empty() ||
      type.ends_with("/*") || (block.type == BlockType::document && type == "application/pdf") ||
      media_type_of_url(block.source.data) == type) {
    return "";
  }
  return "mime types of " + std::string(block_type_name(block.type)) + " blocks";
}

bool Message::has_tool_uses() const { return any_block(content, is_tool_use); }
bool Message::has_tool_results() const { return any_block(content, is_tool_result); }

std::string_view recorded_model(const Message& message) {
  const std::string& model = message.meta->model;
  return model == "<synthetic>" ? std::string_view() : std::string_view(model);
}

std::string_view last_recorded_model(const std::vector<Message>& messages) {
  for (auto it = messages.rbegin(); it != messages.rend(); ++it) {
    if (it->role != Role::assistant) {
      continue;
    }
    if (std::string_view model = recorded_model(*it); !model.empty()) {
      return model;
    }
  }
  return {};
}

std::string openai_role_name(const Message& message) {
  switch (message.role) {
    case Role::system:
      return "system";
    case Role::developer:
      return "developer";
    case Role::user:
      return "user";
    case Role::assistant:
      return "assistant";
    case Role::tool:
      return "tool";
    case Role::function:
      return "function";
    case Role::custom:
      return message.custom_role;
    case Role::none:
      break;
  }
  return "";
}

void Bytes::assign(const char* data, std::size_t size) {
  if (size == 0) {
    clear();
    return;
  }
  // A fresh block first: `data` may point into the old one. The bytes are followed by
  // a NUL, as a std::string's are: parse_json's stream and find_invalid_utf8 read the
  // byte after a view's end as its terminator.
  const bool long_size = size > std::numeric_limits<std::uint32_t>::max();
  const std::size_t header = long_size ? k_header : k_short_header;
  char* block = static_cast<char*>(std::malloc(header + size + 1));
  if (block == nullptr) {
    throw std::bad_alloc();
  }
  if (long_size) {
    const std::uint64_t n = size;
    std::memcpy(block, &n, sizeof n);
  } else {
    const auto n = static_cast<std::uint32_t>(size);
    std::memcpy(block, &n, sizeof n);
  }
  std::memcpy(block + header, data, size);
  block[header + size] = '\0';
  clear();
  m_block = long_size ? reinterpret_cast<char*>(reinterpret_cast<std::uintptr_t>(block) | k_long_tag)
                      : block;
}

void Bytes::adopt(char* block, std::size_t size) {
  if (size == 0) {  // empty Bytes hold no block
    std::free(block);
    clear();
    return;
  }
  const std::uint64_t n = size;
  std::memcpy(block, &n, sizeof n);
  block[k_header + size] = '\0';
  clear();
  m_block = reinterpret_cast<char*>(reinterpret_cast<std::uintptr_t>(block) | k_long_tag);
}

}  // namespace convo
