// API error bodies, translated whole: what a model API answers instead of a response
// when a request fails. Anthropic's `{"type":"error","error":{"type","message"},
// "request_id"}`, OpenAI's (Chat Completions and Responses) `{"error":{"message",
// "type","param","code"}}` and Gemini's `{"error":{"code","message","status"}}`. An
// error of one API converted to another is that API's error body; what it has no
// place for is reported by name ("code of error bodies").
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

#include "formats/api_body.h"
#include "json.h"
#include "message.h"

namespace convo {

// The three shapes of error body.
enum class ErrorShape : std::uint8_t { anthropic, openai, gemini };

// An error body in no API's shape.
struct ApiError {
  std::string type;     // Anthropic's and OpenAI's type ("invalid_request_error")
  std::string message;
  std::optional<std::int64_t> http_code;  // Gemini's `code` (an HTTP status)
  std::string status;   // Gemini's status ("INVALID_ARGUMENT")
  const JsonValue* code = nullptr;   // OpenAI's `code` ("model_not_found"), when not null
  const JsonValue* param = nullptr;  // OpenAI's `param`, when not null
  std::string request_id;  // Anthropic's
  // Members none of the three shapes has (Groq's failed_generation, Gemini's
  // details), as "KEY of error bodies": every target loses them.
  std::vector<std::string> unmapped;
};

// Reads `root`, an error body of any of the three shapes, into `error`; false when
// it is not one.
bool read_api_error(const JsonValue& root, ApiError& error);

// `error` as a body of `shape`; reports to `drop` what that shape has no place for.
std::string write_api_error(ErrorShape shape, const ApiError& error, const BodyDrop& drop);

// The HTTP status and Gemini's name for it that an error type (Anthropic's, OpenAI's
// or Gemini's status) stands for: 500 INTERNAL for one it does not know.
std::pair<int, std::string_view> gemini_error_status(std::string_view type);

// True when `message` is an API error body (a record of type "error" holding an
// `error` object): written whole as the target's error body, or dropped whole.
bool is_error_body(const Message& message);

// `message` as an error body of `shape` when it is an error record (an error body of
// another API, read with its JSON); nullopt when it is not one.
std::optional<std::string> error_body_of(const Message& message, ErrorShape shape,
                                         const BodyDrop& drop);

}  // namespace convo
