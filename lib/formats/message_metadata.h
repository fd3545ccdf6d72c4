// The metadata LangChain-style messages carry beside their content, shared by the
// langchain and synaptic formats: `usage_metadata` (the token counts, whose detail
// keys differ between the two) and `response_metadata` (model and stop reason).
#pragma once

#include <string>
#include <string_view>

#include "json.h"
#include "message.h"

namespace convo {

// The names of the detail counts in a `usage_metadata` object.
struct UsageKeys {
  std::string_view input_details;   // "input_token_details" (LangChain), "input_details"
  std::string_view cache_read;      // "cache_read", "cached"
  std::string_view cache_write;     // "cache_creation"; empty when there is none
  std::string_view output_details;  // "output_token_details", "output_details"
  std::string_view reasoning;       // "reasoning"
};

inline constexpr UsageKeys k_langchain_usage{"input_token_details", "cache_read", "cache_creation",
                                             "output_token_details", "reasoning"};
inline constexpr UsageKeys k_synaptic_usage{"input_details", "cached", "", "output_details",
                                            "reasoning"};

// Reads `usage_metadata` of `object` (at `path`) into `usage`, if it has one.
void decode_usage_metadata(const JsonValue& object, const std::string& path, const UsageKeys& keys,
                           Usage& usage);

// Writes `usage` as a `usage_metadata` object patched into `original` (null: a new
// one), so that counts convo does not model (audio) stay. The total is the sum of
// input and output when the usage has none.
void write_usage_metadata(JsonWriter& w, const Usage& usage, const JsonValue* original,
                          const UsageKeys& keys);

// Reads `response_metadata` of `object` (at `path`): the model (`model_name` or
// `model`) and the stop reason (`finish_reason` or `stop_reason`).
void decode_response_metadata(const JsonValue& object, const std::string& path, Message& message);

// True when an assistant message from another format has a model or stop reason
// to write as `response_metadata`; `write_response_metadata` writes it.
bool has_response_metadata(const Message& message);
void write_response_metadata(JsonWriter& w, const Message& message);

}  // namespace convo
