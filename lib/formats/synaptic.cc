#include "formats/synaptic.h"

#include <fmt/format.h>

#include <algorithm>

#include "formats/fields.h"
#include "formats/json_out.h"
#include "formats/langchain.h"
#include "formats/mapping.h"
#include "formats/message_metadata.h"
#include "formats/object_writer.h"
#include "formats/tool_turns.h"

namespace convo {

namespace {

// --- Detection ---

int sniff_call(const JsonValue& call) {
  if (!call.IsObject()) {
    return -1;
  }
  if (find_member(call, "function") != nullptr) {
    return -1;  // OpenAI's shape
  }
  const JsonValue* arguments = find_member(call, "arguments");
  return arguments != nullptr && !arguments->IsString() ? 6 : 0;
}

int sniff_message(const JsonValue& record) {
  if (!record.IsObject()) {
    return 0;
  }
  auto role = string_member(record, "role");
  if (!role) {
    return 0;
  }
  if (*role == "remove") {
    return find_member(record, "id") != nullptr ? 5 : -1;
  }
  if (*role == "user" || *role == "developer" || *role == "function" || *role == "ai") {
    return -1;
  }
  if (*role != "system" && *role != "human" && *role != "assistant" && *role != "tool" &&
      *role != "chat") {
    return -1;
  }
  const JsonValue* content = find_member(record, "content");
  if (content == nullptr || !content->IsString()) {
    return -1;  // Synaptic's content is always a string
  }
  if (find_member(record, "type") != nullptr || find_member(record, "message") != nullptr) {
    return -1;
  }
  int score = 1;
  if (*role == "human") {
    score += 2;
  }
  if (*role == "chat") {
    score += find_member(record, "custom_role") != nullptr ? 5 : -10;
  }
  if (const JsonValue* blocks = find_member(record, "content_blocks");
      blocks != nullptr && blocks->IsArray()) {
    score += 5;
  }
  if (const JsonValue* calls = find_member(record, "tool_calls");
      calls != nullptr && calls->IsArray()) {
    for (const JsonValue& call : calls->GetArray()) {
      int s = sniff_call(call);
      if (s < 0) {
        return -1;
      }
      score += s;
    }
  }
  if (const JsonValue* usage = find_member(record, "usage_metadata");
      usage != nullptr && usage->IsObject()) {
    score += 3;
  }
  return score;
}

// --- Decoding ---

void decode_block(const JsonValue& value, const std::string& path,
                  const std::shared_ptr<const Source>& owner, Block& block) {
  block.json = &value;
  block.json_owner = owner;
  if (!value.IsObject()) {
    wrong_type(path, "a content block (an object)", value);
  }
  std::string_view type = required_string(value, "type", path, "content block");
  block.type_name = std::string(type);
  if (type == "text") {
    block.type = BlockType::text;
    block.text = std::string(required_string(value, "text", path, "text block"));
  } else if (type == "reasoning") {
    block.type = BlockType::thinking;
    block.type_name = "thinking";
    block.text = std::string(required_string(value, "content", path, "reasoning block"));
  } else if (type == "image" || type == "audio" || type == "video" || type == "file") {
    block.type = type == "image"   ? BlockType::image
                 : type == "audio" ? BlockType::audio
                 : type == "video" ? BlockType::video
                                   : BlockType::file;
    block.source = MediaSource::from_url(required_string(value, "url", path, "media block"));
    if (auto mime = optional_string(value, "mime_type", path)) {
      block.source.media_type = std::string(*mime);
    }
  } else {
    block.type = BlockType::unknown;  // `data`, and anything newer
  }
}

// The content: reasoning blocks, then the text, then the other content blocks.
void decode_content(const JsonValue& record, const std::shared_ptr<const Source>& owner,
                    Content& out) {
  const JsonValue* text = find_member(record, "content");
  if (text != nullptr && !text->IsString()) {
    wrong_type("/content", "a string", *text);
  }
  const JsonValue* blocks = find_member(record, "content_blocks");
  if (blocks == nullptr || blocks->IsNull() || (blocks->IsArray() && blocks->Empty())) {
    out.form = Content::Form::string;
    out.text = text != nullptr ? std::string(view_of(*text)) : std::string();
    return;
  }
  if (!blocks->IsArray()) {
    wrong_type("/content_blocks", "a list of content blocks", *blocks);
  }
  std::vector<Block> decoded(blocks->Size());
  for (rapidjson::SizeType i = 0; i < blocks->Size(); ++i) {
    decode_block((*blocks)[i], fmt::format("/content_blocks/{}", i), owner, decoded[i]);
  }
  out.form = Content::Form::blocks;
  // Synaptic fills `content` with the text of the text blocks too: the same text
  // is not a second block, and the blocks keep their order.
  std::string listed_text;
  for (const Block& block : decoded) {
    if (block.type == BlockType::text) {
      listed_text += block.text;
    }
  }
  bool repeated = text != nullptr && !listed_text.empty() && view_of(*text) == listed_text;
  if (repeated) {
    out.blocks = std::move(decoded);
    return;
  }
  for (Block& block : decoded) {
    if (block.type == BlockType::thinking) {
      out.blocks.push_back(std::move(block));
    }
  }
  if (text != nullptr && text->GetStringLength() > 0 && !repeated) {
    Block block = Block::make_text(std::string(view_of(*text)));
    block.json = text;
    block.json_owner = owner;
    out.blocks.push_back(std::move(block));
  }
  for (Block& block : decoded) {
    if (block.type != BlockType::thinking) {
      out.blocks.push_back(std::move(block));
    }
  }
}

void decode_calls(const JsonValue& record, const std::shared_ptr<const Source>& owner,
                  Content& content) {
  for (std::string_view key : {std::string_view("tool_calls"), std::string_view("invalid_tool_calls")}) {
    const bool invalid = key == "invalid_tool_calls";
    for_each_object(find_member(record, key), member_path("", key), "a list of tool calls",
                    "a tool call (an object)", [&](const JsonValue& call, const std::string& path) {
      Block block;
      block.json = &call;
      block.json_owner = owner;
      block.id = std::string(optional_string(call, "id", path).value_or(""));
      block.name = std::string(optional_string(call, "name", path).value_or(""));
      const JsonValue* arguments = find_member(call, "arguments");
      if (invalid) {
        block.type = BlockType::unknown;
        block.type_name = std::string(k_invalid_tool_call);
        block.input = std::string(optional_string(call, "arguments", path).value_or(""));
        block.text = std::string(optional_string(call, "error", path).value_or(""));
      } else {
        block.type = BlockType::tool_use;
        block.type_name = "tool_use";
        if (arguments != nullptr && arguments->IsString()) {
          block.input = std::string(view_of(*arguments));
        } else if (arguments != nullptr && !arguments->IsNull()) {
          block.input_value = arguments;
        }
      }
      content_to_blocks(content);
      content.blocks.push_back(std::move(block));
    });
  }
}

void decode_message(const JsonValue& record, Message& message) {
  auto role = optional_string(record, "role", "");
  if (!role) {
    message.kind = Kind::unknown;
    message.role = Role::none;
    message.content.form = Content::Form::absent;
    return;
  }
  message.record_type = std::string(*role);
  message.id = std::string(optional_string(record, "id", "").value_or(""));
  if (*role == "remove") {
    message.kind = Kind::remove;
    message.role = Role::none;
    message.content.form = Content::Form::absent;
    return;
  }
  std::string name(optional_string(record, "name", "").value_or(""));
  decode_response_metadata(record, "", message);
  decode_content(record, message.source, message.content);
  if (*role == "human" || *role == "user") {
    message.role = Role::user;
  } else if (*role == "assistant") {
    message.role = Role::assistant;
    message.meta.edit().message_id = message.id;
    decode_calls(record, message.source, message.content);
    Usage usage;
    decode_usage_metadata(record, "", k_synaptic_usage, usage);
    message.usage = std::move(usage);
  } else if (*role == "system") {
    message.role = Role::system;
  } else if (*role == "tool") {
    message.role = Role::tool;
    std::string id(required_string(record, "tool_call_id", "", "tool message"));
    Block block = Block::make_tool_result(std::move(id), std::move(message.content));
    block.name = std::move(name);
    name.clear();
    block.json = &record;
    block.json_owner = message.source;
    message.content = Content{};
    message.content.form = Content::Form::blocks;
    message.content.blocks.push_back(std::move(block));
  } else {
    message.role = Role::custom;
    message.custom_role = *role == "chat"
                              ? std::string(required_string(record, "custom_role", "", "chat message"))
                              : std::string(*role);
  }
  message.name = std::move(name);
}

class SynapticDecoder final : public Decoder {
 public:
  void decode(Record&& record, std::vector<Message>& out) override {
    const JsonValue& root = record.source->doc;
    if (!root.IsObject()) {
      wrong_type("", "a JSON object", root);
    }
    Message message = begin_message(Format::synaptic, record, &root);
    decode_message(root, message);
    message.raw = std::move(record.raw);
    out.push_back(std::move(message));
  }
};

// --- Encoding ---

class SynapticEncoder final : public EncoderBase {
 public:
  explicit SynapticEncoder(LossReport& loss) : EncoderBase(Format::synaptic, loss) {}

 protected:
  void encode(const Message& message, Records& values) override {
    const JsonValue* original = same_format(message) ? message.json : nullptr;
    if (message.kind == Kind::remove) {
      rapidjson::StringBuffer buffer;
      JsonWriter writer(buffer);
      ObjectWriter object(writer, original);
      object.set_string("role", "remove").set_string("id", message.id);
      object.write();
      values.add({buffer.GetString(), buffer.GetSize()});
      return;
    }
    if (message.kind != Kind::turn || message.role == Role::none) {
      if (original != nullptr) {
        values.add(to_json(*original));
      } else {
        drop(record_noun(message), message);
      }
      return;
    }
    if (message.role == Role::function) {
      drop("legacy function messages", message);
      return;
    }
    m_tool_names.note(message);
    auto rest = split_off_results(message, [&](const Block& result) {
      values.add(tool_message(message, result));
    });
    if (rest) {
      values.add(plain_message(message, original, *rest));
    }
  }

 private:
  // Fixes the order of a new record's members to Synaptic's (serde writes them in
  // declaration order); members left unset are not written.
  static void reserve(ObjectWriter& object, std::initializer_list<std::string_view> keys) {
    for (std::string_view key : keys) {
      object.remove(key);
    }
  }

  // Writes the text of `blocks` as `content` and the rest as `content_blocks`.
  void set_content(ObjectWriter& object, const Message& m, const Content& content,
                   const std::vector<const Block*>& blocks) {
    if (!content.is_blocks()) {
      object.set_string("content", content.form == Content::Form::string
                                       ? std::string_view(content.text)
                                       : std::string_view());
      if (object.original_has("content_blocks")) {
        object.remove("content_blocks");
      }
      return;
    }
    // `content` is read ahead of content_blocks: text that follows another block (a
    // question after its image) is listed in content_blocks, where its place is kept.
    bool text_follows = false;
    bool other_seen = false;
    for (const Block* block : blocks) {
      if (block->type == BlockType::text) {
        text_follows |= other_seen;
      } else if (block->type != BlockType::thinking) {
        other_seen = true;
      }
    }
    std::string text;
    std::vector<const Block*> others;
    // A text block stays in content_blocks when it was one there, and so do all of
    // them when there are several (an answer's text between its search results, each
    // with its citations): `content` alone would join them into one.
    bool several = std::count_if(blocks.begin(), blocks.end(), [](const Block* b) {
                     return b->type == BlockType::text;
                   }) > 1;
    for (const Block* block : blocks) {
      // A text block stays in content_blocks when it was one there, when it follows
      // another block (its place), or when there are several (see above).
      bool listed = block->type == BlockType::text &&
                    (text_follows || several || (keeps_own_json(m, *block, Format::synaptic) &&
                                                 block->json->IsObject()));
      if (block->type == BlockType::text && !listed) {
        text += block->text;
      } else if (admit(fit(m, *block), [&](std::string_view what) { drop(what, m); })) {
        others.push_back(block);
      }
    }
    if (text.empty()) {
      // The text is all in content_blocks: `content` repeats it, as Synaptic writes.
      for (const Block* block : others) {
        if (block->type == BlockType::text) {
          text += block->text;
        }
      }
    }
    object.set_string("content", text);
    object.set_blocks("content_blocks", others,
                      [&m](JsonWriter& w, const Block& block) { write_block(w, m, block); });
  }

  // Whether `block` has a Synaptic form, and what it loses in it.
  static BlockFit fit(const Message& m, const Block& block) {
    BlockFit out;
    if (keeps_own_json(m, block, Format::synaptic)) {
      return out;
    }
    switch (block.type) {
      case BlockType::text:
        return out;
      case BlockType::thinking:
        if (block.signature && !block.signature->empty()) {
          out.losing("thinking signatures");
        }
        return out;
      case BlockType::image:
      case BlockType::audio:
      case BlockType::video:
      case BlockType::file:
      case BlockType::document:
        if (block.source.type == MediaSource::Type::url && !block.source.media_type.empty() &&
            block.type != BlockType::file && block.type != BlockType::document) {
          // An image, audio or video block is its URL alone (a file has `mime_type`).
          out.losing(fmt::format("mime types of {} blocks", block_type_name(block.type)));
        }
        if (block.source.type == MediaSource::Type::url ||
            block.source.type == MediaSource::Type::base64 ||
            block.source.type == MediaSource::Type::text) {
          return out;
        }
        // (A plain-text document goes as a data: URL of its bytes.)
        return out.dropping(fmt::format("{} blocks given by file id", block_type_name(block.type)));
      default:
        return out.dropping(blocks_of(block));
    }
  }

  static void write_block(JsonWriter& w, const Message& m, const Block& block) {
    // (A text block read from `content` has that string for its JSON.)
    if (keeps_own_json(m, block, Format::synaptic) && block.json->IsObject()) {
      ObjectWriter object(w, block.json);
      if (block.type == BlockType::text) {
        object.set_string("text", block.text);
      } else if (block.type == BlockType::thinking) {
        object.set_string("content", block.text);
      }
      object.write();
      return;
    }
    w.StartObject();
    w.Key("type");
    switch (block.type) {
      case BlockType::text:
        w.String("text");
        w.Key("text");
        write_string(w, block.text);
        break;
      case BlockType::thinking:
        w.String("reasoning");
        w.Key("content");
        write_string(w, block.text);
        break;
      default: {
        bool file = block.type == BlockType::file || block.type == BlockType::document;
        write_string(w, file ? std::string_view("file") : block_type_name(block.type));
        w.Key("url");
        write_string(w, block.source.to_url());
        if (file && !block.source.media_type.empty()) {
          w.Key("mime_type");
          write_string(w, block.source.media_type);
        } else if (file && block.source.type == MediaSource::Type::text) {
          w.Key("mime_type");
          write_string(w, "text/plain");
        }
        break;
      }
    }
    w.EndObject();
  }

  std::string tool_message(const Message& m, const Block& result) {
    rapidjson::StringBuffer buffer;
    JsonWriter writer(buffer);
    const bool same = m.origin == Format::synaptic && result.json == m.json && m.json != nullptr;
    ObjectWriter object(writer, same ? m.json : nullptr);
    if (!same) {
      reserve(object, {"role", "content", "tool_call_id", "id", "name", "content_blocks"});
    }
    object.set_string("role", "tool");
    std::vector<const Block*> blocks;
    for (const Block& block : result.result.blocks) {
      blocks.push_back(&block);
    }
    set_content(object, m, result.result, blocks);
    object.set_string("tool_call_id", result.id);
    if (same && !m.id.empty()) {
      object.set_string("id", m.id);
    }
    if (std::string_view name = m_tool_names.name_for(result); !name.empty()) {
      object.set_string("name", name);
    }
    if (result.is_error.value_or(false)) {
      drop("tool error flags", m);
    }
    object.write();
    return std::string(buffer.GetString(), buffer.GetSize());
  }

  std::string plain_message(const Message& m, const JsonValue* original,
                            const std::vector<const Block*>& rest) {
    rapidjson::StringBuffer buffer;
    JsonWriter writer(buffer);
    ObjectWriter object(writer, original);
    if (original == nullptr) {
      reserve(object, {"role", "custom_role", "content", "tool_calls", "id", "name",
                       "response_metadata", "content_blocks", "usage_metadata",
                       "invalid_tool_calls"});
    }
    std::string_view role;
    switch (m.role) {
      case Role::user:
        role = "human";
        break;
      case Role::assistant:
        role = "assistant";
        break;
      case Role::custom:
        role = "chat";
        break;
      default:
        role = "system";
        break;
    }
    object.set_string("role", role);
    if (m.role == Role::custom) {
      object.set_string("custom_role", m.custom_role);
    }
    CallSplit split = split_calls(rest, k_invalid_tool_call);
    if (std::string lost = assistant_calls_only(m, role, split); !lost.empty()) {
      drop(lost, m);
    }
    const std::vector<const Block*>& calls = split.calls;
    const std::vector<const Block*>& invalid = split.invalid;
    const std::vector<const Block*>& parts = split.content;
    set_content(object, m, m.content, parts);
    object.set_blocks("tool_calls", calls,
                      [&m](JsonWriter& w, const Block& call) { write_call(w, m, call); });
    if (!m.id.empty()) {
      object.set_string("id", m.id);
    }
    if (!m.name.empty()) {
      object.set_string("name", m.name);
    }
    if (original == nullptr && has_response_metadata(m)) {
      object.set("response_metadata", [&m](JsonWriter& w) { write_response_metadata(w, m); });
    }
    if (m.role == Role::assistant && !m.usage->empty()) {
      const JsonValue* was = original != nullptr ? find_member(*original, "usage_metadata") : nullptr;
      object.set("usage_metadata", [&, was](JsonWriter& w) {
        write_usage_metadata(w, m.usage, was, k_synaptic_usage);
      });
    }
    object.set_blocks("invalid_tool_calls", invalid,
                      [&m](JsonWriter& w, const Block& block) { write_invalid(w, m, block); });
    object.write();
    return std::string(buffer.GetString(), buffer.GetSize());
  }

  static void write_call(JsonWriter& w, const Message& m, const Block& call) {
    const bool same = keeps_own_json(m, call, Format::synaptic);
    ObjectWriter object(w, same ? call.json : nullptr);
    object.set_string("id", call.id);
    object.set_string("name", call.name);
    object.set("arguments", [&call](JsonWriter& aw) {
      if (call.input.empty() && call.input_value != nullptr) {
        call.input_value->Accept(aw);
        return;
      }
      // Arguments are a JSON value; text that is not JSON stays a string.
      std::string text = call.input_json();
      JsonDoc parsed;
      if (parse_json(text, parsed)) {
        write_string(aw, text);
      } else {
        write_raw(aw, text);
      }
    });
    object.write();
  }

  static void write_invalid(JsonWriter& w, const Message& m, const Block& block) {
    const bool same = keeps_own_json(m, block, Format::synaptic);
    ObjectWriter object(w, same ? block.json : nullptr);
    if (!same) {
      if (!block.id.empty()) {
        object.set_string("id", block.id);
      }
      if (!block.name.empty()) {
        object.set_string("name", block.name);
      }
      if (!block.input.empty()) {
        object.set_string("arguments", block.input);
      }
      object.set_string("error", block.text);
    }
    object.write();
  }

  ToolNames m_tool_names;
};

}  // namespace

int sniff_synaptic(const JsonValue& record) { return sniff_message(record); }

std::unique_ptr<Decoder> make_synaptic_decoder() { return make_decoder<SynapticDecoder>(); }

std::unique_ptr<Encoder> make_synaptic_encoder(LossReport& loss) {
  return make_encoder<SynapticEncoder>(loss);
}

}  // namespace convo
