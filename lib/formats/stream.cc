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

bool StreamWriter::delta_has_text(const StreamPart& part, Format to, LossReport& loss,
                                  const Location& where) {
  if (!part.raw.empty() && part.text.empty()) {
    loss.drop(to, "citations and other deltas of Anthropic blocks", where);
    return false;
  }
  return !part.text.empty();
}

std::string_view StreamWriter::dropped_block_name(const StreamPart& part) {
  return part.block == BlockType::unknown && !part.name.empty() ? std::string_view(part.name)
                                                                  : block_type_name(part.block);
}

StopReasonSpelling stop_reason_spelled(Format api, StopReason stop) {
  bool chat = api == Format::openai;
  bool gemini = api == Format::gemini;
  switch (stop) {
    case StopReason::none:
      return {""};
    case StopReason::end_turn:
      return {chat ? "stop" : gemini ? "STOP" : "end_turn"};
    case StopReason::max_tokens:
      return {chat ? "length" : gemini ? "MAX_TOKENS" : "max_tokens"};
    case StopReason::tool_use:
      return {chat ? "tool_calls" : gemini ? "STOP" : "tool_use"};
    case StopReason::refusal:
      return {chat ? "content_filter" : gemini ? "SAFETY" : "refusal"};
    case StopReason::stop_sequence:
      return chat ? StopReasonSpelling{"stop", false}
                  : gemini ? StopReasonSpelling{"STOP", false} : StopReasonSpelling{"stop_sequence"};
    case StopReason::pause_turn:
      return chat ? StopReasonSpelling{"stop", false}
                  : gemini ? StopReasonSpelling{"STOP", false} : StopReasonSpelling{"pause_turn"};
  }
  return {""};
}

}  // namespace convo
