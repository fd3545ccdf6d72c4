#include "formats/ai_sdk_stream.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <optional>

#include "formats/fields.h"
#include "sse_reader.h"

namespace convo {

namespace {

constexpr std::array<std::string_view, 22> k_chunk_types = {
    "start",           "start-step",       "finish-step",           "finish",
    "text-start",      "text-delta",       "text-end",              "reasoning-start",
    "reasoning-delta", "reasoning-end",    "tool-input-start",      "tool-input-delta",
    "tool-input-available", "tool-input-error", "tool-output-available", "tool-output-error",
    "message-metadata", "source-url",      "source-document",       "file",
    "abort",           "tool-output-denied"};

bool is_chunk_type(std::string_view type) {
  return type.starts_with("data-") ||
         std::find(k_chunk_types.begin(), k_chunk_types.end(), type) != k_chunk_types.end();
}

// The assistant UIMessage its chunks spell, as the SDK's readUIMessageStream
// builds it.
class UIMessageBuilder {
 public:
  explicit UIMessageBuilder(Location where) : m_where(std::move(where)) {
    m_doc.SetObject();
    m_parts.SetArray();
  }

  const Location& where() const { return m_where; }
  const std::string& id() const { return m_id; }
  bool finished() const { return m_finished; }

  // Applies one chunk of type `type`; returns why it cannot be, or "".
  std::string apply(std::string_view type, const JsonValue& chunk) {
    JsonAllocator& alloc = m_doc.GetAllocator();
    if (type == "start") {
      if (auto id = string_member(chunk, "messageId")) {
        m_id = std::string(*id);
      }
      merge_metadata(chunk);
    } else if (type == "message-metadata" || type == "finish") {
      merge_metadata(chunk);
      m_finished = type == "finish";
    } else if (type == "start-step") {
      JsonValue part(rapidjson::kObjectType);
      part.AddMember("type", "step-start", alloc);
      m_parts.PushBack(std::move(part), alloc);
    } else if (type == "finish-step") {
      m_open_text.clear();
      m_open_reasoning.clear();
    } else if (type == "text-start" || type == "reasoning-start") {
      bool text = type == "text-start";
      std::string id(string_member(chunk, "id").value_or(""));
      JsonValue part(rapidjson::kObjectType);
      part.AddMember("type", make_string(text ? "text" : "reasoning", alloc), alloc);
      part.AddMember("text", make_string("", alloc), alloc);
      copy_member(part, chunk, "providerMetadata");
      part.AddMember("state", "streaming", alloc);
      (text ? m_open_text : m_open_reasoning)[id] = m_parts.Size();
      m_parts.PushBack(std::move(part), alloc);
    } else if (type == "text-delta" || type == "reasoning-delta" || type == "text-end" ||
               type == "reasoning-end") {
      bool text = type.starts_with("text-");
      auto& open = text ? m_open_text : m_open_reasoning;
      std::string id(string_member(chunk, "id").value_or(""));
      auto found = open.find(id);
      if (found == open.end()) {
        return fmt::format("{} for {} part \"{}\", which no {}-start began", type,
                           text ? "text" : "reasoning", id, text ? "text" : "reasoning");
      }
      JsonValue& part = m_parts[static_cast<rapidjson::SizeType>(found->second)];
      copy_member(part, chunk, "providerMetadata");
      if (type.ends_with("-delta")) {
        std::string joined(view_of(*find_member(part, "text")));
        joined += string_member(chunk, "delta").value_or("");
        set_member(part, "text", make_string(joined, alloc), alloc);
      } else {
        set_member(part, "state", make_string("done", alloc), alloc);
        open.erase(found);
      }
    } else if (type.starts_with("tool-")) {
      return tool_chunk(type, chunk);
    } else if (type == "file" || type == "source-url" || type == "source-document") {
      JsonValue part(chunk, alloc);
      m_parts.PushBack(std::move(part), alloc);
    } else if (type.starts_with("data-")) {
      if (const JsonValue* transient = find_member(chunk, "transient");
          transient != nullptr && transient->IsBool() && transient->GetBool()) {
        return "";
      }
      JsonValue part(rapidjson::kObjectType);
      part.AddMember("type", make_string(type, alloc), alloc);
      copy_member(part, chunk, "id");
      copy_member(part, chunk, "data");
      // A data part with the id of an earlier one of its type replaces it.
      if (auto id = string_member(chunk, "id")) {
        for (JsonValue& existing : m_parts.GetArray()) {
          if (string_member(existing, "type").value_or("") == type &&
              string_member(existing, "id").value_or("") == *id) {
            existing = std::move(part);
            return "";
          }
        }
      }
      m_parts.PushBack(std::move(part), alloc);
    }
    return "";
  }

  std::string json() {
    JsonAllocator& alloc = m_doc.GetAllocator();
    JsonValue message(rapidjson::kObjectType);
    if (!m_id.empty()) {
      message.AddMember("id", make_string(m_id, alloc), alloc);
    }
    message.AddMember("role", "assistant", alloc);
    message.AddMember("parts", JsonValue(m_parts, alloc), alloc);
    if (m_metadata.IsObject()) {
      message.AddMember("metadata", JsonValue(m_metadata, alloc), alloc);
    }
    return to_json(message);
  }

 private:
  void copy_member(JsonValue& part, const JsonValue& chunk, std::string_view key) {
    if (const JsonValue* value = find_member(chunk, key); value != nullptr && !value->IsNull()) {
      set_member(part, key, JsonValue(*value, m_doc.GetAllocator()), m_doc.GetAllocator());
    }
  }

  void merge_metadata(const JsonValue& chunk) {
    const JsonValue* metadata = find_member(chunk, "messageMetadata");
    if (metadata == nullptr || !metadata->IsObject()) {
      return;
    }
    JsonAllocator& alloc = m_doc.GetAllocator();
    if (!m_metadata.IsObject()) {
      m_metadata.SetObject();
    }
    for (const auto& member : metadata->GetObject()) {
      set_member(m_metadata, view_of(member.name), JsonValue(member.value, alloc), alloc);
    }
  }

  std::string tool_chunk(std::string_view type, const JsonValue& chunk) {
    JsonAllocator& alloc = m_doc.GetAllocator();
    std::string id(string_member(chunk, "toolCallId").value_or(""));
    if (id.empty()) {
      return fmt::format("{} has no toolCallId", type);
    }
    JsonValue* part = nullptr;
    for (JsonValue& existing : m_parts.GetArray()) {
      if (string_member(existing, "toolCallId").value_or("") == id) {
        part = &existing;
      }
    }
    if (part == nullptr) {
      if (type != "tool-input-start" && type != "tool-input-available" &&
          type != "tool-input-error") {
        return fmt::format("{} for tool call \"{}\", which no tool-input chunk began", type, id);
      }
      auto name = string_member(chunk, "toolName").value_or("");
      bool dynamic = false;
      if (const JsonValue* flag = find_member(chunk, "dynamic"); flag != nullptr && flag->IsBool()) {
        dynamic = flag->GetBool();
      }
      JsonValue fresh(rapidjson::kObjectType);
      fresh.AddMember("type", make_string(dynamic ? "dynamic-tool" : fmt::format("tool-{}", name), alloc),
                      alloc);
      if (dynamic) {
        fresh.AddMember("toolName", make_string(name, alloc), alloc);
      }
      fresh.AddMember("toolCallId", make_string(id, alloc), alloc);
      fresh.AddMember("state", "input-streaming", alloc);
      m_parts.PushBack(std::move(fresh), alloc);
      part = &m_parts[m_parts.Size() - 1];
    }
    copy_member(*part, chunk, "providerExecuted");
    auto set_state = [&](std::string_view state) {
      set_member(*part, "state", make_string(state, alloc), alloc);
    };
    if (type == "tool-input-delta") {
      m_input_text[id] += string_member(chunk, "inputTextDelta").value_or("");
    } else if (type == "tool-input-available") {
      set_state("input-available");
      copy_member(*part, chunk, "input");
      if (const JsonValue* meta = find_member(chunk, "providerMetadata"); meta != nullptr) {
        set_member(*part, "callProviderMetadata", JsonValue(*meta, alloc), alloc);
      }
    } else if (type == "tool-input-error") {
      set_state("output-error");
      copy_member(*part, chunk, "input");
      copy_member(*part, chunk, "errorText");
    } else if (type == "tool-output-available") {
      set_state("output-available");
      if (find_member(*part, "input") == nullptr) {
        set_member(*part, "input", input_so_far(id), alloc);
      }
      copy_member(*part, chunk, "output");
      copy_member(*part, chunk, "preliminary");
    } else if (type == "tool-output-error") {
      set_state("output-error");
      if (find_member(*part, "input") == nullptr) {
        set_member(*part, "input", input_so_far(id), alloc);
      }
      copy_member(*part, chunk, "errorText");
    } else if (type == "tool-output-denied") {
      set_state("output-denied");
    }
    return "";
  }

  // The input streamed so far as JSON, or its text when it does not parse.
  JsonValue input_so_far(const std::string& id) {
    JsonAllocator& alloc = m_doc.GetAllocator();
    std::string text = m_input_text[id];
    JsonDoc parsed;
    if (!text.empty() && !parse_json(text, parsed)) {
      return JsonValue(parsed, alloc);
    }
    return text.empty() ? JsonValue() : make_string(text, alloc);
  }

  Location m_where;
  JsonDoc m_doc;  // owns everything below
  JsonValue m_parts;
  JsonValue m_metadata;
  std::string m_id;
  bool m_finished = false;
  std::map<std::string, std::size_t> m_open_text;
  std::map<std::string, std::size_t> m_open_reasoning;
  std::map<std::string, std::string> m_input_text;
};

class AiSdkReader final : public StreamReader {
 public:
  Format format() const override { return Format::ai_sdk; }
  std::string_view name() const override { return "AI SDK"; }
  std::string_view arrival() const override { return "an AI SDK UI message stream starts"; }

  bool claims(const StreamEvent& event, const JsonValue& doc) const override {
    (void)event;
    return find_member(doc, "role") == nullptr &&
           is_chunk_type(string_member(doc, "type").value_or(""));
  }

  std::string take(const StreamEvent& event, const JsonValue& doc,
                   std::vector<AssembledResponse>& out, Diagnostics& diagnostics) override {
    std::string_view type = string_member(doc, "type").value_or("");
    if (type == "start" && m_message) {
      diagnostics.warning(event.where,
                          fmt::format("message {} ends without finish: the next message starts here",
                                      m_message->id().empty() ? "(no id)" : m_message->id()));
      out.push_back(end("", {}));
      out.back().whole = false;
    }
    if (!m_message) {
      m_message = std::make_unique<UIMessageBuilder>(event.where);
    }
    if (type == "abort") {
      return "the stream was aborted (abort chunk)";
    }
    std::string problem = m_message->apply(type, doc);
    if (problem.empty() && m_message->finished()) {
      out.push_back(end("", {}));
    }
    return problem;
  }

  bool open() const override { return m_message != nullptr; }
  // Only finish ends a message whole, and it hands the message out at once.
  bool complete() const override { return false; }
  std::string cut_off() const override {
    std::string id = m_message->id();
    return fmt::format("stream ends here, before finish: message {} is incomplete",
                       id.empty() ? "(no id)" : id);
  }

  AssembledResponse end(std::string problem, Location where) override {
    AssembledResponse response;
    response.format = Format::ai_sdk;
    response.json = m_message->json();
    response.where = m_message->where();
    response.whole = problem.empty();
    response.problem = std::move(problem);
    response.problem_at = std::move(where);
    m_message.reset();
    return response;
  }

 private:
  std::unique_ptr<UIMessageBuilder> m_message;
};

}  // namespace

std::unique_ptr<StreamReader> make_ai_sdk_stream_reader() {
  return std::make_unique<AiSdkReader>();
}

}  // namespace convo
