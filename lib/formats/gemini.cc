#include "formats/gemini.h"

#include <fmt/format.h>

#include <algorithm>

#include "formats/api_error.h"
#include "formats/fields.h"
#include "formats/gemini_parts.h"
#include "formats/json_out.h"
#include "formats/object_writer.h"
#include "formats/tool_turns.h"
#include "io/output.h"

namespace convo {

namespace {

// --- Detection ---

int sniff_content(const JsonValue& content) {
  if (!content.IsObject()) {
    return 0;
  }
  const JsonValue* parts = find_member(content, "parts");
  if (find_member(content, "content") != nullptr || find_member(content, "message") != nullptr ||
      (find_member(content, "role") != nullptr && parts == nullptr)) {
    return -1;  // a message of another format
  }
  if (parts == nullptr || !parts->IsArray()) {
    return 0;
  }
  auto role = string_member(content, "role");
  int score = 2;
  if (role && *role == "model") {
    score += 3;
  }
  rapidjson::SizeType n = std::min<rapidjson::SizeType>(parts->Size(), 16);
  for (rapidjson::SizeType i = 0; i < n; ++i) {
    int s = sniff_gemini_part((*parts)[i]);
    if (s < 0) {
      return -1;
    }
    score += s;
  }
  return score;
}

const JsonValue* array_member(const JsonValue& object, std::string_view key) {
  const JsonValue* value = find_member(object, key);
  return value != nullptr && value->IsArray() ? value : nullptr;
}

}  // namespace

namespace {

// --- Decoding messages ---

void decode_role(std::string_view role, Message& message) {
  if (role == "user") {
    message.role = Role::user;
  } else if (role == "model") {
    message.role = Role::assistant;
  } else if (role == "system") {
    message.role = Role::system;
  } else {
    message.role = Role::custom;
    message.custom_role = std::string(role);
  }
}

// Decodes a Content object (`{role, parts}`) at `path` into `message`.
void decode_content_object(const JsonValue& object, const std::string& path, Message& message,
                           std::string_view default_role) {
  if (!object.IsObject()) {
    wrong_type(path, "a Content (an object with role and parts)", object);
  }
  decode_role(optional_string(object, "role", path).value_or(default_role), message);
  const JsonValue* parts = find_member(object, "parts");
  if (parts == nullptr || parts->IsNull()) {
    message.content.form = Content::Form::blocks;
    return;
  }
  decode_gemini_parts(*parts, member_path(path, "parts"), message.source, message.content);
}

Usage decode_usage(const JsonValue& root) {
  Usage usage;
  if (const JsonValue* u = optional_object(root, "usageMetadata", "")) {
    usage.input = optional_int(*u, "promptTokenCount", "/usageMetadata");
    usage.output = optional_int(*u, "candidatesTokenCount", "/usageMetadata");
    usage.reasoning = optional_int(*u, "thoughtsTokenCount", "/usageMetadata");
    usage.cache_read = optional_int(*u, "cachedContentTokenCount", "/usageMetadata");
    usage.total = optional_int(*u, "totalTokenCount", "/usageMetadata");
  }
  return usage;
}

class GeminiDecoder final : public Decoder {
 public:
  void decode(Record&& record, std::vector<Message>& out) override {
    const JsonValue& root = record.source->doc;
    if (root.IsArray()) {
      Location where = record.where;
      auto container = make_container(Format::gemini, std::move(record), "");
      const JsonValue& array = container->source->doc;
      for (rapidjson::SizeType i = 0; i < array.Size(); ++i) {
        Message message = begin_contained(container, where, i, &array[i]);
        decode_content_object(array[i], fmt::format("/{}", i), message, "user");
        push(std::move(message), out);
      }
      container->size = array.Size();
      return;
    }
    if (!root.IsObject()) {
      wrong_type("", "a JSON object", root);
    }
    if (find_member(root, "contents") != nullptr || find_member(root, "systemInstruction") != nullptr) {
      decode_request(std::move(record), out);
      return;
    }
    if (const JsonValue* candidates = array_member(root, "candidates");
        candidates != nullptr && !candidates->Empty()) {
      decode_response(std::move(record), *candidates, out);
      return;
    }
    Message message = begin_message(Format::gemini, record, &root);
    if (find_member(root, "parts") == nullptr) {
      // A response without candidates (a blocked prompt: its promptFeedback says
      // why) is kept as a record that is not a turn; anything else is no record of
      // the format.
      bool response = find_member(root, "usageMetadata") != nullptr ||
                      find_member(root, "promptFeedback") != nullptr;
      message.kind = response ? Kind::event : Kind::unknown;
      message.role = Role::none;
      message.record_type = response ? "candidate-less response" : "";
      if (const JsonValue* error = find_member(root, "error"); error != nullptr && error->IsObject()) {
        message.record_type = "error";  // an error body: {"error": {code, message, status}}
      }
      message.content.form = Content::Form::absent;
    } else {
      decode_content_object(root, "", message, "user");
    }
    message.raw = std::move(record.raw);
    push(std::move(message), out);
  }

 private:
  void push(Message&& message, std::vector<Message>& out) {
    m_linker.link(message.content);
    out.push_back(std::move(message));
  }

  void decode_request(Record&& record, std::vector<Message>& out) {
    Location where = record.where;
    const JsonValue& root = record.source->doc;
    const JsonValue* system = find_member(root, "systemInstruction");
    bool has_system = system != nullptr && !system->IsNull();
    auto container = make_container(Format::gemini, std::move(record), "contents", "", has_system);
    std::size_t slot = 0;
    if (has_system) {
      Message message = begin_contained(container, where, slot++, system);
      if (system->IsString()) {
        message.content.form = Content::Form::string;
        message.content.text = std::string(view_of(*system));
      } else {
        decode_content_object(*system, "/systemInstruction", message, "system");
      }
      message.role = Role::system;
      if (message.content.is_blocks() && message.content.blocks.size() > 1) {
        // Each part is a system message: the parts of an instruction are the system
        // prompts it was made of (pydantic-ai writes a part per prompt, convo one per
        // leading system message), which formats with several system messages keep
        // apart. Written back to Gemini, they are one instruction again.
        std::vector<Block> blocks = std::move(message.content.blocks);
        for (std::size_t k = 0; k < blocks.size(); ++k) {
          Message part = k == 0 ? std::move(message) : begin_contained(container, where, slot++, system);
          part.role = Role::system;
          part.content.form = Content::Form::blocks;
          part.content.blocks.clear();
          part.content.blocks.push_back(std::move(blocks[k]));
          container->element_of_slot.push_back(0);
          out.push_back(std::move(part));
        }
      } else {
        out.push_back(std::move(message));
      }
    }
    if (const JsonValue* contents = find_member(root, "contents"); contents != nullptr) {
      if (!contents->IsArray()) {
        wrong_type("/contents", "an array of Content objects", *contents);
      }
      for (rapidjson::SizeType i = 0; i < contents->Size(); ++i) {
        if (!container->element_of_slot.empty()) {
          container->element_of_slot.push_back(i + 1);  // 0 is the instruction
        }
        Message message = begin_contained(container, where, slot++, &(*contents)[i]);
        decode_content_object((*contents)[i], fmt::format("/contents/{}", i), message, "user");
        push(std::move(message), out);
      }
    }
    container->size = slot;
  }

  void decode_response(Record&& record, const JsonValue& candidates, std::vector<Message>& out) {
    Location where = record.where;
    const JsonValue& root = record.source->doc;
    Usage usage = decode_usage(root);
    std::string model(string_member(root, "modelVersion").value_or(""));
    std::string id(string_member(root, "responseId").value_or(""));
    auto container = make_container(Format::gemini, std::move(record), "candidates", "content");
    for (rapidjson::SizeType i = 0; i < candidates.Size(); ++i) {
      std::string path = fmt::format("/candidates/{}", i);
      const JsonValue& candidate = candidates[i];
      if (!candidate.IsObject()) {
        wrong_type(path, "a candidate (an object)", candidate);
      }
      const JsonValue* content = optional_object(candidate, "content", path);
      Message message = begin_contained(container, where, i, content);
      if (content != nullptr) {
        decode_content_object(*content, member_path(path, "content"), message, "model");
      } else {
        message.role = Role::assistant;
        message.content.form = Content::Form::blocks;
      }
      message.usage = usage;
      message.meta.edit().model = model;
      message.meta.edit().message_id = id;
      message.meta.edit().stop_reason = std::string(string_member(candidate, "finishReason").value_or(""));
      push(std::move(message), out);
    }
    container->size = candidates.Size();
  }

  CallLinker m_linker;
};

// --- Encoding ---

class GeminiEncoder final : public EncoderBase {
 public:
  explicit GeminiEncoder(LossReport& loss) : EncoderBase(Format::gemini, loss) {}

 protected:
  void encode(const Message& message, Records& values) override {
    if (!m_results.empty() && !joins_results(message)) {
      drain(values);
    }
    if (message.kind != Kind::turn || message.role == Role::none) {
      if (same_format(message)) {
        values.add(to_json(*message.json));
      } else if (auto error = error_body_of(message, ErrorShape::gemini,
                                            [&](std::string_view what) { drop(what, message); })) {
        values.add(std::move(*error));  // another API's error body, as this one's
      } else {
        drop(record_noun(message), message);
      }
      return;
    }
    std::string_view role;
    switch (message.role) {
      case Role::system:
      case Role::developer:
        values.add(system_instruction(message));
        return;
      case Role::user:
      case Role::tool:
        role = "user";
        break;
      case Role::assistant:
        role = "model";
        m_names.note(message);
        break;
      case Role::function:
        drop("legacy function messages", message);
        return;
      default:
        drop("messages with custom roles", message);
        return;
    }
    if (!message.name.empty()) {
      drop("names", message);
    }
    rapidjson::StringBuffer parts_buffer;
    JsonWriter parts_writer(parts_buffer);
    if (write_parts(parts_writer, message) == 0 && message.content.is_blocks() &&
        !message.content.blocks.empty()) {
      // Every block was one Gemini has no part for (counted): no empty turn, which
      // the API rejects and which would read back as a turn of its own.
      return;
    }
    std::string_view parts(parts_buffer.GetString(), parts_buffer.GetSize());
    if (joins_results(message)) {
      // Held: the responses to one turn's calls are one Content (the API wants them
      // together), as they come from formats with a message per result.
      m_results += m_results.empty() ? "" : ",";
      m_results += parts.substr(1, parts.size() - 2);
      return;
    }
    rapidjson::StringBuffer buffer;
    JsonWriter writer(buffer);
    const bool same = same_format(message) && message.json->IsObject();
    ObjectWriter object(writer, same ? message.json : nullptr);
    object.set_string("role", role);
    object.set_raw("parts", parts);
    object.write();
    values.add(std::string(buffer.GetString(), buffer.GetSize()));
  }

  // The tool results held: one user Content.
  void drain(Records& values) override {
    if (m_results.empty()) {
      return;
    }
    values.add(fmt::format(R"({{"role":"user","parts":[{}]}})", m_results));
    m_results.clear();
  }

  // A request whose messages changed: the request again, `systemInstruction` and
  // `contents` as they are now, its other members as they were.
  void write_changed_container(const Container& container, std::vector<Message>& held,
                               Output& out) override {
    if (container.array_key != "contents") {
      EncoderBase::write_changed_container(container, held, out);
      return;
    }
    const JsonValue& root = container.source->doc;
    rapidjson::StringBuffer buffer;
    JsonWriter writer(buffer);
    Records values;
    auto is_system = [](const Message& m) {
      return m.role == Role::system || m.role == Role::developer;
    };
    ObjectWriter object(writer, &root);
    // The system messages are one instruction again, each its parts.
    JsonDoc system;
    for (const Message& message : held) {
      if (!is_system(message)) {
        continue;
      }
      values_of(message, values);
      std::string value = values.empty() ? std::string("{}") : std::string(values.front());
      JsonDoc doc;
      const JsonValue* instruction = nullptr;
      if (parse_object(value, doc)) {
        instruction = find_member(doc, "systemInstruction");
      }
      append_system_instruction(instruction != nullptr ? to_json(*instruction) : value, system);
    }
    if (!system.IsObject()) {
      object.remove("systemInstruction");
    } else {
      object.set_raw("systemInstruction", to_json(system));
    }
    std::string contents = "[";
    for (const Message& message : held) {
      if (is_system(message)) {
        continue;
      }
      values_of(message, values);
      for (std::string_view value : values) {
        contents += contents.size() > 1 ? "," : "";
        contents += value;
      }
    }
    contents += "]";
    object.set_raw("contents", contents);
    object.write();
    out.write_line(std::string_view(buffer.GetString(), buffer.GetSize()));
  }

 private:
  std::string system_instruction(const Message& message) {
    rapidjson::StringBuffer buffer;
    JsonWriter writer(buffer);
    writer.StartObject();
    writer.Key("systemInstruction");
    const bool same = same_format(message) && message.json->IsObject();
    ObjectWriter object(writer, same ? message.json : nullptr);
    object.set("parts", [&](JsonWriter& w) { write_parts(w, message); });
    object.write();
    writer.EndObject();
    return std::string(buffer.GetString(), buffer.GetSize());
  }

  // Writes `message`'s parts; returns how many.
  std::size_t write_parts(JsonWriter& w, const Message& message) {
    // Only gemini's blocks are parts: a gemini-cli block's JSON may be a tool call record.
    const bool own = message.origin == Format::gemini;
    GeminiPartWriter parts(own, [&](std::string_view what) { drop(what, message); });
    std::size_t written = 0;
    w.StartArray();
    if (message.content.form == Content::Form::string) {
      w.StartObject();
      w.Key("text");
      write_string(w, message.content.text);
      w.EndObject();
      ++written;
    }
    for (const Block& block : message.content.blocks) {
      if (!message.content.is_blocks()) {
        break;
      }
      if (block.type == BlockType::tool_use && message.role != Role::assistant) {
        drop(fmt::format("tool calls in {} messages", role_name(message.role)), message);
        continue;
      }
      if (block.type == BlockType::thinking && message.role != Role::assistant) {
        drop(fmt::format("thinking blocks in {} messages", role_name(message.role)), message);
        continue;
      }
      if (parts.holds(block)) {
        parts.write(w, block, m_names.name_for(block));
        ++written;
      }
    }
    w.EndArray();
    return written;
  }

  // True for a message of tool results alone, from a format with a message per
  // result, outside a body (whose writer joins them itself): it joins the results
  // held. Not from a format whose records hold one block each (Claude Code's): as the
  // items of a reply, its results stay records of their own, as they come back.
  bool joins_results(const Message& message) const {
    if (same_format(message) || message.container || message.kind != Kind::turn ||
        format_traits(message.origin).splits_replies ||
        (message.role != Role::tool && message.role != Role::user) || !message.content.is_blocks() ||
        message.content.blocks.empty() || !message.name.empty()) {
      return false;
    }
    return std::all_of(message.content.blocks.begin(), message.content.blocks.end(),
                       [](const Block& b) { return b.type == BlockType::tool_result; });
  }

  ToolNames m_names;
  std::string m_results;  // the parts of tool results held, joined by commas
};

}  // namespace

void append_system_instruction(const std::string& instruction, JsonDoc& system) {
  if (!system.IsObject()) {
    parse_object(instruction, system);
    return;
  }
  JsonDoc more;
  const JsonValue* parts = parse_object(instruction, more) ? find_member(more, "parts") : nullptr;
  if (parts == nullptr || !parts->IsArray()) {
    return;
  }
  auto& allocator = system.GetAllocator();
  auto into = system.FindMember("parts");
  if (into == system.MemberEnd() || !into->value.IsArray()) {
    system.RemoveMember("parts");
    system.AddMember("parts", JsonValue(rapidjson::kArrayType), allocator);
    into = system.FindMember("parts");
  }
  for (const JsonValue& part : parts->GetArray()) {
    into->value.PushBack(JsonValue(part, allocator), allocator);
  }
}

void gemini_unmodelled(const Message& message,
                       const std::function<void(std::string_view)>& unheld) {
  if (message.content.is_blocks()) {
    for (const Block& block : message.content.blocks) {
      if (block.signature && block.type != BlockType::thinking) {
        unheld("thought signatures");
      }
      if (block.json != nullptr && has_snake_case_spelling(*block.json)) {
        unheld("Vertex part spellings");  // written back as the API spells them
      }
    }
  }
  if (message.json != nullptr && message.json->IsObject() &&
      (!message.container || message.container->array_key != "candidates")) {
    for (const auto& m : message.json->GetObject()) {
      std::string_view key = view_of(m.name);
      if (key == "role" && message.role == Role::system) {
        unheld("role of system instructions");  // pydantic-ai writes "user" there
      } else if (key != "role" && key != "parts" && message.kind == Kind::turn) {
        unheld(fmt::format("{} of contents", key));
      }
    }
  }
}

int sniff_gemini(const JsonValue& record) {
  if (record.IsArray()) {
    int score = 0;
    rapidjson::SizeType n = std::min<rapidjson::SizeType>(record.Size(), 16);
    for (rapidjson::SizeType i = 0; i < n; ++i) {
      int s = sniff_content(record[i]);
      if (s <= 0) {
        return s < 0 ? -1 : 0;
      }
      score += s;
    }
    return score;
  }
  if (!record.IsObject()) {
    return 0;
  }
  if (find_member(record, "sessionId") != nullptr && find_member(record, "projectHash") != nullptr) {
    return -1;  // a Gemini CLI session
  }
  if (const JsonValue* contents = array_member(record, "contents")) {
    int score = 10;
    for (const JsonValue& content : contents->GetArray()) {
      if (sniff_content(content) < 0) {
        return -1;
      }
    }
    return score;
  }
  if (const JsonValue* system = find_member(record, "systemInstruction");
      system != nullptr && (system->IsObject() || system->IsString())) {
    return 5;
  }
  if (const JsonValue* candidates = array_member(record, "candidates")) {
    int score = 10;
    for (const JsonValue& candidate : candidates->GetArray()) {
      if (const JsonValue* content = find_member(candidate, "content")) {
        if (sniff_content(*content) < 0) {
          return -1;
        }
      }
    }
    return score;
  }
  if (find_member(record, "usageMetadata") != nullptr && find_member(record, "modelVersion") != nullptr) {
    return 5;  // a response without candidates
  }
  return sniff_content(record);
}

std::unique_ptr<Decoder> make_gemini_decoder() { return std::make_unique<GeminiDecoder>(); }

std::unique_ptr<Encoder> make_gemini_encoder(LossReport& loss) {
  return std::make_unique<GeminiEncoder>(loss);
}

}  // namespace convo