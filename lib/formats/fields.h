// Typed reads of record members for decoders. A member of the wrong type is a
// DecodeError naming its JSON pointer; a missing (or, for optional members, null)
// member is "absent".
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
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

// Decodes one element of a content list (at `path`) into `block`.
using BlockDecoder = std::function<void(const JsonValue& element, const std::string& path,
                                        const std::shared_ptr<const Source>& owner, Block& block)>;

// Decodes a content member (`value`, nullptr when missing) at `path`: absent, null, a
// string, or a list whose elements `decode_block` reads. Anything else is a
// DecodeError saying it should be `expected` ("a string or a list of content blocks").
void decode_content_list(const JsonValue* value, const std::string& path,
                         const std::shared_ptr<const Source>& owner, Content& out,
                         const BlockDecoder& decode_block, std::string_view expected);

// Starts decoding a content list element into `block` (pointing it at its JSON):
// a bare string is a text block, an object without `type` an unknown block; both
// return nullopt, being done. Otherwise returns the `type`, also kept as
// `block.type_name`. An element that is neither is a DecodeError saying it should
// be `expected` ("a content block (an object)").
std::optional<std::string_view> begin_block(const JsonValue& element, const std::string& path,
                                            const std::shared_ptr<const Source>& owner, Block& block,
                                            std::string_view expected);

// Calls `each` with every element of the list `value` (nullptr or null: none) at
// `path`, and the element's path. A value that is not a list is a DecodeError saying
// it should be `what` ("a list of tool calls"); an element that is not an object,
// one saying it should be `element_what` ("a tool call (an object)").
void for_each_object(const JsonValue* value, const std::string& path, std::string_view what,
                     std::string_view element_what,
                     const std::function<void(const JsonValue& element, const std::string& path)>& each);

// Makes a string content a list of blocks (one text block, none when it was empty),
// so that tool calls decoded from beside it can join it.
void content_to_blocks(Content& content);

// A DecodeError saying the value at `path` should be `expected` but is `actual`.
[[noreturn]] void wrong_type(std::string_view path, std::string_view expected,
                             const JsonValue& actual);

}  // namespace convo
