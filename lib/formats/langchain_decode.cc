#include "formats/langchain.h"

#include <fmt/format.h>

#include <algorithm>

#include "formats/anthropic_blocks.h"
#include "formats/fields.h"
#include "formats/json_out.h"
#include "formats/langchain_shapes.h"
#include "formats/mapping.h"
#include "formats/message_metadata.h"
#include "formats/object_writer.h"
#include "formats/openai.h"
#include "formats/tool_turns.h"

namespace convo {

using langchain::locate;
using langchain::Located;
using langchain::Shape;

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

bool is_constructor(const JsonValue& record) {
  auto type = string_member(record, "type");
  return type && *type == "constructor" && find_member(record, "lc") != nullptr;
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
          openai_audio_media_type(optional_string(*audio, "format", audio_path).value_or("wav"));
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
    message.meta.edit().message_id = message.id;
    decode_tool_calls(d, p, message.source, message.content);
    decode_invalid_tool_calls(d, p, message.source, message.content);
    Usage usage;
    decode_usage_metadata(d, p, k_langchain_usage, usage);
    message.usage = std::move(usage);
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

}  // namespace

namespace langchain {

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

}  // namespace langchain

int sniff_langchain(const JsonValue& record) {
  return record.IsArray() ? sniff_each(record, sniff_record) : sniff_record(record);
}

std::unique_ptr<Decoder> make_langchain_decoder() { return make_decoder<LangChainDecoder>(); }

}  // namespace convo
