// Small writing helpers shared by the format encoders.
#pragma once

#include <concepts>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "json.h"
#include "message.h"

namespace convo {

// A cleared StringBuffer to write one value into, lent from a pool of the thread
// and given back when this goes: a fresh buffer for each record starts at 256
// bytes and is copied at every step it grows (and once to the length of each long
// string times six, RapidJSON's reserve for escapes). Lends nest (one lend a
// level). A buffer past 1 MB is freed when given back, so memory stays flat.
class PooledBuffer {
 public:
  PooledBuffer() {
    Pool& pool = pool_of_thread();
    if (pool.lent == pool.buffers.size()) {
      pool.buffers.push_back(std::make_unique<rapidjson::StringBuffer>());
    }
    m_buffer = pool.buffers[pool.lent++].get();
  }
  ~PooledBuffer() {
    m_buffer->Clear();
    if (m_buffer->stack_.GetCapacity() > (std::size_t{1} << 20)) {
      m_buffer->ShrinkToFit();
    }
    --pool_of_thread().lent;
  }
  PooledBuffer(const PooledBuffer&) = delete;
  PooledBuffer& operator=(const PooledBuffer&) = delete;

  rapidjson::StringBuffer& get() { return *m_buffer; }

 private:
  struct Pool {
    std::vector<std::unique_ptr<rapidjson::StringBuffer>> buffers;
    std::size_t lent = 0;
  };
  static Pool& pool_of_thread() {
    thread_local Pool pool;
    return pool;
  }
  rapidjson::StringBuffer* m_buffer;
};

// Writes `text` as a JSON string (it may hold NUL bytes).
inline void write_string(JsonWriter& w, std::string_view text) {
  w.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

// The buffer a writer writes into (RapidJSON keeps it protected): what is appended
// there follows what the writer wrote, as `write_string_pieces` does.
inline rapidjson::StringBuffer& stream_of(JsonWriter& w) {
  struct Access : JsonWriter {
    static rapidjson::StringBuffer& of(JsonWriter& writer) { return *(writer.*(&Access::os_)); }
  };
  return Access::of(w);
}

// A member name convo spells itself: a string literal, checked when compiled to hold
// nothing the writer would escape, so that `write_key` can write it as it is.
class PlainKey {
 public:
  template <std::size_t N>
  consteval PlainKey(const char (&name)[N])  // NOLINT(google-explicit-constructor)
      : m_name(name, N - 1) {
    for (const char c : m_name) {
      if (static_cast<unsigned char>(c) < 0x20 || c == '"' || c == '\\') {
        throw "a PlainKey is written unescaped: it cannot hold this character";
      }
    }
  }
  std::string_view view() const { return m_name; }

 private:
  std::string_view m_name;
};

// Writes `key` as the writer writes a member name, without its escaping scan (which
// reserves six bytes a byte): a record of a format convo makes is a dozen of them.
inline void write_key(JsonWriter& w, PlainKey key) {
  const std::string_view name = key.view();
  w.RawValue("", 0, rapidjson::kStringType);  // the comma before it; counts it as the key
  char* at = stream_of(w).Push(name.size() + 2);
  at[0] = '"';
  std::memcpy(at + 1, name.data(), name.size());
  at[name.size() + 1] = '"';
}

// Writes member `key` with the string `value` (which may be empty, or hold NULs).
inline void write_string_member(JsonWriter& w, PlainKey key, std::string_view value) {
  write_key(w, key);
  w.String(value.empty() ? "" : value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

// Appends `text` JSON-escaped (no quotes) to `out`, as the writer escapes strings.
inline void append_json_escaped(rapidjson::StringBuffer& out, std::string_view text) {
  const std::size_t room = text.size() * 6;
  char* const start = out.Push(room);
  char* const end = escape_json(start, text.data(), text.data() + text.size());
  out.Pop(room - static_cast<std::size_t>(end - start));
}

// Appends `text` to `out` as `append_json_escaped` would: copied when it is plain
// (Text::plain, nothing in it to escape), else escaped.
inline void append_json_text(rapidjson::StringBuffer& out, const Text& text) {
  if (text.plain()) {
    std::memcpy(out.Push(text.size()), text.data(), text.size());
  } else {
    append_json_escaped(out, text);
  }
}

// Writes one JSON string value whose text is `pieces` one after the other, escaped
// straight into the writer's buffer: the bytes `write_string` would write for the
// pieces joined, without joining them (a `data:` URL of a base64 image is mostly its
// data, which stays where it is), then `tail` (a Text, copied when it is plain).
inline void write_string_pieces(JsonWriter& w, std::initializer_list<std::string_view> pieces,
                                const Text* tail = nullptr) {
  w.RawValue("", 0, rapidjson::kStringType);  // the comma or colon before it; counts it
  rapidjson::StringBuffer& out = stream_of(w);
  out.Put('"');
  for (std::string_view piece : pieces) {
    append_json_escaped(out, piece);
  }
  if (tail != nullptr) {
    append_json_text(out, *tail);
  }
  out.Put('"');
}

// Writes `text` as a JSON string: `write_string`'s bytes, copied rather than escaped
// when the text is plain (a base64 image's data read without escapes).
// (A template, so that a std::string is not as much a Text as a string_view.)
template <class T>
  requires std::same_as<T, Text>
void write_string(JsonWriter& w, const T& text) {
  if (!text.plain()) {
    write_string(w, text.view());
    return;
  }
  write_string_pieces(w, {}, &text);
}

// Writes `source` as a URL string (MediaSource::to_url's text, not built): the URL,
// or a `data:` URL for base64 data; "" for other types.
inline void write_media_url(JsonWriter& w, const MediaSource& source) {
  if (source.type == MediaSource::Type::base64) {
    write_string_pieces(w, {"data:", source.media_type, ";base64,"}, &source.data);
  } else if (source.type == MediaSource::Type::url) {
    write_string_pieces(w, {}, &source.data);
  } else {
    write_string_pieces(w, {});
  }
}

// Writes `json` (valid JSON text) as it is.
inline void write_raw(JsonWriter& w, std::string_view json) {
  w.RawValue(json.data(), json.size(), rapidjson::kObjectType);
}

// True when `value` is one of the elements of `array` (compared by address): tells
// whether a block's JSON came from a given member of its record.
inline bool is_element_of(const JsonValue* array, const JsonValue* value) {
  if (array == nullptr || value == nullptr || !array->IsArray()) {
    return false;
  }
  for (const JsonValue& element : array->GetArray()) {
    if (&element == value) {
      return true;
    }
  }
  return false;
}

// `text` parsed as a JSON object into `doc`; false when it is not one.
inline bool parse_object(std::string_view text, JsonDoc& doc) {
  std::string copy(text);
  return !parse_json(copy, doc) && doc.IsObject();
}

// Writes a tool call's input as a JSON object: the parsed input when the block
// points at one, else its text when that is a JSON object. Returns false, writing
// nothing, when the input is not a JSON object (broken OpenAI `arguments`).
inline bool write_tool_input(JsonWriter& w, const Block& block) {
  if (block.input.empty() && block.input_value != nullptr) {
    if (!block.input_value->IsObject()) {
      return false;
    }
    block.input_value->Accept(w);
    return true;
  }
  if (block.input_as_written && !block.input.empty()) {
    write_raw(w, block.input);
    return true;
  }
  // The text itself, not input_json()'s copy.
  std::string_view text = block.input.empty() ? std::string_view("{}") : std::string_view(block.input);
  if (json_text_type(text) != rapidjson::kObjectType) {
    return false;
  }
  write_raw(w, text);
  return true;
}

}  // namespace convo
