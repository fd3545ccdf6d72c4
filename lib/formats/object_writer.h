// Writes a JSON object that keeps an original object's members, in their order, with
// the members a format models replaced by the model's values. This is how a changed
// message keeps every field convo does not understand.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <string>
#include <string_view>
#include <vector>

#include "json.h"

namespace convo {

struct Block;

// An object's new members and the copies and callables they need are kept in the
// writer itself, in a kilobyte of room (more, rarely, from the heap): a record
// writes a few objects, each setting a few members, and each was a handful of
// small allocations (the member list, a string copied, a lambda's captures).
class ObjectWriter {
 public:
  // `original` may be null (a fresh object) and must otherwise be an object.
  ObjectWriter(JsonWriter& writer, const JsonValue* original);
  ~ObjectWriter();
  ObjectWriter(const ObjectWriter&) = delete;
  ObjectWriter& operator=(const ObjectWriter&) = delete;

  // Member `key` gets the value `write(JsonWriter&)` produces (it is moved or
  // copied in and called by write()). It takes the original member's place when
  // there is one, else it follows the original members in call order. `key` must
  // outlive write(); values passed to the setters below are copied.
  template <class Fn>
    requires std::invocable<std::decay_t<Fn>&, JsonWriter&>
  ObjectWriter& set(std::string_view key, Fn&& write) {
    using F = std::decay_t<Fn>;
    static_assert(alignof(F) <= alignof(std::max_align_t));
    Entry& e = entry(key);
    F* fn = ::new (take(sizeof(F), alignof(F))) F(std::forward<Fn>(write));
    drop_callable(e);
    e.kind = Entry::Kind::write;
    e.fn = fn;
    e.call = [](void* f, JsonWriter& w) { (*static_cast<F*>(f))(w); };
    if constexpr (!std::is_trivially_destructible_v<F>) {
      e.destroy = [](void* f) { static_cast<F*>(f)->~F(); };
    }
    return *this;
  }
  ObjectWriter& set_string(std::string_view key, std::string_view value);
  ObjectWriter& set_bool(std::string_view key, bool value);
  ObjectWriter& set_int(std::string_view key, std::int64_t value);
  // `json` must be valid JSON text.
  ObjectWriter& set_raw(std::string_view key, std::string_view json);
  ObjectWriter& set_null(std::string_view key);
  // Member `key` is the list of `blocks`, each written by `write_one(JsonWriter&,
  // const Block&)`; with no blocks it is left out, also where the original has it
  // (a list of tool calls a stage emptied).
  template <class WriteOne>
  ObjectWriter& set_blocks(std::string_view key, std::vector<const Block*> blocks,
                           WriteOne write_one) {
    if (blocks.empty()) {
      return original_has(key) ? remove(key) : *this;
    }
    return set(key, [blocks = std::move(blocks), write_one = std::move(write_one)](JsonWriter& w) {
      w.StartArray();
      for (const Block* block : blocks) {
        write_one(w, *block);
      }
      w.EndArray();
    });
  }
  // Member `key` is left out even when the original has it.
  ObjectWriter& remove(std::string_view key);

  // True when the original object has member `key`.
  bool original_has(std::string_view key) const;

  // Writes the object. Call once.
  void write();

 private:
  // A member's new value: written by the callable `fn`, or the string or JSON text
  // `text` (a copy); neither: removed. Trivial, so that the list grows by a copy.
  struct Entry {
    enum class Kind : unsigned char { write, string, raw, remove };
    std::string_view key;
    std::string_view text;
    void* fn = nullptr;
    void (*call)(void*, JsonWriter&) = nullptr;
    void (*destroy)(void*) = nullptr;  // null: `fn` needs no destructor
    Kind kind = Kind::remove;
    bool used = false;
  };
  static constexpr std::size_t k_room = 1024;
  static constexpr std::size_t k_first_entries = 8;  // most objects set fewer

  // `size` bytes aligned to `align` for as long as this lives.
  void* take(std::size_t size, std::size_t align);
  std::string_view copy(std::string_view text);
  static void drop_callable(Entry& e) {
    if (e.destroy != nullptr) {
      e.destroy(e.fn);
    }
    e.fn = nullptr;
    e.destroy = nullptr;
  }
  Entry& entry(std::string_view key);
  Entry* find(std::string_view key);
  void write_value(Entry& entry);

  JsonWriter& m_writer;
  const JsonValue* m_original;
  Entry* m_entries = nullptr;  // in the room
  std::size_t m_count = 0;
  std::size_t m_capacity = 0;
  std::size_t m_used = 0;  // bytes of m_room taken
  std::vector<std::unique_ptr<std::byte[]>> m_overflow;  // taken when m_room was full
  alignas(std::max_align_t) std::byte m_room[k_room];
};

}  // namespace convo
