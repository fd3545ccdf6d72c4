#include "formats/agentscope.h"

#include <fmt/format.h>

#include <algorithm>

#include "formats/anthropic_blocks.h"
#include "formats/fields.h"
#include "formats/json_out.h"
#include "formats/mapping.h"
#include "formats/object_writer.h"
#include "formats/tool_turns.h"
#include "io/output.h"

namespace convo {

namespace {

bool is_role(std::string_view role) {
  return role == "user" || role == "assistant" || role == "system";
}

// 2.x records have `created_at` where 1.x have `timestamp`.
bool is_v2(const JsonValue& record) { return find_member(record, "created_at") != nullptr; }

// --- Detection ---

int sniff_record(const JsonValue& record) {
  if (!record.IsObject()) {
    return 0;
  }
  auto role = string_member(record, "role");
  if (!role) {
    return 0;
  }
  bool envelope = string_member(record, "name").has_value() &&
                  find_member(record, "content") != nullptr &&
                  (find_member(record, "timestamp") != nullptr ||
                   find_member(record, "created_at") != nullptr ||
                   find_member(record, "metadata") != nullptr);
  if (!envelope) {
    return -1;  // a message, but not a Msg
  }
  if (!is_role(*role)) {
    return -1;
  }
  int score = 10;
  if (const JsonValue* content = find_member(record, "content");
      content != nullptr && content->IsArray()) {
    // Anthropic's reader counts 3 for each tool block these share with it.
    score += 4 * static_cast<int>(std::min<rapidjson::SizeType>(content->Size(), 32));
  }
  return score;
}

// --- Decoding ---

BlockType media_block_type(std::string_view media_type) {
  if (media_type.substr(0, 6) == "image/") {
    return BlockType::image;
  }
  if (media_type.substr(0, 6) == "audio/") {
    return BlockType::audio;
  }
  if (media_type.substr(0, 6) == "video/") {
    return BlockType::video;
  }
  return BlockType::file;
}

void decode_content(const JsonValue* value, const std::string& path,
                    const std::shared_ptr<const Source>& owner, Content& out);

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
  } else if (type == "thinking") {
    block.type = BlockType::thinking;
    // AgentScope's own ThinkingBlock says `thinking`; its 2.x seed data says `text`.
    auto thinking = optional_string(value, "thinking", path);
    if (!thinking) {
      thinking = optional_string(value, "text", path);
    }
    block.text = std::string(thinking.value_or(""));
    if (auto signature = optional_string(value, "signature", path)) {
      block.signature = std::string(*signature);
    }
  } else if (type == "tool_use" || type == "tool_call") {
    block.type = BlockType::tool_use;
    block.type_name = "tool_use";  // other formats' writers go by this name
    block.id = std::string(optional_string(value, "id", path).value_or(""));
    block.name = std::string(optional_string(value, "name", path).value_or(""));
    const JsonValue* input = find_member(value, "input");
    if (input != nullptr && input->IsString()) {
      block.input = std::string(view_of(*input));  // 2.x: the raw JSON text
    } else if (input != nullptr && !input->IsNull()) {
      block.input_value = input;
    }
    auto raw = optional_string(value, "raw_input", path);
    if (raw && !raw->empty() && (input == nullptr || (input->IsObject() && input->ObjectEmpty()))) {
      block.input_value = nullptr;
      block.input = std::string(*raw);  // what the model wrote, when it was no object
    }
  } else if (type == "tool_result") {
    block.type = BlockType::tool_result;
    block.id = std::string(optional_string(value, "id", path).value_or(""));
    block.name = std::string(optional_string(value, "name", path).value_or(""));
    block.is_error = optional_bool(value, "is_error", path);
    if (auto state = optional_string(value, "state", path)) {
      if (*state == "error" || *state == "interrupted" || *state == "denied") {
        block.is_error = true;
      }
    }
    decode_content(find_member(value, "output"), member_path(path, "output"), owner, block.result);
  } else if (type == "image" || type == "audio" || type == "video") {
    block.type = type == "image" ? BlockType::image
                 : type == "audio" ? BlockType::audio
                                   : BlockType::video;
    decode_anthropic_source(value, path, block.source);
  } else if (type == "data") {
    decode_anthropic_source(value, path, block.source);
    block.type = media_block_type(block.source.media_type);
    block.name = std::string(optional_string(value, "name", path).value_or(""));
  } else {
    block.type = BlockType::unknown;  // 2.x hint blocks, and anything newer
  }
}

void decode_content(const JsonValue* value, const std::string& path,
                    const std::shared_ptr<const Source>& owner, Content& out) {
  decode_content_list(value, path, owner, out, decode_block,
                      "a string or a list of content blocks");
}

Role decode_role(std::string_view role) {
  if (role == "user") {
    return Role::user;
  }
  if (role == "assistant") {
    return Role::assistant;
  }
  return Role::system;
}

// The fields every turn of a record shares.
void decode_fields(const JsonValue& record, Message& message) {
  std::string_view role = required_string(record, "role", "", "message");
  if (!is_role(role)) {
    throw DecodeError("/role", fmt::format("unknown role \"{}\" (user, assistant or system)", role));
  }
  message.role = decode_role(role);
  message.record_type = std::string(role);
  std::string name(optional_string(record, "name", "").value_or(""));
  if (name != role) {
    message.name = std::move(name);
  }
  // A Msg's id is AgentScope's, not an API response's (a 2.x reply spans several
  // model calls): it is the message id of the Msg's first turn only.
  message.id = std::string(optional_string(record, "id", "").value_or(""));
  auto time = optional_string(record, "timestamp", "");
  if (!time) {
    time = optional_string(record, "created_at", "");
  }
  message.timestamp = std::string(time.value_or(""));
  if (const JsonValue* usage = optional_object(record, "usage", "")) {
    message.usage.edit().input = optional_int(*usage, "input_tokens", "/usage");
    message.usage.edit().output = optional_int(*usage, "output_tokens", "/usage");
    message.usage.edit().cache_read = optional_int(*usage, "cache_input_tokens", "/usage");
    message.usage.edit().cache_write = optional_int(*usage, "cache_creation_input_tokens", "/usage");
  }
}

class AgentScopeDecoder final : public Decoder {
 public:
  void decode(Record&& record, std::vector<Message>& out) override {
    const JsonValue& root = record.source->doc;
    if (!root.IsObject()) {
      wrong_type("", "a JSON object", root);
    }
    if (!find_member(root, "role")) {
      Message message = begin_message(Format::agentscope, record, &root);
      message.kind = Kind::unknown;
      message.role = Role::none;
      message.content.form = Content::Form::absent;
      message.raw = std::move(record.raw);
      out.push_back(std::move(message));
      return;
    }
    Message first = begin_message(Format::agentscope, record, &root);
    decode_fields(root, first);
    decode_content(find_member(root, "content"), "/content", first.source, first.content);
    if (!first.content.is_blocks() || first.content.blocks.empty()) {
      first.raw = std::move(record.raw);
      out.push_back(std::move(first));
      return;
    }
    std::vector<ToolTurn> turns = split_tool_turns(std::move(first.content.blocks), first.role);
    if (turns.size() == 1) {
      first.role = turns[0].role;
      first.content.blocks = std::move(turns[0].blocks);
      first.raw = std::move(record.raw);
      out.push_back(std::move(first));
      return;
    }
    // An assistant Msg with its tool results (2.x): one turn each, in one container.
    Location where = record.where;
    auto container = make_container(Format::agentscope, std::move(record), "");
    for (std::size_t slot = 0; slot < turns.size(); ++slot) {
      Message message = begin_contained(container, where, slot, &container->source->doc);
      message.role = turns[slot].role;
      message.record_type = first.record_type;
      message.name = first.name;
      message.timestamp = first.timestamp;
      if (slot == 0) {
        message.id = first.id;
        message.usage = first.usage;
      }
      message.content.form = Content::Form::blocks;
      message.content.blocks = std::move(turns[slot].blocks);
      out.push_back(std::move(message));
    }
    container->size = turns.size();
  }
};

// --- Encoding ---

class AgentScopeEncoder final : public EncoderBase {
 public:
  explicit AgentScopeEncoder(LossReport& loss) : EncoderBase(Format::agentscope, loss) {}

 protected:
  void encode(const Message& message, Records& values) override {
    const JsonValue* original = same_format(message) ? message.json : nullptr;
    if (message.kind != Kind::turn || message.role == Role::none) {
      if (original != nullptr) {
        values.add(to_json(*original));
      } else {
        drop(record_noun(message), message);
      }
      return;
    }
    if (message.role == Role::custom || message.role == Role::function) {
      drop(message.role == Role::custom ? "messages with custom roles" : "legacy function messages",
           message);
      return;
    }
    const bool v2 = original != nullptr && is_v2(*original);
    std::vector<const Block*> blocks;
    bool any_written = false;
    for (const Block& block : message.content.blocks) {
      blocks.push_back(&block);
      any_written = any_written || fit(message, block, v2).written;
    }
    if (!blocks.empty() && !any_written) {
      // Every block is one AgentScope has no place for (counted as it is dropped): no
      // empty Msg, which would read back as a turn of its own.
      for (const Block* block : blocks) {
        admit(fit(message, *block, v2), [&](std::string_view what) { drop(what, message); });
      }
      return;
    }
    values.add(write_record(original, {&message}, blocks));
  }

  // A 2.x Msg split into turns, of which some changed: the Msg again, with the
  // blocks of its turns as they are now.
  void write_changed_container(const Container& container, std::vector<Message>& held,
                               Output& out) override {
    std::vector<const Message*> turns;
    std::vector<const Block*> blocks;
    for (const Message& message : held) {
      turns.push_back(&message);
      for (const Block& block : message.content.blocks) {
        blocks.push_back(&block);
      }
    }
    out.write_line(write_record(&container.source->doc, turns, blocks));
  }

 private:
  // Writes one Msg holding `blocks`, from the turns `turns` (the first gives the
  // role, name, id and time). `original` is the record to patch, or null.
  std::string write_record(const JsonValue* original, const std::vector<const Message*>& turns,
                           const std::vector<const Block*>& blocks) {
    const Message& m = *turns.front();
    const bool v2 = original != nullptr && is_v2(*original);
    std::string_view role;
    switch (m.role) {
      case Role::user:
        role = "user";
        break;
      case Role::assistant:
        role = "assistant";
        break;
      default:
        role = "system";  // system, developer, and tool results (ReActAgent's way)
        break;
    }
    if (m.role == Role::tool) {
      // The results of one turn keep the record's role; a Msg made from another
      // format's tool message is written as ReActAgent writes them.
      if (original != nullptr) {
        role = std::string_view(m.record_type);
      }
      if (turns.size() > 1) {
        role = "assistant";
      }
    } else if (turns.size() > 1) {
      role = "assistant";
    }
    for (const Message* turn : turns) {
      m_tool_names.note(*turn);
    }
    rapidjson::StringBuffer buffer;
    JsonWriter writer(buffer);
    ObjectWriter object(writer, original);
    if (original == nullptr && !m.id.empty()) {
      object.set_string("id", m.id);
    }
    if (original == nullptr || m.modified) {
      std::string name = m.name.empty() ? std::string(role) : m.name;
      object.set_string("name", name);
      object.set_string("role", role);
    }
    object.set("content", [&](JsonWriter& w) { write_content(w, m, blocks, v2); });
    if (original == nullptr) {
      object.set_raw("metadata", "{}");
      if (!m.timestamp.empty()) {
        object.set_string("timestamp", m.timestamp);
      }
    }
    object.write();
    return std::string(buffer.GetString(), buffer.GetSize());
  }

  void write_content(JsonWriter& w, const Message& m, const std::vector<const Block*>& blocks,
                     bool v2) {
    if (!m.content.is_blocks()) {
      write_string(w, m.content.form == Content::Form::string ? std::string_view(m.content.text)
                                                              : std::string_view());
      return;
    }
    w.StartArray();
    for (const Block* block : blocks) {
      if (admit(fit(m, *block, v2), [&](std::string_view what) { drop(what, m); })) {
        write_block(w, m, *block, v2);
      }
    }
    w.EndArray();
  }

  // Whether the block has an AgentScope form, and what it loses in it.
  static BlockFit fit(const Message& m, const Block& block, bool v2) {
    BlockFit out;
    if (keeps_own_json(m, block, Format::agentscope)) {
      return out;
    }
    switch (block.type) {
      case BlockType::text:
      case BlockType::tool_use:
      case BlockType::tool_result:
        return out;
      case BlockType::thinking:
        if (!v2 && block.signature && !block.signature->empty()) {
          out.losing("thinking signatures");
        }
        return out;
      case BlockType::image:
      case BlockType::audio:
      case BlockType::video:
      case BlockType::file:
      case BlockType::document:
        if (block.source.type == MediaSource::Type::base64 ||
            block.source.type == MediaSource::Type::url) {
          if (v2 || block.type == BlockType::image || block.type == BlockType::audio ||
              block.type == BlockType::video) {
            return out;
          }
        }
        return out.dropping(fmt::format("{} blocks", block_type_name(block.type)));
      default:
        return out.dropping(blocks_of(block));
    }
  }

  // Anthropic's source object, which AgentScope's is (2.x gives a URL its media
  // type); AgentScope has only base64 and URL sources, so others go as URLs.
  static void write_source(JsonWriter& w, const MediaSource& source, bool v2) {
    const bool url_media_type = v2 || !source.media_type.empty();
    if (source.type == MediaSource::Type::base64 || source.type == MediaSource::Type::url) {
      write_anthropic_source(w, source, url_media_type);
      return;
    }
    MediaSource as_url = source;
    as_url.type = MediaSource::Type::url;
    write_anthropic_source(w, as_url, url_media_type);
  }

  void write_block(JsonWriter& w, const Message& m, const Block& block, bool v2) {
    const bool same = keeps_own_json(m, block, Format::agentscope);
    ObjectWriter object(w, same ? block.json : nullptr);
    switch (block.type) {
      case BlockType::text:
        object.set_string("type", "text").set_string("text", block.text);
        break;
      case BlockType::thinking:
        object.set_string("type", "thinking");
        if (object.original_has("text") && !object.original_has("thinking")) {
          object.set_string("text", block.text);
        } else {
          object.set_string("thinking", block.text);
        }
        if (v2 && block.signature) {
          object.set_string("signature", *block.signature);
        }
        break;
      case BlockType::tool_use: {
        auto written = same ? string_member(*block.json, "type") : std::nullopt;
        const bool call = v2 || (written && *written == "tool_call");
        object.set_string("type", call && (same || v2) ? "tool_call" : "tool_use");
        object.set_string("id", block.id).set_string("name", block.name);
        if (same && block.input.empty() && block.input_value != nullptr) {
          break;  // the input as it was
        }
        if (call && (same || v2)) {
          object.set_string("input", block.input_json());
        } else {
          rapidjson::StringBuffer input_buffer;
          JsonWriter input_writer(input_buffer);
          if (write_tool_input(input_writer, block)) {
            object.set_raw("input", std::string_view(input_buffer.GetString(), input_buffer.GetSize()));
          } else {
            // Arguments that are not an object: AgentScope keeps the model's text in
            // `raw_input` beside an empty input.
            object.set_raw("input", "{}");
            object.set_string("raw_input", block.input_json());
          }
        }
        break;
      }
      case BlockType::tool_result: {
        object.set_string("type", "tool_result").set_string("id", block.id);
        object.set_string("name", m_tool_names.name_for(block));
        object.set("output", [&](JsonWriter& ow) { write_output(ow, m, block.result, v2); });
        if (!same) {
          if (v2) {
            object.set_string("state", block.is_error.value_or(false) ? "error" : "success");
          } else if (block.is_error) {
            object.set_bool("is_error", *block.is_error);
          }
        }
        break;
      }
      default:
        if (same) {
          break;  // media and unknown blocks of this format stay as they were
        }
        if (v2) {
          object.set_string("type", "data");
          object.set("source", [&block](JsonWriter& sw) { write_source(sw, block.source, true); });
          if (!block.name.empty()) {
            object.set_string("name", block.name);
          }
        } else {
          object.set_string("type", block_type_name(block.type));
          object.set("source", [&block](JsonWriter& sw) { write_source(sw, block.source, false); });
        }
        break;
    }
    object.write();
  }

  void write_output(JsonWriter& w, const Message& m, const Content& content, bool v2) {
    if (!content.is_blocks()) {
      write_string(w, content.form == Content::Form::string ? std::string_view(content.text)
                                                            : std::string_view());
      return;
    }
    w.StartArray();
    for (const Block& block : content.blocks) {
      bool fits = block.type == BlockType::text || block.type == BlockType::image ||
                  block.type == BlockType::audio || block.type == BlockType::video ||
                  (keeps_own_json(m, block, Format::agentscope));
      if (fits && admit(fit(m, block, v2), [&](std::string_view what) { drop(what, m); })) {
        write_block(w, m, block, v2);
      } else if (!fits) {
        drop(fmt::format("{} in tool results", blocks_of(block)), m);
      }
    }
    w.EndArray();
  }

  ToolNames m_tool_names;
};

}  // namespace

int sniff_agentscope(const JsonValue& record) { return sniff_record(record); }

void agentscope_unmodelled(const Message& message,
                           const std::function<void(std::string_view)>& unheld) {
  if (message.json == nullptr || !message.json->IsObject()) {
    return;
  }
  const JsonValue& root = *message.json;
  if (const JsonValue* metadata = find_member(root, "metadata");
      metadata != nullptr && !metadata->IsNull() &&
      !(metadata->IsObject() && metadata->ObjectEmpty())) {
    unheld("metadata");
  }
  if (const JsonValue* id = find_member(root, "invocation_id"); id != nullptr && !id->IsNull()) {
    unheld("invocation ids");
  }
  if (!message.timestamp.empty()) {
    unheld("timestamps");
  }
}

std::unique_ptr<Decoder> make_agentscope_decoder() { return make_decoder<AgentScopeDecoder>(); }

std::unique_ptr<Encoder> make_agentscope_encoder(LossReport& loss) {
  return make_encoder<AgentScopeEncoder>(loss);
}

}  // namespace convo
