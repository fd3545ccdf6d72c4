#include "formats/stream.h"

#include "sse_reader.h"

namespace convo {

bool StreamReader::is_event(const JsonValue& doc) const { return claims(StreamEvent{}, doc); }

StopReason stop_reason_named(std::string_view name) {
  // Gemini's finishReason values are upper case.
  if (name == "end_turn" || name == "stop" || name == "STOP") {
    return StopReason::end_turn;
  }
  if (name == "max_tokens" || name == "length" || name == "model_context_window_exceeded" ||
      name == "MAX_TOKENS") {
    return StopReason::max_tokens;
  }
  // Gemini's MALFORMED_FUNCTION_CALL and UNEXPECTED_TOOL_CALL: it stopped at a call.
  if (name == "tool_use" || name == "tool_calls" || name == "function_call" ||
      name == "MALFORMED_FUNCTION_CALL" || name == "UNEXPECTED_TOOL_CALL") {
    return StopReason::tool_use;
  }
  if (name == "stop_sequence") {
    return StopReason::stop_sequence;
  }
  if (name == "refusal" || name == "content_filter" || name == "SAFETY" || name == "RECITATION" ||
      name == "BLOCKLIST" || name == "PROHIBITED_CONTENT" || name == "SPII" || name == "IMAGE_SAFETY") {
    return StopReason::refusal;
  }
  if (name == "pause_turn") {
    return StopReason::pause_turn;
  }
  return StopReason::none;
}

}  // namespace convo
