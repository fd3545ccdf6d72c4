// API error bodies of Anthropic, OpenAI and Gemini, read into one ApiError and
// written in each shape. Anthropic and OpenAI share the vocabulary of error types;
// Gemini says an HTTP status and its gRPC name, mapped to and from those types.
#include "formats/api_error.h"

#include <fmt/format.h>

#include <array>

#include "formats/json_out.h"

namespace convo {

namespace {

struct StatusRow {
  std::string_view type;
  int code;
  std::string_view status;
};

constexpr std::array<StatusRow, 7> k_statuses{{
    {"invalid_request_error", 400, "INVALID_ARGUMENT"},
    {"authentication_error", 401, "UNAUTHENTICATED"},
    {"permission_error", 403, "PERMISSION_DENIED"},
    {"not_found_error", 404, "NOT_FOUND"},
    {"rate_limit_error", 429, "RESOURCE_EXHAUSTED"},
    {"overloaded_error", 503, "UNAVAILABLE"},
    {"api_error", 500, "INTERNAL"},
}};

// The error type a Gemini status stands for, else the one its HTTP status `code`
// does (FAILED_PRECONDITION is a 400 too); "api_error" for neither.
std::string_view type_of_status(std::string_view status, std::optional<std::int64_t> code = {}) {
  for (const StatusRow& row : k_statuses) {
    if (row.status == status) {
      return row.type;
    }
  }
  for (const StatusRow& row : k_statuses) {
    if (code && row.code == *code) {
      return row.type;
    }
  }
  return "api_error";
}

void note_unmapped(std::string_view key, const JsonValue& value, ApiError& error) {
  if (!says_nothing(value)) {
    error.unmapped.push_back(fmt::format("{} of error bodies", key));
  }
}

}  // namespace

std::pair<int, std::string_view> gemini_error_status(std::string_view type) {
  for (const StatusRow& row : k_statuses) {
    if (row.type == type || row.status == type) {
      return {row.code, row.status};
    }
  }
  return {500, "INTERNAL"};
}

bool read_api_error(const JsonValue& root, ApiError& error) {
  const JsonValue* body = root.IsObject() ? find_member(root, "error") : nullptr;
  if (body == nullptr || !body->IsObject()) {
    return false;
  }
  for (const auto& member : root.GetObject()) {
    std::string_view key = view_of(member.name);
    if (key == "error" || (key == "type" && member.value.IsString() && view_of(member.value) == "error")) {
      continue;
    }
    if (key == "request_id" && member.value.IsString()) {
      error.request_id = std::string(view_of(member.value));
    } else {
      note_unmapped(key, member.value, error);
    }
  }
  for (const auto& member : body->GetObject()) {
    std::string_view key = view_of(member.name);
    const JsonValue& value = member.value;
    if (key == "type" && value.IsString()) {
      error.type = std::string(view_of(value));
    } else if (key == "message" && value.IsString()) {
      error.message = std::string(view_of(value));
    } else if (key == "code" && value.IsInt64()) {
      error.http_code = value.GetInt64();
    } else if (key == "code" && !value.IsNull()) {
      error.code = &value;
    } else if (key == "status" && value.IsString()) {
      error.status = std::string(view_of(value));
    } else if (key == "param" && !value.IsNull()) {
      error.param = &value;
    } else {
      note_unmapped(key, value, error);
    }
  }
  return true;
}

std::string write_api_error(ErrorShape shape, const ApiError& error, const BodyDrop& drop) {
  // The type: as said (Anthropic, OpenAI), or the one Gemini's status stands for.
  std::string type = !error.type.empty() ? error.type
                                         : std::string(type_of_status(error.status, error.http_code));
  auto [code, status] = gemini_error_status(!error.status.empty() ? std::string_view(error.status)
                                                                   : std::string_view(type));
  if (shape != ErrorShape::gemini) {
    // Gemini's status and code come back from the type only when they are its own.
    if (!error.status.empty() && gemini_error_status(type).second != error.status) {
      drop("status of error bodies");
    }
    if (error.http_code && *error.http_code != gemini_error_status(type).first) {
      drop("code of error bodies");
    }
  } else if (!error.type.empty() && type_of_status(status) != error.type) {
    drop("type of error bodies");  // Gemini says it by a status of a coarser kind
  }
  if (shape != ErrorShape::openai) {
    if (error.code != nullptr) {
      drop("code of error bodies");
    }
    if (error.param != nullptr) {
      drop("param of error bodies");
    }
  }
  if (shape != ErrorShape::anthropic && !error.request_id.empty()) {
    drop("request_id of error bodies");
  }
  for (const std::string& what : error.unmapped) {
    drop(what);
  }

  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  switch (shape) {
    case ErrorShape::anthropic:
      w.Key("type");
      w.String("error");
      w.Key("error");
      w.StartObject();
      w.Key("type");
      write_string(w, type);
      w.Key("message");
      write_string(w, error.message);
      w.EndObject();
      if (!error.request_id.empty()) {
        w.Key("request_id");
        write_string(w, error.request_id);
      }
      break;
    case ErrorShape::openai:
      w.Key("error");
      w.StartObject();
      w.Key("message");
      write_string(w, error.message);
      w.Key("type");
      write_string(w, type);
      w.Key("param");
      if (error.param != nullptr) {
        error.param->Accept(w);
      } else {
        w.Null();
      }
      w.Key("code");
      if (error.code != nullptr) {
        error.code->Accept(w);
      } else {
        w.Null();
      }
      w.EndObject();
      break;
    case ErrorShape::gemini:
      w.Key("error");
      w.StartObject();
      w.Key("code");
      w.Int64(error.http_code.value_or(code));
      w.Key("message");
      write_string(w, error.message);
      w.Key("status");
      write_string(w, !error.status.empty() ? std::string_view(error.status) : status);
      w.EndObject();
      break;
  }
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

bool is_error_body(const Message& message) {
  if (message.record_type != "error" || message.json == nullptr || !message.json->IsObject()) {
    return false;
  }
  const JsonValue* error = find_member(*message.json, "error");
  return error != nullptr && error->IsObject();
}

std::optional<std::string> error_body_of(const Message& message, ErrorShape shape,
                                         const BodyDrop& drop) {
  ApiError error;
  if (!is_error_body(message) || !read_api_error(*message.json, error)) {
    return std::nullopt;
  }
  return write_api_error(shape, error, drop);
}

}  // namespace convo
