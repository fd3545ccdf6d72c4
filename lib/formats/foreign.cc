#include "formats/foreign.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string>

namespace convo {

namespace {

template <std::size_t N>
bool one_of(std::string_view value, const std::array<std::string_view, N>& set) {
  return std::find(set.begin(), set.end(), value) != set.end();
}

bool has(const JsonValue& object, std::string_view key) {
  return find_member(object, key) != nullptr;
}

bool array_has(const JsonValue& object, std::string_view key) {
  const JsonValue* value = find_member(object, key);
  return value != nullptr && value->IsArray();
}

// Anthropic Messages stream events, as `data:` lines or one per line.
constexpr std::array<std::string_view, 7> k_anthropic_events = {
    "message_start", "content_block_start", "content_block_delta", "content_block_stop",
    "message_delta", "message_stop",        "ping"};

// Vercel AI SDK UI message stream chunks.
constexpr std::array<std::string_view, 19> k_ai_sdk_chunks = {
    "start",           "start-step",      "finish-step",          "finish",
    "text-start",      "text-delta",      "text-end",             "reasoning-start",
    "reasoning-delta", "reasoning-end",   "tool-input-start",     "tool-input-delta",
    "tool-input-available", "tool-output-available", "tool-input-error", "tool-output-error",
    "message-metadata", "source-url",     "abort"};


// Content block types, found as records of their own (no role around them).
constexpr std::array<std::string_view, 12> k_block_types = {
    "text",     "image",          "tool_use", "tool_result", "thinking",   "redacted_thinking",
    "document", "server_tool_use", "image_url", "input_text", "output_text", "refusal"};

// The content parts of a `content` or `parts` list, as far as the first few tell.
template <typename Pred>
bool any_part(const JsonValue& object, std::string_view key, Pred pred) {
  const JsonValue* list = find_member(object, key);
  if (list == nullptr || !list->IsArray()) {
    return false;
  }
  rapidjson::SizeType n = std::min<rapidjson::SizeType>(list->Size(), 16);
  for (rapidjson::SizeType i = 0; i < n; ++i) {
    if ((*list)[i].IsObject() && pred((*list)[i])) {
      return true;
    }
  }
  return false;
}

bool part_of_type(const JsonValue& part, auto set) {
  auto type = string_member(part, "type");
  return type && one_of(*type, set);
}

bool gemini_response(const JsonValue& value) {
  if (value.IsObject()) {
    return array_has(value, "candidates");
  }
  if (value.IsArray() && !value.Empty()) {
    return value[0].IsObject() && array_has(value[0], "candidates");
  }
  return false;
}

}  // namespace

std::optional<std::string_view> looks_foreign(const JsonValue& record) {
  if (record.IsArray()) {
    // A document holding a list of records: the first tells.
    return record.Empty() ? std::nullopt : looks_foreign(record[0]);
  }
  if (!record.IsObject()) {
    return std::nullopt;
  }
  auto type = string_member(record, "type");
  auto role = string_member(record, "role");

  if (const JsonValue* error = find_member(record, "error");
      error != nullptr && error->IsObject() && !role && !has(record, "message") &&
      !has(record, "messages") && !has(record, "choices") && !has(record, "uuid") &&
      (!type || *type == "error")) {
    return "an API error body (error)";
  }
  if (type && one_of(*type, k_anthropic_events)) {
    return "an Anthropic Messages stream (message_start, content_block_delta events), "
           "which convo assemble reads";
  }
  if (auto object = string_member(record, "object"); object && *object == "chat.completion.chunk") {
    return "an OpenAI chat completion stream (chunks), which convo assemble reads";
  }
  if (type && type->substr(0, 9) == "response.") {
    return "an OpenAI Responses stream (response.* events), which convo assemble reads";
  }
  if (type && !role && one_of(*type, k_ai_sdk_chunks)) {
    return "a Vercel AI SDK UI message stream (start, text-delta chunks), which convo assemble "
           "reads";
  }

  // Gemini CLI's fake-model scripts (its integration tests' `*.responses`): the
  // model's side only, each line a scripted response or stream. Their
  // `.response` members are Gemini response bodies convo reads.
  if (has(record, "method")) {
    if (const JsonValue* response = find_member(record, "response");
        response != nullptr && gemini_response(*response)) {
      return "recorded Gemini responses (method/response): `jq -c .response` gives the "
             "response bodies convo reads as gemini";
    }
  }

  // A content block on its own.
  if (type && !role && one_of(*type, k_block_types) && !has(record, "message") &&
      !has(record, "content") && !has(record, "data") && !has(record, "messageID")) {
    return "bare content blocks (type/text), not messages";
  }
  return std::nullopt;
}

std::string describe_unclaimed(const JsonValue& record) {
  if (!record.IsObject()) {
    return fmt::format("a JSON {}", json_type_name(record));
  }
  if (record.MemberCount() == 0) {
    return "an empty object";
  }
  std::string keys;
  std::size_t shown = 0;
  for (const auto& member : record.GetObject()) {
    if (shown == 4) {
      keys += ", ...";
      break;
    }
    keys += fmt::format("{}\"{}\"", shown == 0 ? "" : ", ", view_of(member.name));
    ++shown;
  }
  return fmt::format("an object with keys {}", keys);
}

}  // namespace convo
