#include "formats/gemini.h"

#include <fmt/format.h>

#include <algorithm>

#include "formats/fields.h"
#include "formats/json_out.h"
#include "formats/object_writer.h"
#include "formats/tool_turns.h"
#include "io/output.h"

namespace convo {

namespace {

// A part member under its Gemini API name or its protobuf (Vertex) spelling.
struct PartKey {
  std::string_view camel;
  std::string_view snake;
};
constexpr PartKey k_function_call{"functionCall", "function_call"};
constexpr PartKey k_function_response{"functionResponse", "function_response"};
constexpr PartKey k_inline_data{"inlineData", "inline_data"};
constexpr PartKey k_file_data{"fileData", "file_data"};
constexpr PartKey k_signature{"thoughtSignature", "thought_signature"};
constexpr PartKey k_mime_type{"mimeType", "mime_type"};
constexpr PartKey k_file_uri{"fileUri", "file_uri"};

const JsonValue* member(const JsonValue& object, PartKey key) {
  if (const JsonValue* value = find_member(object, key.camel)) {
    return value;
  }
  return find_member(object, key.snake);
}

// The spelling `object` uses for `key` (the API's when it has neither).
std::string_view spelling(const JsonValue* object, PartKey key) {
  if (object != nullptr && find_member(*object, key.camel) == nullptr &&
      find_member(*object, key.snake) != nullptr) {
    return key.snake;
  }
  return key.camel;
}

std::optional<std::string_view> string_of(const JsonValue& object, PartKey key) {
  const JsonValue* value = member(object, key);
  if (value == nullptr || !value->IsString()) {
    return std::nullopt;
  }
  return view_of(*value);
}

constexpr std::string_view k_made_up_prefix = "gemini-call-";

// --- Detection ---

// The evidence one part gives.
int sniff_part(const JsonValue& part) {
  if (!part.IsObject()) {
    return 0;
  }
  if (find_member(part, "type") != nullptr) {
    return -1;  // Vercel AI SDK UI message parts
  }
  if (member(part, k_function_call) || member(part, k_function_response) ||
      member(part, k_inline_data) || member(part, k_file_data) || member(part, k_signature) ||
      find_member(part, "executableCode") || find_member(part, "codeExecutionResult")) {
    return 3;
  }
  return find_member(part, "text") != nullptr ? 1 : 0;
}

int sniff_content(const JsonValue& content) {
  if (!content.IsObject() || find_member(content, "content") != nullptr) {
    return 0;
  }
  const JsonValue* parts = find_member(content, "parts");
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
    int s = sniff_part((*parts)[i]);
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

// --- Decoding ---

BlockType media_type_of(std::string_view mime) {
  if (mime.starts_with("image/")) {
    return BlockType::image;
  }
  if (mime.starts_with("audio/")) {
    return BlockType::audio;
  }
  if (mime.starts_with("video/")) {
    return BlockType::video;
  }
  if (mime == "application/pdf" || mime.starts_with("text/")) {
    return BlockType::document;
  }
  return BlockType::file;
}

// A media type for a block given by URL without one (`fileData` needs it): from the
// URL's extension, else the kind's wildcard ("image/*"), so that it reads back as
// the same kind of block.
std::string guess_mime_type(const Block& block) {
  static constexpr std::pair<std::string_view, std::string_view> k_types[] = {
      {".png", "image/png"},   {".jpg", "image/jpeg"},      {".jpeg", "image/jpeg"},
      {".gif", "image/gif"},   {".webp", "image/webp"},     {".pdf", "application/pdf"},
      {".mp3", "audio/mpeg"},  {".wav", "audio/wav"},       {".mp4", "video/mp4"},
      {".txt", "text/plain"},
  };
  std::string_view url = block.source.data;
  url = url.substr(0, url.find_first_of("?#"));
  for (const auto& [extension, type] : k_types) {
    if (url.ends_with(extension)) {
      return std::string(type);
    }
  }
  switch (block.type) {
    case BlockType::image:
      return "image/*";
    case BlockType::audio:
      return "audio/*";
    case BlockType::video:
      return "video/*";
    case BlockType::document:
      return "application/pdf";
    default:
      return "";
  }
}

// A functionResponse's `response` as tool result content: `{"output": TEXT}` (what
// Gemini CLI and the SDKs send for a string) is TEXT, `{"error": TEXT}` TEXT with
// the error flag, anything else its JSON text. An output that is itself a JSON
// object's text stays wrapped, so that writing it back cannot mistake it.
void decode_response(const JsonValue* response, Block& block) {
  block.result.form = Content::Form::string;
  if (response == nullptr || response->IsNull()) {
    block.result.form = Content::Form::absent;
    return;
  }
  if (response->IsObject() && response->MemberCount() == 1) {
    const auto& only = *response->MemberBegin();
    std::string_view key = view_of(only.name);
    if ((key == "output" || key == "error") && only.value.IsString()) {
      std::string text(view_of(only.value));
      JsonDoc doc;
      if (!parse_object(text, doc)) {
        block.result.text = std::move(text);
        if (key == "error") {
          block.is_error = true;
        }
        return;
      }
    }
  }
  block.result.text = to_json(*response);
}

// The tool result content a functionResponse's `response` decodes to, as text: to
// tell whether a stage changed it.
std::string response_text(const JsonValue* response) {
  Block block;
  decode_response(response, block);
  return block.result.text;
}

}  // namespace

void decode_gemini_part(const JsonValue& part, const std::string& path,
                        const std::shared_ptr<const Source>& owner, Block& block) {
  if (!part.IsObject()) {
    wrong_type(path, "a part (an object)", part);
  }
  block.json = &part;
  block.json_owner = owner;
  if (auto signature = string_of(part, k_signature)) {
    block.signature = std::string(*signature);
  }
  bool thought = optional_bool(part, "thought", path).value_or(false);
  if (const JsonValue* text = find_member(part, "text"); text != nullptr && text->IsString()) {
    block.type = thought ? BlockType::thinking : BlockType::text;
    block.type_name = thought ? "thinking" : "text";
    block.text = std::string(view_of(*text));
    return;
  }
  if (const JsonValue* call = member(part, k_function_call)) {
    std::string call_path = member_path(path, spelling(&part, k_function_call));
    if (!call->IsObject()) {
      wrong_type(call_path, "a function call (an object)", *call);
    }
    block.type = BlockType::tool_use;
    block.type_name = "tool_use";
    block.id = std::string(optional_string(*call, "id", call_path).value_or(""));
    block.name = std::string(optional_string(*call, "name", call_path).value_or(""));
    if (const JsonValue* args = find_member(*call, "args"); args != nullptr && !args->IsNull()) {
      block.input_value = args;
    }
    return;
  }
  if (const JsonValue* response = member(part, k_function_response)) {
    std::string response_path = member_path(path, spelling(&part, k_function_response));
    if (!response->IsObject()) {
      wrong_type(response_path, "a function response (an object)", *response);
    }
    block.type = BlockType::tool_result;
    block.type_name = "tool_result";
    block.id = std::string(optional_string(*response, "id", response_path).value_or(""));
    block.name = std::string(optional_string(*response, "name", response_path).value_or(""));
    decode_response(find_member(*response, "response"), block);
    return;
  }
  const JsonValue* inline_data = member(part, k_inline_data);
  const JsonValue* file_data = member(part, k_file_data);
  if ((inline_data != nullptr && inline_data->IsObject()) ||
      (file_data != nullptr && file_data->IsObject())) {
    const JsonValue& data = inline_data != nullptr ? *inline_data : *file_data;
    block.source.media_type = std::string(string_of(data, k_mime_type).value_or(""));
    block.type = media_type_of(block.source.media_type);
    block.type_name = std::string(block_type_name(block.type));
    if (inline_data != nullptr) {
      block.source.type = MediaSource::Type::base64;
      block.source.data = std::string(string_member(data, "data").value_or(""));
    } else {
      block.source.type = MediaSource::Type::url;
      block.source.data = std::string(string_of(data, k_file_uri).value_or(""));
    }
    return;
  }
  block.type = thought ? BlockType::thinking : BlockType::unknown;
  block.type_name = thought ? "thinking" : "part";
  for (const auto& m : part.GetObject()) {
    std::string_view key = view_of(m.name);
    if (key != "thought" && key != k_signature.camel && key != k_signature.snake) {
      block.type = BlockType::unknown;
      block.type_name = std::string(key);  // executableCode, codeExecutionResult, ...
      break;
    }
  }
}

void decode_gemini_parts(const JsonValue& parts, const std::string& path,
                         const std::shared_ptr<const Source>& owner, Content& content) {
  if (!parts.IsArray()) {
    wrong_type(path, "an array of parts", parts);
  }
  content.form = Content::Form::blocks;
  for (rapidjson::SizeType i = 0; i < parts.Size(); ++i) {
    Block block;
    decode_gemini_part(parts[i], fmt::format("{}/{}", path, i), owner, block);
    content.blocks.push_back(std::move(block));
  }
}

void CallLinker::link(Content& content) {
  if (!content.is_blocks()) {
    return;
  }
  for (Block& block : content.blocks) {
    if (block.type == BlockType::tool_use && block.id.empty()) {
      block.id = fmt::format("{}{}", k_made_up_prefix, ++m_next);
      if (m_open.size() == k_open_calls) {
        m_open.erase(m_open.begin());  // a response answers a recent call: bounded work
      }
      m_open.emplace_back(block.name, block.id);
    } else if (block.type == BlockType::tool_result && block.id.empty()) {
      auto open = std::find_if(m_open.begin(), m_open.end(),
                               [&](const auto& call) { return call.first == block.name; });
      if (open != m_open.end()) {
        block.id = open->second;
        m_open.erase(open);
      }
    }
  }
}

bool is_made_up_call_id(std::string_view id) { return id.starts_with(k_made_up_prefix); }

// --- Writing parts ---

bool GeminiPartWriter::holds(const Block& block) const {
  if (!block.cache_control.empty()) {
    m_drop("cache_control markers");
  }
  switch (block.type) {
    case BlockType::text:
    case BlockType::thinking:
    case BlockType::tool_use:
    case BlockType::tool_result:
      return true;
    case BlockType::image:
    case BlockType::audio:
    case BlockType::video:
    case BlockType::document:
    case BlockType::file:
      if (m_own && block.json != nullptr) {
        return true;
      }
      if (block.source.type == MediaSource::Type::base64 ||
          block.source.type == MediaSource::Type::url ||
          block.source.type == MediaSource::Type::file_id) {
        return true;
      }
      m_drop(fmt::format("{} blocks with {} sources", block_type_name(block.type),
                         block.source.type == MediaSource::Type::text ? "text" : "no"));
      return false;
    case BlockType::unknown:
      if (m_own && block.json != nullptr) {
        return true;
      }
      [[fallthrough]];
    default:
      m_drop(fmt::format("{} blocks", block.type_name.empty()
                                          ? block_type_name(block.type)
                                          : std::string_view(block.type_name)));
      return false;
  }
}

void GeminiPartWriter::write_response(JsonWriter& w, const Block& result) {
  std::string text;
  if (result.result.is_string()) {
    text = result.result.text;
  } else if (result.result.is_blocks()) {
    for (const Block& block : result.result.blocks) {
      if (block.type == BlockType::text) {
        text += block.text;
      }
    }
  }
  JsonDoc doc;
  if (!result.is_error.value_or(false) && parse_object(text, doc)) {
    write_raw(w, text);
    return;
  }
  w.StartObject();
  w.Key(result.is_error.value_or(false) ? "error" : "output");
  write_string(w, text);
  w.EndObject();
}

void GeminiPartWriter::write(JsonWriter& w, const Block& block, std::string_view tool_name) const {
  const JsonValue* original = m_own ? block.json : nullptr;
  if (original != nullptr && !original->IsObject()) {
    original = nullptr;
  }
  ObjectWriter part(w, original);
  auto signature = [&] {
    std::string_view key = spelling(original, k_signature);
    if (block.signature) {
      std::string value = *block.signature;
      part.set(key, [value](JsonWriter& sw) { write_string(sw, value); });
    } else if (original != nullptr) {
      part.remove(k_signature.camel).remove(k_signature.snake);
    }
  };
  switch (block.type) {
    case BlockType::text:
    case BlockType::thinking: {
      std::string text = block.text;
      part.set("text", [text](JsonWriter& tw) { write_string(tw, text); });
      if (block.type == BlockType::thinking) {
        part.set_bool("thought", true);
      } else if (original != nullptr) {
        part.remove("thought");
      }
      signature();
      break;
    }
    case BlockType::tool_use: {
      const JsonValue* call = original != nullptr ? member(*original, k_function_call) : nullptr;
      part.set(spelling(original, k_function_call), [&](JsonWriter& cw) {
        ObjectWriter object(cw, call != nullptr && call->IsObject() ? call : nullptr);
        if (!block.id.empty() && !is_made_up_call_id(block.id)) {
          object.set_string("id", block.id);
        }
        object.set_string("name", block.name);
        if (!(call != nullptr && block.input.empty())) {
          object.set("args", [&](JsonWriter& aw) {
            if (!write_tool_input(aw, block)) {
              aw.StartObject();
              aw.EndObject();
            }
          });
        }
        object.write();
      });
      signature();
      break;
    }
    case BlockType::tool_result: {
      const JsonValue* response =
          original != nullptr ? member(*original, k_function_response) : nullptr;
      part.set(spelling(original, k_function_response), [&](JsonWriter& rw) {
        const bool patch = response != nullptr && response->IsObject();
        ObjectWriter object(rw, patch ? response : nullptr);
        if (!block.id.empty() && !is_made_up_call_id(block.id)) {
          object.set_string("id", block.id);
        }
        object.set_string("name", tool_name);
        const JsonValue* was = patch ? find_member(*response, "response") : nullptr;
        bool same = was != nullptr && block.result.is_string() &&
                    response_text(was) == block.result.text;
        if (!same) {
          object.set("response", [&](JsonWriter& vw) { write_response(vw, block); });
        }
        object.write();
      });
      if (original == nullptr && block.result.is_blocks()) {
        for (const Block& inner : block.result.blocks) {
          if (inner.type != BlockType::text) {
            m_drop(fmt::format("{} blocks in tool results", block_type_name(inner.type)));
          }
        }
      }
      signature();
      break;
    }
    default:
      if (original != nullptr) {
        original->Accept(w);
        return;
      }
      if (block.source.type == MediaSource::Type::base64) {
        part.set("inlineData", [&](JsonWriter& dw) {
          dw.StartObject();
          dw.Key("mimeType");
          write_string(dw, block.source.media_type);
          dw.Key("data");
          write_string(dw, block.source.data);
          dw.EndObject();
        });
      } else {
        part.set("fileData", [&](JsonWriter& dw) {
          dw.StartObject();
          std::string mime = block.source.media_type.empty() ? guess_mime_type(block)
                                                             : block.source.media_type;
          if (!mime.empty()) {
            dw.Key("mimeType");
            write_string(dw, mime);
          }
          dw.Key("fileUri");
          write_string(dw, block.source.data);
          dw.EndObject();
        });
      }
      signature();
      break;
  }
  part.write();
}

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
      out.push_back(std::move(message));
    }
    if (const JsonValue* contents = find_member(root, "contents"); contents != nullptr) {
      if (!contents->IsArray()) {
        wrong_type("/contents", "an array of Content objects", *contents);
      }
      for (rapidjson::SizeType i = 0; i < contents->Size(); ++i) {
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
      message.envelope.model = model;
      message.envelope.message_id = id;
      message.envelope.stop_reason = std::string(string_member(candidate, "finishReason").value_or(""));
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
  void encode(const Message& message, std::vector<std::string>& values) override {
    if (message.kind != Kind::turn || message.role == Role::none) {
      if (same_format(message)) {
        values.push_back(to_json(*message.json));
      } else {
        drop(record_noun(message), message);
      }
      return;
    }
    std::string_view role;
    switch (message.role) {
      case Role::system:
      case Role::developer:
        values.push_back(system_instruction(message));
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
    rapidjson::StringBuffer buffer;
    JsonWriter writer(buffer);
    const bool same = same_format(message) && message.json->IsObject();
    ObjectWriter object(writer, same ? message.json : nullptr);
    object.set_string("role", role);
    object.set("parts", [&](JsonWriter& w) { write_parts(w, message); });
    object.write();
    values.push_back(std::string(buffer.GetString(), buffer.GetSize()));
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
    std::vector<std::string> values;
    auto is_system = [](const Message& m) {
      return m.role == Role::system || m.role == Role::developer;
    };
    ObjectWriter object(writer, &root);
    auto system = std::find_if(held.begin(), held.end(), is_system);
    if (system == held.end()) {
      object.remove("systemInstruction");
    } else {
      values_of(*system, values);
      std::string value = values.empty() ? std::string("{}") : values.front();
      JsonDoc doc;
      const JsonValue* instruction = nullptr;
      if (parse_object(value, doc)) {
        instruction = find_member(doc, "systemInstruction");
      }
      std::string text = instruction != nullptr ? to_json(*instruction) : value;
      object.set_raw("systemInstruction", text);
    }
    std::string contents = "[";
    for (const Message& message : held) {
      if (is_system(message)) {
        continue;
      }
      values_of(message, values);
      for (const std::string& value : values) {
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

  void write_parts(JsonWriter& w, const Message& message) {
    const bool own = message.origin == Format::gemini || message.origin == Format::gemini_cli;
    GeminiPartWriter parts(own, [&](std::string_view what) { drop(what, message); });
    w.StartArray();
    if (message.content.form == Content::Form::string) {
      w.StartObject();
      w.Key("text");
      write_string(w, message.content.text);
      w.EndObject();
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
      }
    }
    w.EndArray();
  }

  ToolNames m_names;
};

}  // namespace

void gemini_unmodelled(const Message& message,
                       const std::function<void(std::string_view)>& unheld) {
  if (message.content.is_blocks()) {
    for (const Block& block : message.content.blocks) {
      if (block.signature && block.type != BlockType::thinking) {
        unheld("thought signatures");
      }
    }
  }
  if (message.json != nullptr && message.json->IsObject() &&
      (!message.container || message.container->array_key != "candidates")) {
    for (const auto& m : message.json->GetObject()) {
      std::string_view key = view_of(m.name);
      if (key != "role" && key != "parts" && message.kind == Kind::turn) {
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
