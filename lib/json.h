// RapidJSON, configured once for convo: the document type, parsing with a depth
// limit and error positions, and small accessors that never assert on bad types.
// Every other module includes this header rather than RapidJSON directly, so that
// RAPIDJSON_ASSERT is the same everywhere.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

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
// sanitized builds scan byte by byte.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CONVO_NO_JSON_SIMD
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define CONVO_NO_JSON_SIMD
#endif
#if !defined(CONVO_NO_JSON_SIMD) && !defined(RAPIDJSON_SSE2) && !defined(RAPIDJSON_SSE42) && \
    !defined(RAPIDJSON_NEON)
#if defined(__SSE2__)
#define RAPIDJSON_SSE2
#elif defined(__ARM_NEON)
#define RAPIDJSON_NEON
#endif
#endif

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace convo {

using JsonDoc = rapidjson::Document;
using JsonValue = rapidjson::Value;
using JsonAllocator = JsonDoc::AllocatorType;
using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

// Deeper nesting than this is a parse error. Every recursive walk over parsed JSON
// (copying, writing) is then bounded, so hostile input cannot overflow the stack.
inline constexpr int k_max_json_depth = 1000;

// Why a text is not one JSON value, and the byte offset where that was found.
struct JsonParseError {
  std::size_t offset = 0;
  std::string message;  // lower-case fragment, e.g. "expected ',' or '}'"
};

// Parses `text`, which must hold exactly one JSON value (whitespace around it is
// fine), into `doc`. `text` must be followed by a NUL byte in memory (std::string
// data is), which lets the parser run without bounds checks.
std::optional<JsonParseError> parse_json(std::string_view text, JsonDoc& doc);

// Like `parse_json`, but parses in place: strings are unescaped inside `text`,
// which must outlive `doc`, and `text`'s bytes are changed. Returns false when
// `text` is not one JSON value; parse a pristine copy with `parse_json` to learn why.
bool parse_json_in_place(std::string& text, JsonDoc& doc);

// Parses the first JSON value of `text` (leading whitespace skipped) into `doc` and
// stores in `consumed` the offset just past it. Same NUL rule as `parse_json`.
std::optional<JsonParseError> parse_json_prefix(std::string_view text, JsonDoc& doc,
                                                std::size_t& consumed);

// --- Accessors. All return "absent" for a missing member or a wrong type. ---

// The member `key` of `object`, or nullptr when `object` is not an object or has none.
const JsonValue* find_member(const JsonValue& object, std::string_view key);

// The string member `key`, or nullopt when it is missing or not a string.
std::optional<std::string_view> string_member(const JsonValue& object, std::string_view key);

// The bool member `key`, or nullopt when it is missing or not a bool.
std::optional<bool> bool_member(const JsonValue& object, std::string_view key);

// A string value's bytes (JSON strings may hold NUL, so never use GetString alone).
inline std::string_view view_of(const JsonValue& string) {
  return {string.GetString(), string.GetStringLength()};
}

// A short name for a value's JSON type, for error messages: "string", "array", ...
const char* json_type_name(const JsonValue& value);

// `value` as compact JSON text.
std::string to_json(const JsonValue& value);

// Appends `value` as compact JSON text to `out`.
void append_json(const JsonValue& value, std::string& out);

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
