#include "formats/fields.h"

#include <fmt/format.h>

#include <cmath>

namespace convo {

namespace {

// `path`/`index`, as fmt::format("{}/{}") writes it, several times faster: decoders
// make one for every element of every list they read.
std::string index_path(std::string_view path, std::size_t index) {
  char digits[24];
  std::size_t n = 0;
  do {
    digits[n++] = static_cast<char>('0' + index % 10);
    index /= 10;
  } while (index != 0);
  std::string out;
  out.reserve(path.size() + 1 + n);
  out += path;
  out += '/';
  while (n > 0) {
    out += digits[--n];
  }
  return out;
}

}  // namespace

std::string member_path(std::string_view path, std::string_view key) {
  std::string out(path);
  out += '/';
  out += key;
  return out;
}

void wrong_type(std::string_view path, std::string_view expected, const JsonValue& actual) {
  throw DecodeError(std::string(path),
                    fmt::format("expected {}, got {}", expected, json_type_name(actual)));
}

std::optional<std::string_view> optional_string(const JsonValue& object, std::string_view key,
                                                std::string_view path) {
  const JsonValue* value = find_member(object, key);
  if (value == nullptr || value->IsNull()) {
    return std::nullopt;
  }
  if (!value->IsString()) {
    wrong_type(member_path(path, key), "a string", *value);
  }
  return view_of(*value);
}

std::string_view required_string(const JsonValue& object, std::string_view key,
                                 std::string_view path, std::string_view what) {
  const JsonValue* value = find_member(object, key);
  if (value == nullptr) {
    throw DecodeError(std::string(path), fmt::format("{} has no \"{}\"", what, key));
  }
  if (!value->IsString()) {
    wrong_type(member_path(path, key), "a string", *value);
  }
  return view_of(*value);
}

std::optional<bool> optional_bool(const JsonValue& object, std::string_view key,
                                  std::string_view path) {
  const JsonValue* value = find_member(object, key);
  if (value == nullptr || value->IsNull()) {
    return std::nullopt;
  }
  if (!value->IsBool()) {
    wrong_type(member_path(path, key), "true or false", *value);
  }
  return value->GetBool();
}

std::optional<std::int64_t> optional_int(const JsonValue& object, std::string_view key,
                                         std::string_view path) {
  const JsonValue* value = find_member(object, key);
  if (value == nullptr || value->IsNull()) {
    return std::nullopt;
  }
  if (value->IsInt64()) {
    return value->GetInt64();
  }
  if (value->IsDouble()) {
    double d = value->GetDouble();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e18) {
      return static_cast<std::int64_t>(d);
    }
  }
  wrong_type(member_path(path, key), "an integer", *value);
}

std::optional<double> optional_number(const JsonValue& object, std::string_view key,
                                      std::string_view path) {
  const JsonValue* value = find_member(object, key);
  if (value == nullptr || value->IsNull()) {
    return std::nullopt;
  }
  if (!value->IsNumber()) {
    wrong_type(member_path(path, key), "a number", *value);
  }
  return value->GetDouble();
}

const JsonValue* optional_object(const JsonValue& object, std::string_view key,
                                 std::string_view path) {
  const JsonValue* value = find_member(object, key);
  if (value == nullptr || value->IsNull()) {
    return nullptr;
  }
  if (!value->IsObject()) {
    wrong_type(member_path(path, key), "an object", *value);
  }
  return value;
}

void decode_content_list(const JsonValue* value, const std::string& path,
                         const std::shared_ptr<const Source>& owner, Content& out,
                         const BlockDecoder& decode_block, std::string_view expected) {
  out.text.clear();
  out.blocks.clear();
  if (value == nullptr) {
    out.form = Content::Form::absent;
    return;
  }
  if (value->IsNull()) {
    out.form = Content::Form::null;
    return;
  }
  if (value->IsString()) {
    out.form = Content::Form::string;
    out.text.share(view_of(*value), owner);
    return;
  }
  if (!value->IsArray()) {
    wrong_type(path, expected, *value);
  }
  out.form = Content::Form::blocks;
  out.blocks.resize(value->Size());
  for (rapidjson::SizeType i = 0; i < value->Size(); ++i) {
    decode_block((*value)[i], index_path(path, i), owner, out.blocks[i]);
  }
}

std::optional<std::string_view> begin_block(const JsonValue& element, const std::string& path,
                                            const std::shared_ptr<const Source>& owner, Block& block,
                                            std::string_view expected) {
  block.json = &element;
  block.json_owner = owner;
  if (element.IsString()) {
    // A bare string in a content list (Claude Code logs, LangChain): text.
    block.type = BlockType::text;
    block.text.share(view_of(element), owner);
    return std::nullopt;
  }
  if (!element.IsObject()) {
    wrong_type(path, expected, element);
  }
  auto type = optional_string(element, "type", path);
  if (!type) {
    block.type = BlockType::unknown;
    return std::nullopt;
  }
  block.type_name = std::string(*type);
  return type;
}

void for_each_object(const JsonValue* value, const std::string& path, std::string_view what,
                     std::string_view element_what,
                     const std::function<void(const JsonValue& element, const std::string& path)>& each) {
  if (value == nullptr || value->IsNull()) {
    return;
  }
  if (!value->IsArray()) {
    wrong_type(path, what, *value);
  }
  for (rapidjson::SizeType i = 0; i < value->Size(); ++i) {
    std::string element_path = index_path(path, i);
    if (!(*value)[i].IsObject()) {
      wrong_type(element_path, element_what, (*value)[i]);
    }
    each((*value)[i], element_path);
  }
}

void content_to_blocks(Content& content) {
  if (content.form == Content::Form::blocks) {
    return;
  }
  Text text = std::move(content.text);
  content.text.clear();
  content.form = Content::Form::blocks;
  if (!text.empty()) {
    content.blocks.push_back(Block::make_text(std::move(text)));
  }
}

}  // namespace convo
