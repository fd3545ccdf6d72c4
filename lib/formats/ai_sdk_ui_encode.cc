// UIMessages from the turns of any format (`convert --to ai-sdk --ai-sdk-shape ui`),
// as the AI SDK's useChat stores a conversation: one UIMessage per user or system
// message, and one per assistant turn, its tool calls joined with their results.
#include <fmt/format.h>

#include <algorithm>

#include "formats/ai_sdk_parts.h"
#include "formats/json_out.h"
#include "formats/mapping.h"
#include "formats/session_ids.h"

namespace convo::ai_sdk {

namespace {

std::string text_of(const rapidjson::StringBuffer& buffer) {
  return std::string(buffer.GetString(), buffer.GetSize());
}

// `size` characters of [0-9A-Za-z] from `value`, as the SDK's generateId spells ids.
void append_base62(std::string& out, std::uint64_t value, std::size_t size) {
  constexpr std::string_view k_digits =
      "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  for (std::size_t i = 0; i < size; ++i) {
    out += k_digits[value % k_digits.size()];
    value /= k_digits.size();
  }
}

// The value of an AI SDK ModelMessage tool-result part's `json` output (the tool's
// return value, which a UI tool part's `output` holds as it is), when the result
// still says it; else null.
const JsonValue* json_output_value(const Message& message, const Block& result) {
  if (message.origin != Format::ai_sdk || result.json == nullptr || result.result.is_blocks() ||
      !result.json->IsObject() || string_member(*result.json, "type").value_or("") != "tool-result") {
    return nullptr;
  }
  const JsonValue* output = find_member(*result.json, "output");
  if (output == nullptr || !output->IsObject() ||
      string_member(*output, "type").value_or("") != "json") {
    return nullptr;
  }
  const JsonValue* value = find_member(*output, "value");
  return value != nullptr && !value->IsString() && to_json(*value) == result.result.text ? value
                                                                                         : nullptr;
}

}  // namespace

void UiMessageBuilder::add(const Message& message, Records& values) {
  const Content& content = message.content;
  switch (message.role) {
    case Role::system:
    case Role::developer: {
      flush(values);
      start(message, "system");
      if (content.is_blocks()) {
        for (const Block& block : content.blocks) {
          add_part(message, block, true);
        }
      } else {
        Block text;
        text.text = content.text;
        add_part(message, text, true);
      }
      flush(values);
      return;
    }
    case Role::assistant:
      add_assistant(message);
      return;
    default:
      break;
  }
  // A tool message, or a user message: its tool results answer the calls of the
  // assistant message being built; the rest is a user message of its own.
  Content results;
  results.form = Content::Form::blocks;
  std::vector<const Block*> rest;
  for (const Block& block : content.blocks) {
    if (block.type == BlockType::tool_result) {
      results.blocks.push_back(block);
    } else {
      rest.push_back(&block);
    }
  }
  add_results(message, results);
  if (message.role == Role::tool) {
    for (const Block* block : rest) {
      m_drop(fmt::format("{} in tool messages", blocks_of(*block)), message);
    }
    if (!content.is_blocks() && !content.text.empty()) {
      m_drop("text in tool messages", message);
    }
    return;
  }
  if (content.is_blocks() && rest.empty() && !results.blocks.empty()) {
    return;  // results alone (Anthropic's way): the assistant's turn goes on
  }
  flush(values);
  start(message, "user");
  if (content.is_blocks()) {
    for (const Block* block : rest) {
      add_part(message, *block, false);
    }
  } else if (content.is_string()) {
    Block text;
    text.text = content.text;
    add_part(message, text, false);
  }
  if (m_parts.empty()) {
    m_open = false;  // every part dropped (counted): no message of nothing
    return;
  }
  flush(values);
}

void UiMessageBuilder::flush(Records& values) {
  if (!m_open) {
    return;
  }
  m_open = false;
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("id");
  write_string(w, m_id);
  w.Key("role");
  write_string(w, m_role);
  w.Key("parts");
  w.StartArray();
  for (const Part& part : m_parts) {
    if (!part.json.empty()) {
      w.RawValue(part.json.data(), part.json.size(), rapidjson::kObjectType);
      continue;
    }
    w.StartObject();
    w.Key("type");
    if (part.tool_name.empty()) {
      w.String("dynamic-tool");  // tool-NAME needs a name
      w.Key("toolName");
      w.String("");
    } else {
      write_string(w, "tool-" + part.tool_name);
    }
    w.Key("toolCallId");
    write_string(w, part.call_id);
    w.Key("state");
    write_string(w, part.state);
    w.Key("input");
    w.RawValue(part.input.data(), part.input.size(), rapidjson::kObjectType);
    if (!part.provider.empty()) {
      w.Key("callProviderMetadata");
      w.RawValue(part.provider.data(), part.provider.size(), rapidjson::kObjectType);
    }
    if (part.state == "output-available" && !part.output_json.empty()) {
      w.Key("output");
      w.RawValue(part.output_json.data(), part.output_json.size(), rapidjson::kObjectType);
    } else if (part.state == "output-available") {
      w.Key("output");
      write_string(w, part.output);
    } else if (part.state == "output-error") {
      w.Key("errorText");
      write_string(w, part.output);
    }
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  m_parts.clear();
  values.add(text_of(buffer));
}

void UiMessageBuilder::start(const Message& message, std::string_view role) {
  m_open = true;
  m_role = std::string(role);
  m_id = message.id.empty() ? id_for(message) : message.id;
  m_parts.clear();
  ++m_made;
}

void UiMessageBuilder::add_assistant(const Message& message) {
  if (m_open && m_role == "assistant") {
    // The turn goes on: a new step, after the results of the last one or, with none,
    // after a step that made no calls.
    if (!message.id.empty() && message.id != m_id) {
      m_drop("message ids", message);  // the UIMessage has the first step's
    }
  } else {
    start(message, "assistant");  // user and system messages are written when added
  }
  // Each step begins with a step-start part, as the SDK's UI message stream
  // (`start-step`) makes them: convertToModelMessages splits the steps there.
  m_parts.emplace_back().json = R"({"type":"step-start"})";
  if (!message.content.is_blocks()) {
    if (message.content.is_string() && !message.content.text.empty()) {
      Block text;
      text.text = message.content.text;
      add_part(message, text, false);
    }
    return;
  }
  Content results;
  results.form = Content::Form::blocks;
  for (const Block& block : message.content.blocks) {
    if (block.type == BlockType::tool_result) {
      results.blocks.push_back(block);  // a result in the reply (OpenCode's tool parts)
      continue;
    }
    add_part(message, block, false);
  }
  add_results(message, results);
}

void UiMessageBuilder::add_results(const Message& message, const Content& results) {
  for (const Block& result : results.blocks) {
    auto call = std::find_if(m_parts.begin(), m_parts.end(), [&](const Part& part) {
      return part.json.empty() && part.call_id == result.id;
    });
    if (!m_open || m_role != "assistant" || call == m_parts.end()) {
      m_drop("tool results without their calls", message);
      continue;
    }
    const Content& output = result.result;
    call->output = output.is_blocks() ? output.joined_text() : output.text;
    call->output_json.clear();
    call->state = result.is_error.value_or(false) ? "output-error" : "output-available";
    if (const JsonValue* value = json_output_value(message, result)) {
      call->output_json = to_json(*value);  // the value the tool returned, as it was
    }
    for (const Block& block : output.blocks) {
      if (block.type != BlockType::text) {
        m_drop(fmt::format("{} in tool results", blocks_of(block)), message);
      }
    }
  }
}

void UiMessageBuilder::add_part(const Message& message, const Block& block, bool system) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  switch (block.type) {
    case BlockType::text:
      w.StartObject();
      w.Key("type");
      w.String("text");
      w.Key("text");
      write_string(w, block.text);
      break;
    case BlockType::thinking:
    case BlockType::redacted_thinking:
      if (system || m_role != "assistant") {
        m_drop(fmt::format("{} in {} messages", blocks_of(block), m_role), message);
        return;
      }
      w.StartObject();
      w.Key("type");
      w.String("reasoning");
      w.Key("text");
      write_string(w, block.type == BlockType::thinking ? std::string_view(block.text)
                                                        : std::string_view());
      break;
    case BlockType::tool_use: {
      if (m_role != "assistant") {
        m_drop(fmt::format("tool calls in {} messages", m_role), message);
        return;
      }
      rapidjson::StringBuffer input;
      JsonWriter iw(input);
      write_input(iw, block);
      Part& part = m_parts.emplace_back();
      part.call_id = block.id;
      part.tool_name = block.name;
      part.input = text_of(input);
      part.state = "input-available";
      if (has_provider_fields(block)) {
        // A call's signature (Gemini's thought signature) or cache_control:
        // convertToModelMessages makes it the tool-call part's providerOptions.
        rapidjson::StringBuffer provider;
        JsonWriter pw(provider);
        write_provider_fields(pw, block);
        part.provider = text_of(provider);
      }
      return;
    }
    default:
      if (!is_media(block.type) || system) {
        m_drop(system ? fmt::format("{} in system messages", blocks_of(block)) : blocks_of(block),
               message);
        return;
      }
      if (block.source.type != MediaSource::Type::url &&
          block.source.type != MediaSource::Type::base64 &&
          block.source.type != MediaSource::Type::text) {
        m_drop(fmt::format("{} blocks given by file id", block_type_name(block.type)), message);
        return;
      }
      w.StartObject();
      w.Key("type");
      w.String("file");
      w.Key("mediaType");
      write_string(w, file_part_media_type(block));
      if (!block.name.empty()) {
        w.Key("filename");
        write_string(w, block.name);
      }
      w.Key("url");
      write_string(w, block.source.to_url());
      break;
  }
  if (has_provider_fields(block)) {
    // The Anthropic provider's signature and cache_control, where the SDK keeps them
    // in a UIMessage (convertToModelMessages makes them the part's providerOptions).
    w.Key("providerMetadata");
    write_provider_fields(w, block);
  }
  w.EndObject();
  m_parts.emplace_back().json = text_of(buffer);
}

// 16 characters, as the SDK's own generator makes, derived from where the message was
// read (input, line, place in its record) and how many UIMessages came before it:
// the same input always gives the same ids.
std::string UiMessageBuilder::id_for(const Message& message) {
  auto [hi, lo] = hash128(fmt::format("ai-sdk-ui:{}:{}:{}:{}",
                                      message.where.file ? *message.where.file : "",
                                      message.where.line, message.slot, m_made));
  std::string id;
  append_base62(id, hi, 8);
  append_base62(id, lo, 8);
  return id;
}

}  // namespace convo::ai_sdk
