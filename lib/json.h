// RapidJSON, configured once for convo: the document type, parsing with a depth
// limit and error positions, and small accessors that never assert on bad types.
// Every other module includes this header rather than RapidJSON directly, so that
// RAPIDJSON_ASSERT is the same everywhere.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <string>
#include <string_view>

#include "json_wide.h"  // the AVX-512 loops escape_json hands long strings to

namespace convo {
[[noreturn]] void json_assertion_failed(const char* expression);
}  // namespace convo

// RapidJSON asserts on misuse (reading a string from a number, ...). A release build
// must not turn that into undefined behaviour, so it becomes an exception.
#ifndef RAPIDJSON_ASSERT
#define RAPIDJSON_ASSERT(x) ((x) ? static_cast<void>(0) : ::convo::json_assertion_failed(#x))
#endif
#ifndef RAPIDJSON_HAS_STDSTRING
#define RAPIDJSON_HAS_STDSTRING 1
#endif
// Most of a transcript's bytes are in strings: RapidJSON scans strings and
// whitespace 16 bytes at a time with SSE2 (every x86-64 CPU has it) or NEON, which
// about halves the parse. Those loads may read past the end of the text within an
// aligned 16-byte block (never across a page), which AddressSanitizer reports, so
// sanitized builds do without them. (Records are parsed in place with a scan of
// convo's own, lib/json.cc, which reads only padding it owns and runs in every
// build.)
#include "sanitizer.h"
#ifdef CONVO_ASAN
#define CONVO_NO_JSON_SIMD
#endif
//
// The writer is included before SIMD is switched on: RapidJSON 1.1.0's SIMD string
// writer lets the control characters 0x1A-0x1F through unescaped (it compares with
// 0x19), and ANSI escapes (0x1B), common in tool output, would make invalid JSON.
// A correct SSE2 version of its scan is below; the reader, included after, scans
// with RapidJSON's own SIMD.
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

// The stacks of RapidJSON's string buffers and writers grow with the C allocator
// and use what it returns unchecked: when memory runs out they write through a
// null pointer (a segfault, where convo must exit 5 with "out of memory"). This is
// RapidJSON's Stack::Resize with the check, for every stack on CrtAllocator
// (rapidjson::StringBuffer, a Writer's nesting): it throws std::bad_alloc.
template <>
inline void rapidjson::internal::Stack<rapidjson::CrtAllocator>::Resize(size_t newCapacity) {
  const size_t size = GetSize();
  void* grown = allocator_->Realloc(stack_, GetCapacity(), newCapacity);
  if (grown == nullptr && newCapacity != 0) {
    throw std::bad_alloc();
  }
  stack_ = static_cast<char*>(grown);
  stackTop_ = stack_ + size;
  stackEnd_ = stack_ + newCapacity;
}
#if !defined(CONVO_NO_JSON_SIMD) && !defined(RAPIDJSON_SSE2) && !defined(RAPIDJSON_SSE42) && \
    !defined(RAPIDJSON_NEON)
#if defined(__SSE2__)
#define RAPIDJSON_SSE2
#define RAPIDJSON_SIMD  // what rapidjson.h, included above without it, would have set
#define CONVO_JSON_WRITER_SSE2
#elif defined(__ARM_NEON)
#define RAPIDJSON_NEON
#define RAPIDJSON_SIMD
#endif
#endif

#include <rapidjson/document.h>

#ifdef CONVO_JSON_WRITER_SSE2
#include <emmintrin.h>
#endif

namespace convo {

// Writes the escape of `c`, one byte that needs one, at `out`; returns its end.
inline char* write_json_escape(char* out, unsigned char c) {
  static constexpr char k_hex[] = "0123456789ABCDEF";
  static constexpr char k_control[] = "uuuuuuuubtnufruuuuuuuuuuuuuuuuuu";  // 0x00-0x1F
  out[0] = '\\';
  if (c == '"' || c == '\\') {
    out[1] = static_cast<char>(c);
    return out + 2;
  }
  if (k_control[c] != 'u') {  // \b \t \n \f \r
    out[1] = k_control[c];
    return out + 2;
  }
  std::memcpy(out + 1, "u00", 3);
  out[4] = k_hex[c >> 4];
  out[5] = k_hex[c & 0xF];
  return out + 6;
}

// `escape_json` a byte at a time: what the fast one must give (and does, without
// SSE2 or under AddressSanitizer).
inline char* escape_json_bytes(char* out, const char* p, const char* const end) {
  for (; p != end; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if (c >= 0x20 && c != '"' && c != '\\') {
      *out++ = static_cast<char>(c);
    } else {
      out = write_json_escape(out, c);
    }
  }
  return out;
}

// Writes `[p, end)` JSON-escaped at `out` and returns the end of what it wrote;
// `out` must have room for six bytes a byte of input (the longest escape) and
// what is unused of it may have been written. Escapes as RapidJSON's table does
// (\b \t \n \f \r \" \\, other controls as \u00XX, upper-case hex) and nothing
// else: the writer's strings, `append_json_escaped` and `write_string_pieces`
// (json_out.h) all go through here, so they agree byte for byte.
//
// With SSE2, text goes 64 bytes a step: four 16-byte blocks stored whole and
// classified at once (quote, backslash, control character). A step without
// escapes is done (a base64 image is one run); in one with escapes, each is
// written and the bytes up to the next are copied (32, then 16 at a time), from
// the mask already made (text has an escape every few dozen bytes: a newline, a
// quote).
// Then 16 bytes a step, and the last 3-15 bytes as one 16-byte load when it stays
// in their page (it reads past the end, never into another page; its bytes past
// the end are masked off), else byte by byte. RapidJSON's own SSE2 version lets
// 0x1A-0x1F through (it compares with 0x19) and went back to WriteString's loop
// at every escape, one byte a call. A store never passes the room: 6 x 16 of it
// is left while 16 bytes of input are (and 6 x 32 while a run's 32 bytes are
// copied), and 18 while 3 are.
inline char* escape_json(char* out, const char* p, const char* const end) {
#ifdef CONVO_JSON_WRITER_SSE2
  if (end - p >= 64 && wide_escapes()) {  // text dense in escapes: a patch, a call's input
    return wide_escape_json(out, p, end);
  }
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i control = _mm_set1_epi8(0x1F);
  // The positions of `s` that need escaping, as a 16-bit mask.
  auto special = [&](__m128i s) {
    return static_cast<unsigned>(_mm_movemask_epi8(
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(s, quote), _mm_cmpeq_epi8(s, backslash)),
                     _mm_cmpeq_epi8(_mm_max_epu8(s, control), control))));  // s <= 0x1F
  };
  auto load = [](const char* at) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(at)); };
  auto store = [](char* at, __m128i v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(at), v); };
  while (end - p >= 64) {
    const __m128i a = load(p);
    const __m128i b = load(p + 16);
    const __m128i c = load(p + 32);
    const __m128i d = load(p + 48);
    store(out, a);
    store(out + 16, b);
    store(out + 32, c);
    store(out + 48, d);
    std::uint64_t mask = std::uint64_t{special(a)} | (std::uint64_t{special(b)} << 16) |
                         (std::uint64_t{special(c)} << 32) | (std::uint64_t{special(d)} << 48);
    if (mask == 0) [[likely]] {
      p += 64;
      out += 64;
      continue;
    }
    const char* const step = p;
    const auto first = static_cast<std::size_t>(__builtin_ctzll(mask));
    p += first;  // the bytes before the first escape are in place
    out += first;
    if (end - step < 96) {  // the copies below read up to 31 bytes past the step
      out = write_json_escape(out, static_cast<unsigned char>(*p++));
      continue;
    }
    do {
      out = write_json_escape(out, static_cast<unsigned char>(*p++));
      mask &= mask - 1;
      const char* const next = step + (mask == 0 ? 64 : __builtin_ctzll(mask));
      const auto run = static_cast<std::size_t>(next - p);
      // The run to the next escape, 32 bytes whatever its length (in dense text,
      // a patch escaped again, most runs are shorter: a loop's exit at each was
      // most of the time spent here), then 16 at a time.
      store(out, load(p));
      store(out + 16, load(p + 16));
      for (std::size_t i = 32; i < run; i += 16) {
        store(out + i, load(p + i));
      }
      p = next;
      out += run;
    } while (mask != 0);
  }
  while (end - p >= 16) {
    const __m128i s = load(p);
    store(out, s);
    const unsigned mask = special(s);
    if (mask == 0) {
      p += 16;
      out += 16;
      continue;
    }
    const auto run = static_cast<std::size_t>(__builtin_ctz(mask));
    p += run;
    out += run;
    out = write_json_escape(out, static_cast<unsigned char>(*p++));
  }
  while (end - p >= 3 && (reinterpret_cast<std::uintptr_t>(p) & 4095) <= 4096 - 16) {
    const auto left = static_cast<unsigned>(end - p);
    const __m128i s = load(p);
    store(out, s);
    const unsigned mask = special(s) & ((1u << left) - 1);
    if (mask == 0) {
      return out + left;
    }
    const auto run = static_cast<std::size_t>(__builtin_ctz(mask));
    p += run;
    out += run;
    out = write_json_escape(out, static_cast<unsigned char>(*p++));
  }
#endif
  return escape_json_bytes(out, p, end);
}

}  // namespace convo

#ifdef CONVO_JSON_WRITER_SSE2
// Writes the rest of `is` escaped (its `length` bytes are the whole string) with
// `escape_json` and returns false: nothing is left for RapidJSON's WriteString
// loop, which only adds the closing quote. WriteString reserved room for the
// string escaped (six bytes a byte); it is taken whole here and what is unused is
// given back.
template <>
inline bool rapidjson::Writer<rapidjson::StringBuffer>::ScanWriteUnescapedString(
    rapidjson::StringStream& is, size_t length) {
  const char* const end = is.head_ + length;
  const auto room = static_cast<size_t>(end - is.src_) * 6;
  char* const start = os_->PushUnsafe(room);
  char* const out = convo::escape_json(start, is.src_, end);
  os_->Pop(room - static_cast<size_t>(out - start));
  is.src_ = end;
  return false;
}
#endif  // CONVO_JSON_WRITER_SSE2

// Writes JSON text as it is: RapidJSON copies it byte by byte, asserting on each that
// it is not NUL; here one memchr for the NUL (the same assertion) and one memcpy. A
// record kept whole inside another (a Codex line's payload) is mostly this.
template <>
inline bool rapidjson::Writer<rapidjson::StringBuffer>::WriteRawValue(const char* json,
                                                                      size_t length) {
  if (length == 0) {
    return true;
  }
  RAPIDJSON_ASSERT(std::memchr(json, '\0', length) == nullptr);
  std::memcpy(os_->Push(length), json, length);
  return true;
}

namespace convo {

// The allocator under every parsed document. RapidJSON's own returns null when
// memory runs out and the parser then writes through that null pointer (a
// segfault, not an error); this one throws std::bad_alloc, which the pipeline
// turns into "out of memory" at the record being read (exit 5).
//
// It also keeps one block of k_stack_block bytes for the thread, which a stack
// (RapidJSON's Stack: a document's while it is parsed, a reader's) takes at its
// start while no other holds it, and gives back when freed: a document's stack
// was a malloc and a free for every record read, 1% of a conversion. A stack is
// freed on the thread that made it (at the end of its parse, or of its reader);
// the block is told by its address, so chunks and other stacks free as before.
struct JsonBaseAllocator {
  static const bool kNeedFree = true;
  static constexpr std::size_t k_stack_block = 4096;
  void* Malloc(std::size_t size) {
    if (size == 0) {
      return nullptr;
    }
    void* p = std::malloc(size);
    if (p == nullptr) {
      throw std::bad_alloc();
    }
    return p;
  }
  void* Realloc(void* original, std::size_t original_size, std::size_t new_size) {
    StackBlock& kept = stack_block();
    if (original != nullptr && original == kept.block) {
      if (new_size != 0 && new_size <= k_stack_block) {
        return original;
      }
      void* p = new_size == 0 ? nullptr : Malloc(new_size);
      if (p != nullptr) {
        std::memcpy(p, original, std::min(original_size, new_size));
      }
      kept.lent = false;
      return p;
    }
    if (original == nullptr && new_size != 0 && new_size <= k_stack_block && !kept.lent) {
      if (kept.block == nullptr) {
        kept.block = Malloc(k_stack_block);
      }
      kept.lent = true;
      return kept.block;
    }
    if (new_size == 0) {
      std::free(original);
      return nullptr;
    }
    void* p = std::realloc(original, new_size);
    if (p == nullptr) {
      throw std::bad_alloc();
    }
    return p;
  }
  // No call for null: RapidJSON frees every stack it made, used or not (the
  // reader's, in place, never is).
  static void Free(void* p) {
    if (p == nullptr) {
      return;
    }
    StackBlock& kept = stack_block();
    if (p == kept.block) {
      kept.lent = false;
      return;
    }
    std::free(p);
  }

 private:
  struct StackBlock {
    void* block = nullptr;
    bool lent = false;
    StackBlock() = default;
    StackBlock(const StackBlock&) = delete;
    StackBlock& operator=(const StackBlock&) = delete;
    ~StackBlock() {
      std::free(block);
      block = nullptr;  // a document freed after the thread's end frees its own
    }
  };
  static StackBlock& stack_block() {
    thread_local StackBlock kept;
    return kept;
  }
};

// The one (stateless) base allocator that pools take their chunks from; without
// it each pool would make its own on the heap.
inline JsonBaseAllocator& json_base_allocator() {
  static JsonBaseAllocator base;
  return base;
}

using JsonAllocator = rapidjson::MemoryPoolAllocator<JsonBaseAllocator>;
using JsonDoc = rapidjson::GenericDocument<rapidjson::UTF8<>, JsonAllocator, JsonBaseAllocator>;
using JsonValue = rapidjson::GenericValue<rapidjson::UTF8<>, JsonAllocator>;
// RapidJSON's writer, whose stack of open arrays and objects takes its memory from
// one allocator for all (RapidJSON's default makes one on the heap for each writer,
// an allocation a record).
//
// The stack's memory itself is kept too: a writer takes a stack a writer before it
// on this thread left (Stack::Swap), and leaves its own, emptied, for the next one.
// An encoder makes a writer or two for each record it writes, and the stack's
// malloc on the first push and free at the end were 1% of a conversion.
class JsonWriter : public rapidjson::Writer<rapidjson::StringBuffer> {
 public:
  explicit JsonWriter(rapidjson::StringBuffer& out) : Writer(out, &level_allocator()) {
    LevelStacks& kept = level_stacks();
    if (kept.count > 0) {
      level_stack_.Swap(kept.stacks[--kept.count]);  // leaves it the unused one
    }
  }
  ~JsonWriter() {
    LevelStacks& kept = level_stacks();
    // Not one grown past its first size (a value nested deep): that goes with the writer.
    if (kept.count < LevelStacks::k_kept && level_stack_.GetCapacity() <= k_level_stack) {
      level_stack_.Clear();
      level_stack_.Swap(kept.stacks[kept.count++]);
    }
  }
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

 private:
  using LevelStack = rapidjson::internal::Stack<rapidjson::CrtAllocator>;
  // RapidJSON's first size for it: 32 levels.
  static constexpr std::size_t k_level_stack = kDefaultLevelDepth * sizeof(Level);
  struct LevelStacks {
    static constexpr int k_kept = 4;  // writers open at once, nested
    LevelStack stacks[k_kept] = {{&level_allocator(), k_level_stack},
                                 {&level_allocator(), k_level_stack},
                                 {&level_allocator(), k_level_stack},
                                 {&level_allocator(), k_level_stack}};
    int count = 0;  // the first `count` hold memory
  };
  static LevelStacks& level_stacks() {
    thread_local LevelStacks kept;
    return kept;
  }
  static rapidjson::CrtAllocator& level_allocator() {
    static rapidjson::CrtAllocator allocator;  // stateless
    return allocator;
  }
};

// Deeper nesting than this is a parse error. Every recursive walk over parsed JSON
// (copying, writing) is then bounded, so hostile input cannot overflow the stack.
inline constexpr int k_max_json_depth = 1000;

// Why a text is not one JSON value, and the byte offset where that was found.
struct JsonParseError {
  std::size_t offset = 0;
  std::string message;  // lower-case fragment, e.g. "expected ',' or '}'"
  bool lone_surrogate = false;  // a \uD800-\uDBFF escape without its low half
};

// Replaces every UTF-16 surrogate escape in `text` that is not half of a pair
// (`\ud800` alone, as JavaScript's JSON.stringify writes a string cut mid-pair) by
// `\ufffd`, the replacement character, in place (the same six bytes). Returns how
// many it replaced.
std::size_t replace_lone_surrogates(std::string& text);

// How many surrogate escapes in `text` `replace_lone_surrogates` would replace.
std::size_t count_lone_surrogates(std::string_view text);

// Parses `text`, which must hold exactly one JSON value (whitespace around it is
// fine), into `doc`. `text` must be followed by a NUL byte in memory (std::string
// data is), which lets the parser run without bounds checks.
std::optional<JsonParseError> parse_json(std::string_view text, JsonDoc& doc);

// The type of the one JSON value `text` holds, as `parse_json` would read it, without
// building it: nullopt where `parse_json` fails. A tool input is checked to be a
// JSON object with this before it is written as it is (raw); it parses a padded
// copy in place, several times faster than building the document.
std::optional<rapidjson::Type> json_text_type(std::string_view text);

// Whether `text`, one JSON object, is as `to_json` writes the object `parse_json`
// reads from it (compact, RapidJSON's escapes and numbers): false when it is spelled
// otherwise (`{"a": 1}`), nullopt when it is not one JSON object. Parses without
// building the object, writing as it reads.
std::optional<bool> json_object_as_written(std::string_view text);

// Like `parse_json`, but parses in place: strings are unescaped inside `text`,
// which must outlive `doc`, and `text`'s bytes are changed. Returns false when
// `text` is not one JSON value; parse a pristine copy with `parse_json` to learn why.
bool parse_json_in_place(std::string& text, JsonDoc& doc);

// Bytes an in-place parse needs after its text: a NUL, then bytes it may read
// (zeros after a std::string's text: `reserve_parse_padding` makes room for them).
inline constexpr std::size_t k_json_parse_padding = 16;

// Like `parse_json_in_place`, but leaves `text` as it is: the parser reads it and
// unescapes each string into `shadow` at the string's own offset in `text` (ended
// by a NUL there), so that a string's place in `shadow` is where it was read from
// (`json_as_read` takes `shadow` as the text parsed). `text`, one line (it holds no
// LF), must be followed in memory by a NUL byte or an LF, possibly after a CR, and
// `k_json_parse_padding - 1` more readable bytes, whatever they hold (a line in the
// reader's buffer, its LF made a NUL for the parse; a line in a file's mapping,
// read-only, followed by the next ones), and
// `shadow` have room for `text.size() + k_json_parse_padding` bytes; `doc` points
// into `shadow`, which must outlive it. A UTF-16 surrogate escape that is not half
// of a pair (`\ud800` alone: JSON.stringify writes them when it cuts a string
// mid-pair) is read as U+FFFD, as `replace_lone_surrogates` makes it, and counted in
// `lone_surrogates`. False as `parse_json_in_place`.
bool parse_json_shadowed(std::string_view text, char* shadow, JsonDoc& doc,
                         std::size_t& lone_surrogates);

// What the byte of a shadow at a string's opening quote says of the string's bytes
// in the text (parse_json_shadowed writes it; in a text parsed in place that byte
// is the quote itself, which says nothing).
enum class ShadowMark : char {
  spelled_otherwise = 0,   // an escape the writer spells otherwise (`\/`, `\u00e9`)
  as_read = 1,             // no escapes: the bytes are the string's, as in the shadow
  escaped_as_written = 2,  // escapes as the writer writes them, and how many bytes
                           // they add: past the string's NUL (write_shadow_escapes)
};

// Writes `bytes` (at least 1), the bytes a string's escapes add, at `at`, which has
// that many bytes of room; `read_shadow_escapes` reads it back.
inline void write_shadow_escapes(char* at, std::size_t bytes) {
  if (bytes < 255) {
    at[0] = static_cast<char>(bytes);
  } else {  // 255 bytes of room at least
    at[0] = static_cast<char>(255);
    std::memcpy(at + 1, &bytes, sizeof bytes);
  }
}
inline std::size_t read_shadow_escapes(const char* at) {
  const auto first = static_cast<unsigned char>(at[0]);
  if (first < 255) {
    return first;
  }
  std::size_t bytes = 0;
  std::memcpy(&bytes, at + 1, sizeof bytes);
  return bytes;
}

// Makes room in `text` for `size` bytes and what parse_json_in_place adds after
// them, so that it need not move them: call before filling `text`.
void reserve_parse_padding(std::string& text, std::size_t size);

// Parses the first JSON value of `text` (leading whitespace skipped) into `doc` and
// stores in `consumed` the offset just past it. Same NUL rule as `parse_json`.
std::optional<JsonParseError> parse_json_prefix(std::string_view text, JsonDoc& doc,
                                                std::size_t& consumed);

// --- Accessors. All return "absent" for a missing member or a wrong type. ---

// The member `key` of `object`, or nullptr when `object` is not an object or has none.
// A plain scan, in the header: decoders look up a dozen members of every record by
// literal keys, whose comparisons then compile to a few loads, not a memcmp call
// (comparing the length first, then the bytes, is about twice as fast as
// FindMember).
inline const JsonValue* find_member(const JsonValue& object, std::string_view key) {
  if (!object.IsObject()) {
    return nullptr;
  }
  for (const auto& member : object.GetObject()) {
    const JsonValue& name = member.name;
    if (name.GetStringLength() == key.size() &&
        std::memcmp(name.GetString(), key.data(), key.size()) == 0) {
      return &member.value;
    }
  }
  return nullptr;
}

// The string member `key`, or nullopt when it is missing or not a string (below).
inline std::optional<std::string_view> string_member(const JsonValue& object, std::string_view key);

// The bool member `key`, or nullopt when it is missing or not a bool.
std::optional<bool> bool_member(const JsonValue& object, std::string_view key);

// A string value's bytes (JSON strings may hold NUL, so never use GetString alone).
inline std::string_view view_of(const JsonValue& string) {
  return {string.GetString(), string.GetStringLength()};
}

inline std::optional<std::string_view> string_member(const JsonValue& object,
                                                     std::string_view key) {
  const JsonValue* value = find_member(object, key);
  if (value == nullptr || !value->IsString()) {
    return std::nullopt;
  }
  return view_of(*value);
}

// A short name for a value's JSON type, for error messages: "string", "array", ...
const char* json_type_name(const JsonValue& value);

// `value` as compact JSON text.
std::string to_json(const JsonValue& value);

// Appends `value` as compact JSON text to `out`.
void append_json(const JsonValue& value, std::string& out);

// The bytes `value` (a string, or an object with members) was read from, when they
// are what `to_json` gives for it (compact, the writer's escapes, integers only):
// written from there, a record's unchanged part is not escaped again. `text` is what
// `parse_json_in_place` parsed `value`'s document from, a copy of `raw`, or the
// shadow `parse_json_shadowed` parsed it into from `raw` (whose marks say where its
// strings end: their bytes are not scanned). Empty when the bytes are spelled
// otherwise or `value` was not read from `text`.
std::string_view json_as_read(const JsonValue& value, std::string_view text, std::string_view raw);

// Whether `text` is one JSON value that `parse_json` reads and `to_json` writes back
// byte for byte, as far as a scan of its bytes can tell: compact, valid, the
// writer's escapes, integers only, nested no deeper than the parse reads. True is
// certain; false may still be spelled so (a fraction the writer writes alike).
bool json_valid_as_written(std::string_view text);

// How `text` is spelled, as far as the scan above tells: `as_written` is
// json_valid_as_written; `spaced`, one valid JSON value that would be so but for
// whitespace between its tokens (`{"a": 1}`), which the writer never writes: certain
// not to come back byte for byte, and read alike. `unknown` says nothing.
enum class JsonSpelling : std::uint8_t { as_written, spaced, unknown };
JsonSpelling json_spelling(std::string_view text);

// A JSON string literal for `text`, quotes included, escaped as RapidJSON writes it.
std::string json_quote(std::string_view text);

// A string value holding a copy of `text`.
inline JsonValue make_string(std::string_view text, JsonAllocator& alloc) {
  return JsonValue(text.data(), static_cast<rapidjson::SizeType>(text.size()), alloc);
}

// Sets member `key` of `object` to `value`, keeping the member's position when it
// exists already and appending it otherwise.
void set_member(JsonValue& object, std::string_view key, JsonValue value, JsonAllocator& alloc);

// Removes member `key` from `object`, keeping the order of the others.
void erase_member(JsonValue& object, std::string_view key);

}  // namespace convo
