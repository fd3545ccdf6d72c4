#include "formats/fields.h"

#include <fmt/format.h>

#include <cmath>

namespace convo {

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

}  // namespace convo
