// How a LangChain record holds its message (its dialects: stored dict, `dumpd`
// constructor, plain dict), for the langchain format's decoder and encoder only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "json.h"

namespace convo::langchain {

// How a record holds its message.
enum class Shape : std::uint8_t {
  stored,       // {"type": "human", "data": {...}}
  constructor,  // {"lc": 1, "type": "constructor", "id": [...], "kwargs": {...}}
  plain,        // the message dict itself
};

struct Located {
  Shape shape = Shape::plain;
  const JsonValue* inner = nullptr;  // the object with content, id, ...
  std::string inner_path;
  std::string type;  // as written: "human", "AIMessageChunk", "generic", or a role
  std::string_view base;
  bool role_keyed = false;  // a plain dict that names its kind with `role`
};

// Where the message of `record` (at `path`) is, and what type it has; nullopt when
// it is none of LangChain's shapes. A constructor record without `kwargs`, or a
// stored record whose `data` is not an object, is a DecodeError.
std::optional<Located> locate(const JsonValue& record, const std::string& path);

}  // namespace convo::langchain
