// Writes a JSON object that keeps an original object's members, in their order, with
// the members a format models replaced by the model's values. This is how a changed
// message keeps every field convo does not understand.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "json.h"

namespace convo {

struct Block;

class ObjectWriter {
 public:
  using WriteFn = std::function<void(JsonWriter&)>;

  // `original` may be null (a fresh object) and must otherwise be an object.
  ObjectWriter(JsonWriter& writer, const JsonValue* original);

  // Member `key` gets the value `write` produces. It takes the original member's
  // place when there is one, else it follows the original members in call order.
  // `key` must outlive write(); values passed to the setters below are copied.
  ObjectWriter& set(std::string_view key, WriteFn write);
  ObjectWriter& set_string(std::string_view key, std::string_view value);
  ObjectWriter& set_bool(std::string_view key, bool value);
  ObjectWriter& set_int(std::string_view key, std::int64_t value);
  // `json` must be valid JSON text.
  ObjectWriter& set_raw(std::string_view key, std::string_view json);
  ObjectWriter& set_null(std::string_view key);
  // Member `key` is the list of `blocks` (copied), each written by `write_one`; with
  // no blocks it is left out, also where the original has it (a list of tool calls
  // a stage emptied).
  ObjectWriter& set_blocks(std::string_view key, std::vector<const Block*> blocks,
                           std::function<void(JsonWriter&, const Block&)> write_one);
  // Member `key` is left out even when the original has it.
  ObjectWriter& remove(std::string_view key);

  // True when the original object has member `key`.
  bool original_has(std::string_view key) const;

  // Writes the object. Call once.
  void write();

 private:
  // A member's new value: written by `write`, or (no function to allocate) the
  // string or JSON text in `text`; neither: removed.
  struct Entry {
    enum class Kind : unsigned char { write, string, raw, remove };
    std::string_view key;
    WriteFn write;
    std::string text;
    Kind kind = Kind::remove;
    bool used = false;
  };
  Entry& entry(std::string_view key);
  Entry* find(std::string_view key);
  void write_value(Entry& entry);

  JsonWriter& m_writer;
  const JsonValue* m_original;
  std::vector<Entry> m_entries;
};

}  // namespace convo
