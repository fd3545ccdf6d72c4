// Typed reads of record members for decoders. A member of the wrong type is a
// DecodeError naming its JSON pointer; a missing (or, for optional members, null)
// member is "absent".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "formats/format.h"
#include "json.h"

namespace convo {

// `path` + "/" + `key`: the JSON pointer of a member.
std::string member_path(std::string_view path, std::string_view key);

// The string member `key` of `object` at `path`; nullopt when missing or null.
std::optional<std::string_view> optional_string(const JsonValue& object, std::string_view key,
                                                std::string_view path);

// The string member `key`; a DecodeError when it is missing, null or not a string.
// `what` names the object for the message: "text block".
std::string_view required_string(const JsonValue& object, std::string_view key,
                                 std::string_view path, std::string_view what);

// The bool member `key`; nullopt when missing or null.
std::optional<bool> optional_bool(const JsonValue& object, std::string_view key,
                                  std::string_view path);

// The integer member `key`; nullopt when missing or null. Floats with no fraction
// are accepted (some providers write `12.0`).
std::optional<std::int64_t> optional_int(const JsonValue& object, std::string_view key,
                                         std::string_view path);

// The number member `key`; nullopt when missing or null.
std::optional<double> optional_number(const JsonValue& object, std::string_view key,
                                      std::string_view path);

// The object member `key`; nullptr when missing or null, a DecodeError for other types.
const JsonValue* optional_object(const JsonValue& object, std::string_view key,
                                 std::string_view path);

// A DecodeError saying the value at `path` should be `expected` but is `actual`.
[[noreturn]] void wrong_type(std::string_view path, std::string_view expected,
                             const JsonValue& actual);

}  // namespace convo
