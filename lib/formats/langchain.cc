#include "formats/langchain.h"

#include <fmt/format.h>

#include <algorithm>

#include "formats/anthropic_blocks.h"
#include "formats/fields.h"
#include "formats/json_out.h"
#include "formats/message_metadata.h"
#include "formats/object_writer.h"
#include "formats/openai.h"
#include "formats/tool_turns.h"

namespace convo {

namespace {

// --- Types ---

// LangChain's message type names, every spelling convo reads, and the base type
// each stands for ("generic" is LangChain.js's name for a ChatMessage).
struct TypeName {
  std::string_view name;
  std::string_view base;
};

constexpr TypeName k_types[] = {
    {"human", "human"},
    {"ai", "ai"},
    {"system", "system"},
    {"chat", "chat"},
    {"generic", "chat"},
    {"tool", "tool"},
    {"function", "function"},
    {"remove", "remove"},
    {"HumanMessage", "human"},
    {"AIMessage", "ai"},
    {"SystemMessage", "system"},
    {"ChatMessage", "chat"},
    {"ToolMessage", "tool"},
    {"FunctionMessage", "function"},
    {"RemoveMessage", "remove"},
    {"HumanMessageChunk", "human"},
    {"AIMessageChunk", "ai"},
    {"SystemMessageChunk", "system"},
    {"ChatMessageChunk", "chat"},
    {"ToolMessageChunk", "tool"},
    {"FunctionMessageChunk", "function"},
};

std::optional<std::string_view> base_type(std::string_view name) {
  for (const TypeName& type : k_types) {
    if (type.name == name) {
      return type.base;
    }
  }
  return std::nullopt;
}

// The base type of a plain dict's `role` (LangChain's convert_to_messages reads
// these as well as OpenAI's names).
std::string_view role_base(std::string_view role) {
  if (role == "human" || role == "user") {
    return "human";
  }
  if (role == "ai" || role == "assistant") {
    return "ai";
  }
  if (role == "system" || role == "developer") {
    return "system";
  }
  if (role == "tool" || role == "function" || role == "remove") {
    return role;
  }
  return "chat";
}

// The type a message of `role` is written as.
std::string_view type_for(const Message& m) {
  if (m.kind == Kind::remove) {
    return "remove";
  }
  switch (m.role) {
    case Role::user:
      return "human";
    case Role::assistant:
      return "ai";
    case Role::system:
    case Role::developer:
      return "system";
    case Role::tool:
      return "tool";
    case Role::function:
      return "function";
    case Role::custom:
      return "chat";
    case Role::none:
      break;
  }
  return "";
}

// How a record holds its message.
enum class Shape : std::uint8_t {
  stored,       // {"type": "human", "data": {...}}
  constructor,  // {"lc": 1, "type": "constructor", "id": [...], "kwargs": {...}}
  plain,        // the message dict itself
};

struct Located {
  Shape shape = Shape::plain;
  const JsonValue* inner = nullptr;  // the object with content, id, ...
  std::string inner_path;
  std::string type;  // as written: "human", "AIMessageChunk", "generic", or a role
  std::string_view base;
  bool role_keyed = false;  // a plain dict that names its kind with `role`
};

bool is_constructor(const JsonValue& record) {
  auto type = string_member(record, "type");
  return type && *type == "constructor" && find_member(record, "lc") != nullptr;
}

// Where the message of `record` (at `path`) is, and what type it has; nullopt when
// it is none of LangChain's shapes.
std::optional<Located> locate(const JsonValue& record, const std::string& path) {
  Located at;
  if (is_constructor(record)) {
    const JsonValue* id = find_member(record, "id");
    if (id == nullptr || !id->IsArray() || id->Empty() || !(*id)[id->Size() - 1].IsString()) {
      return std::nullopt;
    }
    at.type = std::string(view_of((*id)[id->Size() - 1]));
    auto base = base_type(at.type);
    if (!base) {
      return std::nullopt;
    }
    at.base = *base;
    at.shape = Shape::constructor;
    at.inner = optional_object(record, "kwargs", path);
    at.inner_path = member_path(path, "kwargs");
    if (at.inner == nullptr) {
      throw DecodeError(path, "constructor record has no \"kwargs\"");
    }
    return at;
  }
  auto type = string_member(record, "type");
  const JsonValue* data = find_member(record, "data");
  if (type && data != nullptr && find_member(record, "content") == nullptr) {
    auto base = base_type(*type);
    if (!base) {
      return std::nullopt;
    }
    if (!data->IsObject()) {
      wrong_type(member_path(path, "data"), "an object", *data);
    }
    at.shape = Shape::stored;
    at.inner = data;
    at.inner_path = member_path(path, "data");
    at.type = std::string(*type);
    at.base = *base;
    return at;
  }
  at.shape = Shape::plain;
  at.inner = &record;
  at.inner_path = path;
  if (type) {
    if (auto base = base_type(*type)) {
      at.type = std::string(*type);
      at.base = *base;
      return at;
    }
  }
  if (auto role = string_member(record, "role")) {
    at.type = std::string(*role);
    at.base = role_base(*role);
    at.role_keyed = true;
    return at;
  }
  return std::nullopt;
}

// --- Detection ---

bool has_envelope(const JsonValue& record) {
  return find_member(record, "uuid") != nullptr || find_member(record, "sessionId") != nullptr ||
         find_member(record, "parentUuid") != nullptr || find_member(record, "message") != nullptr;
}

int sniff_record(const JsonValue& record) {
  if (!record.IsObject()) {
    return 0;
  }
  if (is_constructor(record)) {
    const JsonValue* id = find_member(record, "id");
    bool message = id != nullptr && id->IsArray() && !id->Empty() &&
                   (*id)[id->Size() - 1].IsString() &&
                   base_type(view_of((*id)[id->Size() - 1]));
    return message ? 10 : 0;
  }
  auto type = string_member(record, "type");
  if (type && find_member(record, "data") != nullptr) {
    const JsonValue* data = find_member(record, "data");
    return base_type(*type) && data->IsObject() && find_member(*data, "content") != nullptr ? 10 : 0;
  }
  if (has_envelope(record)) {
    return -1;
  }
  if (type && base_type(*type) && find_member(record, "content") != nullptr) {
    if (find_member(record, "role") != nullptr && *type != "chat" && *type != "generic") {
      return 0;
    }
    int score = 5;
    if (find_member(record, "additional_kwargs") != nullptr ||
        find_member(record, "response_metadata") != nullptr) {
      score += 5;
    }
    return score;
  }
  if (auto role = string_member(record, "role")) {
    // A dict keyed by role is an OpenAI or Synaptic message unless it calls the
    // model "ai", which only LangChain does ("human" Synaptic shares).
    if (*role == "ai") {
      return 5;
    }
    return *role == "human" ? 1 : -1;
  }
  return 0;
}

// --- Decoding ---

void decode_source_fields(const JsonValue& block, const std::string& path, MediaSource& out) {
  // LangChain 0.3 standard blocks: source_type url|base64|id|text; 1.x: url, base64
  // (Python) or data (JS), file_id, mime_type (Python) or mimeType (JS).
  auto mime = optional_string(block, "mime_type", path);
  if (!mime) {
    mime = optional_string(block, "mimeType", path);
  }
  if (mime) {
    out.media_type = std::string(*mime);
  }
  std::string_view source_type = optional_string(block, "source_type", path).value_or("");
  if (source_type == "text") {
    out.type = MediaSource::Type::text;
    out.data = std::string(optional_string(block, "text", path).value_or(""));
  } else if (source_type == "id" || find_member(block, "file_id") != nullptr ||
             find_member(block, "fileId") != nullptr) {
    out.type = MediaSource::Type::file_id;
    auto id = optional_string(block, source_type == "id" ? "id" : "file_id", path);
    if (!id) {
      id = optional_string(block, "fileId", path);
    }
    out.data = std::string(id.value_or(""));
  } else if (auto url = optional_string(block, "url", path)) {
    MediaSource parsed = MediaSource::from_url(*url);
    out.type = parsed.type;
    out.data = std::move(parsed.data);
    if (out.media_type.empty()) {
      out.media_type = std::move(parsed.media_type);
    }
  } else if (auto data = optional_string(block, source_type == "base64" ? "data" : "base64", path)) {
    out.type = MediaSource::Type::base64;
    out.data = std::string(*data);
  } else if (auto js_data = optional_string(block, "data", path)) {
    out.type = MediaSource::Type::base64;
    out.data = std::string(*js_data);
  }
}

BlockType media_type_of(std::string_view type) {
  if (type == "image") {
    return BlockType::image;
  }
  if (type == "audio") {
    return BlockType::audio;
  }
  if (type == "video") {
    return BlockType::video;
  }
  return BlockType::file;
}

void decode_block(const JsonValue& value, const std::string& path,
                  const std::shared_ptr<const Source>& owner, Block& block) {
  auto type = begin_block(value, path, owner, block, "a content block (a string or an object)");
  if (!type) {
    return;
  }
  const JsonValue* source = find_member(value, "source");
  if (*type == "text") {
    block.type = BlockType::text;
    block.text = std::string(required_string(value, "text", path, "text block"));
  } else if (*type == "thinking") {
    block.type = BlockType::thinking;
    block.text = std::string(optional_string(value, "thinking", path).value_or(""));
    if (auto signature = optional_string(value, "signature", path)) {
      block.signature = std::string(*signature);
    }
  } else if (*type == "reasoning" && find_member(value, "reasoning") != nullptr) {
    block.type = BlockType::thinking;
    block.type_name = "thinking";  // other formats' writers go by this name
    block.text = std::string(optional_string(value, "reasoning", path).value_or(""));
  } else if (*type == "redacted_thinking") {
    block.type = BlockType::redacted_thinking;
    block.text = std::string(optional_string(value, "data", path).value_or(""));
  } else if (*type == "tool_use" || *type == "tool_call") {
    block.type = BlockType::tool_use;
    block.type_name = "tool_use";  // other formats' writers go by this name
    block.id = std::string(optional_string(value, "id", path).value_or(""));
    block.name = std::string(optional_string(value, "name", path).value_or(""));
    block.input_value = find_member(value, *type == "tool_use" ? "input" : "args");
  } else if (*type == "tool_result" || *type == "document" ||
             ((*type == "image") && source != nullptr && source->IsObject())) {
    // Anthropic blocks, as ChatAnthropic keeps them.
    if (*type == "tool_result") {
      block.type = BlockType::tool_result;
      block.id = std::string(optional_string(value, "tool_use_id", path).value_or(""));
      block.is_error = optional_bool(value, "is_error", path);
      decode_anthropic_content(find_member(value, "content"), member_path(path, "content"), owner,
                               block.result);
    } else {
      block.type = *type == "image" ? BlockType::image : BlockType::document;
      decode_anthropic_source(value, path, block.source);
    }
  } else if (*type == "image_url") {
    block.type = BlockType::image;
    const JsonValue* image = find_member(value, "image_url");
    if (image != nullptr && image->IsString()) {
      block.source = MediaSource::from_url(view_of(*image));
    } else if (image != nullptr && image->IsObject()) {
      block.source = MediaSource::from_url(
          optional_string(*image, "url", member_path(path, "image_url")).value_or(""));
    }
  } else if (*type == "input_audio") {
    block.type = BlockType::audio;
    if (const JsonValue* audio = optional_object(value, "input_audio", path)) {
      std::string audio_path = member_path(path, "input_audio");
      block.source.type = MediaSource::Type::base64;
      block.source.data = std::string(optional_string(*audio, "data", audio_path).value_or(""));
      block.source.media_type =
          "audio/" + std::string(optional_string(*audio, "format", audio_path).value_or("wav"));
    }
  } else if (*type == "image" || *type == "audio" || *type == "video" || *type == "file") {
    block.type = media_type_of(*type);
    decode_source_fields(value, path, block.source);
  } else {
    block.type = BlockType::unknown;
  }
}

void decode_content(const JsonValue* value, const std::string& path,
                    const std::shared_ptr<const Source>& owner, Content& out) {
  decode_content_list(value, path, owner, out, decode_block,
                      "a string or a list of content blocks");
}

bool has_tool_use(const Content& content, std::string_view id) {
  if (id.empty() || !content.is_blocks()) {
    return false;
  }
  return std::any_of(content.blocks.begin(), content.blocks.end(), [&](const Block& b) {
    return b.type == BlockType::tool_use && b.id == id;
  });
}

void decode_tool_calls(const JsonValue& inner, const std::string& path,
                       const std::shared_ptr<const Source>& owner, Content& content) {
  const JsonValue* calls = find_member(inner, "tool_calls");
  if (calls == nullptr || calls->IsNull() || (calls->IsArray() && calls->Empty())) {
    // Old records keep OpenAI's raw tool calls in additional_kwargs; LangChain's
    // AIMessage reads them from there when tool_calls is empty.
    if (const JsonValue* kwargs = find_member(inner, "additional_kwargs");
        kwargs != nullptr && kwargs->IsObject()) {
      decode_openai_tool_calls(*kwargs, member_path(path, "additional_kwargs"), owner, content);
    }
    return;
  }
  for_each_object(calls, member_path(path, "tool_calls"), "a list of tool calls",
                  "a tool call (an object)", [&](const JsonValue& call, const std::string& call_path) {
    Block block;
    block.type = BlockType::tool_use;
    block.type_name = "tool_use";
    block.json = &call;
    block.json_owner = owner;
    block.id = std::string(optional_string(call, "id", call_path).value_or(""));
    block.name = std::string(optional_string(call, "name", call_path).value_or(""));
    const JsonValue* args = find_member(call, "args");
    if (args != nullptr && args->IsString()) {
      block.input = std::string(view_of(*args));
    } else if (args != nullptr && !args->IsNull()) {
      block.input_value = args;
    }
    if (has_tool_use(content, block.id)) {
      return;  // ChatAnthropic keeps the call in the content as well
    }
    content_to_blocks(content);
    content.blocks.push_back(std::move(block));
  });
}

void decode_invalid_tool_calls(const JsonValue& inner, const std::string& path,
                               const std::shared_ptr<const Source>& owner, Content& content) {
  for_each_object(find_member(inner, "invalid_tool_calls"), member_path(path, "invalid_tool_calls"),
                  "a list of invalid tool calls", "an invalid tool call (an object)",
                  [&](const JsonValue& call, const std::string& call_path) {
    Block block;
    block.type = BlockType::unknown;
    block.type_name = std::string(k_invalid_tool_call);
    block.json = &call;
    block.json_owner = owner;
    block.id = std::string(optional_string(call, "id", call_path).value_or(""));
    block.name = std::string(optional_string(call, "name", call_path).value_or(""));
    block.input = std::string(optional_string(call, "args", call_path).value_or(""));
    block.text = std::string(optional_string(call, "error", call_path).value_or(""));
    content_to_blocks(content);
    content.blocks.push_back(std::move(block));
  });
}

void decode_message(const JsonValue& record, const std::string& path, Message& message) {
  auto at = locate(record, path);
  if (!at) {
    // Not a LangChain message: kept as a record of unknown kind.
    message.kind = Kind::unknown;
    message.role = Role::none;
    message.record_type = std::string(string_member(record, "type").value_or(""));
    message.content.form = Content::Form::absent;
    return;
  }
  const JsonValue& d = *at->inner;
  const std::string& p = at->inner_path;
  message.record_type = at->type;
  message.id = std::string(optional_string(d, "id", p).value_or(""));
  std::string name(optional_string(d, "name", p).value_or(""));
  const JsonValue* kwargs = optional_object(d, "additional_kwargs", p);
  decode_response_metadata(d, p, message);

  const std::string_view base = at->base;
  if (base == "remove") {
    message.kind = Kind::remove;
    message.role = Role::none;
    message.content.form = Content::Form::absent;
    return;
  }
  decode_content(find_member(d, "content"), member_path(p, "content"), message.source,
                 message.content);
  if (base == "human") {
    message.role = Role::user;
  } else if (base == "ai") {
    message.role = Role::assistant;
    message.envelope.message_id = message.id;
    decode_tool_calls(d, p, message.source, message.content);
    decode_invalid_tool_calls(d, p, message.source, message.content);
    decode_usage_metadata(d, p, k_langchain_usage, message.usage);
  } else if (base == "system") {
    message.role = Role::system;
    bool developer = at->role_keyed && at->type == "developer";
    if (kwargs != nullptr) {
      auto role = string_member(*kwargs, "__openai_role__");
      developer |= role && *role == "developer";
    }
    if (developer) {
      message.role = Role::developer;
    }
  } else if (base == "function") {
    message.role = Role::function;
  } else if (base == "chat") {
    message.role = Role::custom;
    message.custom_role = at->role_keyed
                              ? at->type
                              : std::string(optional_string(d, "role", p).value_or(""));
  } else if (base == "tool") {
    message.role = Role::tool;
    Content result = std::move(message.content);
    if (result.form == Content::Form::absent) {
      result.form = Content::Form::string;
    }
    std::string id(optional_string(d, "tool_call_id", p).value_or(""));
    std::optional<bool> is_error;
    if (auto status = optional_string(d, "status", p); status && *status == "error") {
      is_error = true;
    }
    Block block = Block::make_tool_result(std::move(id), std::move(result), is_error);
    block.name = std::move(name);  // a ToolMessage's name is the tool's
    name.clear();
    block.json = &d;
    block.json_owner = message.source;
    message.content = Content{};
    message.content.form = Content::Form::blocks;
    message.content.blocks.push_back(std::move(block));
  }
  message.name = std::move(name);
}

class LangChainDecoder final : public Decoder {
 public:
  void decode(Record&& record, std::vector<Message>& out) override {
    const JsonValue& root = record.source->doc;
    if (root.IsArray()) {
      Location where = record.where;
      auto container = make_container(Format::langchain, std::move(record), "");
      const JsonValue& array = container->source->doc;
      for (rapidjson::SizeType i = 0; i < array.Size(); ++i) {
        std::string path = fmt::format("/{}", i);
        if (!array[i].IsObject()) {
          wrong_type(path, "a message (an object)", array[i]);
        }
        Message message = begin_contained(container, where, i, &array[i]);
        decode_message(array[i], path, message);
        out.push_back(std::move(message));
      }
      container->size = array.Size();
      return;
    }
    if (!root.IsObject()) {
      wrong_type("", "a JSON object", root);
    }
    Message message = begin_message(Format::langchain, record, &root);
    decode_message(root, "", message);
    message.raw = std::move(record.raw);
    out.push_back(std::move(message));
  }
};

// --- Encoding ---

// The original record of a message of this format, taken apart.
struct Original {
  const JsonValue* outer = nullptr;
  std::optional<Located> at;
  const JsonValue* inner() const { return at ? at->inner : nullptr; }
  const JsonValue* member(std::string_view key) const {
    return inner() != nullptr ? find_member(*inner(), key) : nullptr;
  }
};

void write_media(JsonWriter& w, std::string_view type, const MediaSource& source) {
  w.StartObject();
  w.Key("type");
  write_string(w, type);
  switch (source.type) {
    case MediaSource::Type::base64:
      w.Key("source_type");
      w.String("base64");
      w.Key("data");
      write_string(w, source.data);
      break;
    case MediaSource::Type::url:
      w.Key("source_type");
      w.String("url");
      w.Key("url");
      write_string(w, source.data);
      break;
    case MediaSource::Type::file_id:
      w.Key("source_type");
      w.String("id");
      w.Key("id");
      write_string(w, source.data);
      break;
    case MediaSource::Type::text:
      w.Key("source_type");
      w.String("text");
      w.Key("text");
      write_string(w, source.data);
      break;
    case MediaSource::Type::none:
      break;
  }
  if (!source.media_type.empty()) {
    w.Key("mime_type");
    write_string(w, source.media_type);
  } else if (source.type == MediaSource::Type::text) {
    w.Key("mime_type");
    w.String("text/plain");
  }
  w.EndObject();
}

class LangChainEncoder final : public EncoderBase {
 public:
  explicit LangChainEncoder(LossReport& loss) : EncoderBase(Format::langchain, loss) {}

 protected:
  void encode(const Message& message, std::vector<std::string>& values) override {
    Original original;
    if (same_format(message)) {
      original.outer = message.json;
      original.at = locate(*message.json, "");
    }
    if (message.kind == Kind::remove) {
      values.push_back(record(original, "remove", [&](ObjectWriter& d, bool full) {
        set_common(d, message, full);
        if (full) {
          d.set_string("content", "");
        }
      }));
      return;
    }
    if (message.kind != Kind::turn || message.role == Role::none) {
      if (original.outer != nullptr) {
        values.push_back(to_json(*original.outer));
      } else {
        drop(record_noun(message), message);
      }
      return;
    }
    m_tool_names.note(message);
    // Tool results become tool messages, one per result, ahead of the rest of the
    // message (LangChain, like OpenAI, has a message per tool result).
    auto rest = split_off_results(message, [&](const Block& result) {
      values.push_back(tool_message(message, result, original));
    });
    if (rest) {
      values.push_back(plain_message(message, original, *rest));
    }
  }

 private:
  using Body = std::function<void(ObjectWriter& data, bool full)>;

  // Writes a record of `type` whose message fields `body` sets: in the shape of
  // the original when there is one, else the Python stored shape with every field.
  std::string record(const Original& original, std::string_view type, const Body& body) {
    rapidjson::StringBuffer buffer;
    JsonWriter writer(buffer);
    std::string type_text(type);
    if (original.at && original.at->base == type) {
      type_text = original.at->type;  // keep "AIMessageChunk", "generic", ...
    }
    if (original.at && original.at->shape == Shape::plain) {
      ObjectWriter data(writer, original.outer);
      if (original.at->role_keyed) {
        data.set_string("role", original.at->base == type ? std::string_view(original.at->type)
                                                          : std::string_view(type_text));
      } else {
        data.set_string("type", type_text);
      }
      body(data, false);
      data.write();
    } else if (original.at && original.at->shape == Shape::constructor) {
      ObjectWriter outer(writer, original.outer);
      outer.set("kwargs", [&](JsonWriter& w) {
        ObjectWriter data(w, original.inner());
        if (data.original_has("type")) {
          data.set_string("type", type);
        }
        body(data, false);
        data.write();
      });
      outer.write();
    } else {
      const bool full = !original.at;
      ObjectWriter outer(writer, original.outer);
      outer.set_string("type", type_text);
      outer.set("data", [&](JsonWriter& w) {
        ObjectWriter data(w, original.inner());
        if (full) {
          // Python's model_dump order: content first, then the shared fields.
          data.set_null("content");
          data.set_raw("additional_kwargs", "{}");
          data.set_raw("response_metadata", "{}");
        }
        if (full || data.original_has("type")) {
          data.set_string("type", type_text);
        }
        body(data, full);
        data.write();
      });
      outer.write();
    }
    return std::string(buffer.GetString(), buffer.GetSize());
  }

  // name and id: written when set, and as null in a full (Python) record.
  static void set_common(ObjectWriter& d, const Message& m, bool full) {
    set_optional(d, "name", m.role == Role::tool ? std::string_view() : std::string_view(m.name),
                 full);
    set_optional(d, "id", m.id, full);
  }

  static void set_optional(ObjectWriter& d, std::string_view key, std::string_view value,
                           bool full) {
    if (!value.empty()) {
      d.set_string(key, value);
    } else if (full || d.original_has(key)) {
      d.set_null(key);
    }
  }

  std::string tool_message(const Message& m, const Block& result, const Original& message_original) {
    // The original is the tool message itself only when this block came from it.
    Original original;
    if (message_original.at && message_original.at->base == "tool" &&
        result.json == message_original.inner()) {
      original = message_original;
    }
    DropFn drop_block = [&](std::string_view what) { drop(what, m); };
    return record(original, "tool", [&](ObjectWriter& d, bool full) {
      d.set("content", [&](JsonWriter& w) {
        write_content(w, m, result.result, {}, drop_block, /*string_ok=*/true,
                      original.member("content"));
      });
      set_optional(d, "name", m_tool_names.name_for(result), full);
      set_optional(d, "id", original.at ? std::string_view(m.id) : std::string_view(), full);
      d.set_string("tool_call_id", result.id);
      if (full) {
        d.set_null("artifact");
      }
      if (result.is_error.value_or(false)) {
        d.set_string("status", "error");
      } else if (full || d.original_has("status")) {
        d.set_string("status", "success");
      }
    });
  }

  std::string plain_message(const Message& m, const Original& original,
                            const std::vector<const Block*>& rest) {
    std::string_view type = type_for(m);
    DropFn drop_block = [&](std::string_view what) { drop(what, m); };
    const JsonValue* original_content = original.member("content");
    CallSplit split = split_calls(rest, k_invalid_tool_call, [&](const Block& call) {
      return is_element_of(original_content, call.json);  // kept in the content too, as it was
    });
    std::vector<const Block*>& calls = split.calls;
    std::vector<const Block*>& invalid = split.invalid;
    std::vector<const Block*>& parts = split.content;
    if (m.role != Role::assistant && (!calls.empty() || !invalid.empty())) {
      drop(fmt::format("tool calls in {} messages", type), m);
      calls.clear();
      invalid.clear();
    }
    return record(original, type, [&](ObjectWriter& d, bool full) {
      d.set("content", [&](JsonWriter& w) {
        write_content(w, m, m.content, parts, drop_block, /*string_ok=*/true, original_content);
      });
      if (m.role == Role::developer && full) {
        d.set_raw("additional_kwargs", R"({"__openai_role__":"developer"})");
      }
      if (full && has_response_metadata(m)) {
        d.set("response_metadata", [&m](JsonWriter& w) { write_response_metadata(w, m); });
      }
      set_common(d, m, full);
      if (m.role == Role::custom) {
        d.set_string("role", m.custom_role);
      }
      if (m.role == Role::assistant) {
        if (!calls.empty() || full || d.original_has("tool_calls")) {
          d.set("tool_calls", [&](JsonWriter& w) { write_calls(w, m, calls, false); });
        }
        bool broken = std::any_of(calls.begin(), calls.end(), [](const Block* b) {
          JsonDoc doc;
          return !b->input_value && !parse_object(b->input_json(), doc);
        });
        if (!invalid.empty() || broken || full || d.original_has("invalid_tool_calls")) {
          d.set("invalid_tool_calls", [&](JsonWriter& w) {
            w.StartArray();
            write_calls(w, m, calls, true);
            for (const Block* block : invalid) {
              write_invalid(w, m, *block);
            }
            w.EndArray();
          });
        }
        if (!m.usage.empty()) {
          const JsonValue* was = original.member("usage_metadata");
          d.set("usage_metadata", [&, was](JsonWriter& w) {
            write_usage_metadata(w, m.usage, was, k_langchain_usage);
          });
        } else if (full) {
          d.set_null("usage_metadata");
        }
      }
    });
  }

  // Writes the tool calls among `calls` whose input is a JSON object (`invalid`
  // false, as a complete list) or, with `invalid`, the others as invalid tool calls
  // (inside a list the caller opened).
  void write_calls(JsonWriter& w, const Message& m, const std::vector<const Block*>& calls,
                   bool invalid) {
    if (!invalid) {
      w.StartArray();
    }
    for (const Block* call : calls) {
      rapidjson::StringBuffer args_buffer;
      JsonWriter args_writer(args_buffer);
      bool ok = write_tool_input(args_writer, *call);
      if (ok == invalid) {
        continue;
      }
      const bool same = m.origin == Format::langchain && call->json != nullptr &&
                        call->json->IsObject() && find_member(*call->json, "args") != nullptr &&
                        !invalid;
      ObjectWriter object(w, same ? call->json : nullptr);
      object.set_string("name", call->name);
      if (ok) {
        std::string args(args_buffer.GetString(), args_buffer.GetSize());
        object.set_raw("args", args);
      } else {
        object.set_string("args", call->input_json());
      }
      object.set_string("id", call->id);
      if (invalid) {
        object.set_null("error");
      }
      object.set_string("type", invalid ? "invalid_tool_call" : "tool_call");
      object.write();
    }
    if (!invalid) {
      w.EndArray();
    }
  }

  // An invalid tool call: LangChain's own as it was, or one from Synaptic.
  void write_invalid(JsonWriter& w, const Message& m, const Block& block) {
    const bool same = m.origin == Format::langchain && block.json != nullptr;
    ObjectWriter object(w, same ? block.json : nullptr);
    if (!same) {
      auto optional = [&](std::string_view key, const std::string& value) {
        if (value.empty()) {
          object.set_null(key);
        } else {
          object.set_string(key, value);
        }
      };
      optional("name", block.name);
      optional("args", block.input);
      optional("id", block.id);
      optional("error", block.text);
      object.set_string("type", "invalid_tool_call");
    }
    object.write();
  }

  // Writes a content: `content` itself when it is a string or empty; otherwise the
  // blocks `parts` (or all of `content`'s blocks when `parts` is empty and
  // `content` is a tool result): a string when they are text that was a string or
  // is a single text, else a list.
  void write_content(JsonWriter& w, const Message& m, const Content& content,
                     const std::vector<const Block*>& parts, const DropFn& drop_block,
                     bool string_ok, const JsonValue* original) {
    if (!content.is_blocks()) {
      write_string(w, content.form == Content::Form::string ? std::string_view(content.text)
                                                            : std::string_view());
      return;
    }
    std::vector<const Block*> blocks = parts;
    if (blocks.empty() && &content != &m.content) {
      for (const Block& block : content.blocks) {
        blocks.push_back(&block);
      }
    }
    bool all_text = std::all_of(blocks.begin(), blocks.end(),
                                [](const Block* b) { return b->type == BlockType::text; });
    bool was_string = original != nullptr && original->IsString();
    bool fresh = original == nullptr && blocks.size() <= 1;
    if (string_ok && all_text && (was_string || fresh)) {
      std::string text;
      for (const Block* block : blocks) {
        text += block->text;
      }
      write_string(w, text);
      return;
    }
    w.StartArray();
    for (const Block* block : blocks) {
      if (writable(m, *block)) {
        write_block(w, m, *block);
      } else {
        drop_block(fmt::format("{} blocks", block->type_name.empty()
                                                ? block_type_name(block->type)
                                                : std::string_view(block->type_name)));
      }
    }
    w.EndArray();
  }

  // Whether `block` has a LangChain form.
  static bool writable(const Message& m, const Block& block) {
    if (m.origin == Format::langchain && block.json != nullptr) {
      return true;
    }
    switch (block.type) {
      case BlockType::text:
      case BlockType::thinking:
      case BlockType::redacted_thinking:
      case BlockType::tool_use:
        return true;
      case BlockType::image:
      case BlockType::audio:
      case BlockType::video:
      case BlockType::file:
      case BlockType::document:
        return block.source.type != MediaSource::Type::none;
      case BlockType::tool_result:
      case BlockType::server_tool_use:
      case BlockType::server_tool_result:
      case BlockType::unknown:
        break;
    }
    // LangChain keeps provider blocks in the content as they are (ChatAnthropic
    // stores server tool blocks so); other blocks have no JSON shape to write.
    return block.json != nullptr && block.json->IsObject() && uses_anthropic_blocks(m.origin);
  }

  void write_block(JsonWriter& w, const Message& m, const Block& block) {
    if (m.origin == Format::langchain && block.json != nullptr) {
      if (block.type == BlockType::text && block.json->IsString()) {
        write_string(w, block.text);
        return;
      }
      if (block.type == BlockType::text || block.type == BlockType::thinking) {
        ObjectWriter object(w, block.json);
        if (block.type == BlockType::text) {
          object.set_string("text", block.text);
        } else if (string_member(*block.json, "type").value_or("") == "reasoning") {
          object.set_string("reasoning", block.text);
        } else {
          object.set_string("thinking", block.text);
        }
        object.write();
        return;
      }
      block.json->Accept(w);
      return;
    }
    switch (block.type) {
      case BlockType::text: {
        w.StartObject();
        w.Key("type");
        w.String("text");
        w.Key("text");
        write_string(w, block.text);
        w.EndObject();
        return;
      }
      case BlockType::thinking:
        w.StartObject();
        w.Key("type");
        w.String("thinking");
        w.Key("thinking");
        write_string(w, block.text);
        if (block.signature) {
          w.Key("signature");
          write_string(w, *block.signature);
        }
        w.EndObject();
        return;
      case BlockType::redacted_thinking:
        w.StartObject();
        w.Key("type");
        w.String("redacted_thinking");
        w.Key("data");
        write_string(w, block.text);
        w.EndObject();
        return;
      case BlockType::tool_use:
        // Only reached for a call that sat in the original content.
        w.StartObject();
        w.Key("type");
        w.String("tool_use");
        w.Key("id");
        write_string(w, block.id);
        w.Key("name");
        write_string(w, block.name);
        w.Key("input");
        if (!write_tool_input(w, block)) {
          write_string(w, block.input_json());
        }
        w.EndObject();
        return;
      case BlockType::image:
        if (block.source.type == MediaSource::Type::url ||
            block.source.type == MediaSource::Type::base64) {
          // OpenAI's image part: what every LangChain chat model reads.
          w.StartObject();
          w.Key("type");
          w.String("image_url");
          w.Key("image_url");
          w.StartObject();
          w.Key("url");
          write_string(w, block.source.to_url());
          w.EndObject();
          w.EndObject();
          return;
        }
        [[fallthrough]];
      case BlockType::audio:
      case BlockType::video:
      case BlockType::file:
      case BlockType::document:
        write_media(w,
                    block.type == BlockType::document ? std::string_view("file")
                                                      : block_type_name(block.type),
                    block.source);
        return;
      case BlockType::tool_result:
      case BlockType::server_tool_use:
      case BlockType::server_tool_result:
      case BlockType::unknown:
        break;
    }
    block.json->Accept(w);
  }

  ToolNames m_tool_names;
};

}  // namespace

int sniff_langchain(const JsonValue& record) {
  if (record.IsArray()) {
    int score = 0;
    rapidjson::SizeType n = std::min<rapidjson::SizeType>(record.Size(), 32);
    for (rapidjson::SizeType i = 0; i < n; ++i) {
      int s = sniff_record(record[i]);
      if (s < 0) {
        return -1;
      }
      score += s;
    }
    return score;
  }
  return sniff_record(record);
}

std::unique_ptr<Decoder> make_langchain_decoder() { return std::make_unique<LangChainDecoder>(); }

std::unique_ptr<Encoder> make_langchain_encoder(LossReport& loss) {
  return std::make_unique<LangChainEncoder>(loss);
}

}  // namespace convo
