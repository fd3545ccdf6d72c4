#include "formats/anthropic.h"

#include <fmt/format.h>

#include "formats/anthropic_blocks.h"
#include "formats/api_error.h"
#include "formats/fields.h"
#include "formats/json_out.h"
#include "formats/mapping.h"
#include "formats/object_writer.h"

namespace convo {

namespace {

// --- Detection ---

int sniff_block(const JsonValue& block) {
  auto type = string_member(block, "type");
  if (!type) {
    return 0;
  }
  if (*type == "thinking") {
    auto thinking = find_member(block, "thinking");
    return thinking != nullptr && thinking->IsString() ? 3 : -1;  // Mistral sends a list
  }
  if (*type == "tool_use" || *type == "tool_result" || *type == "redacted_thinking" ||
      *type == "server_tool_use" || *type == "document") {
    return 3;
  }
  if (*type == "image") {
    return find_member(block, "source") != nullptr ? 3 : -1;
  }
  if (*type == "image_url" || *type == "input_audio" || *type == "file" || *type == "refusal") {
    return -1;
  }
  return 0;
}

int sniff_message(const JsonValue& message) {
  if (!message.IsObject()) {
    return 0;
  }
  auto role = string_member(message, "role");
  if (!role) {
    // Claude Code records have a type and a nested message; anything else is an
    // unknown record, which any format passes through.
    bool claude_code = find_member(message, "message") != nullptr ||
                       find_member(message, "uuid") != nullptr ||
                       find_member(message, "sessionId") != nullptr;
    return claude_code ? -1 : 0;
  }
  if (*role == "tool" || *role == "developer" || *role == "function" ||
      find_member(message, "tool_calls") != nullptr ||
      find_member(message, "tool_call_id") != nullptr) {
    return -1;
  }
  int score = 1;
  if (auto type = string_member(message, "type"); type && *type == "message") {
    score += 5;
  }
  if (const JsonValue* content = find_member(message, "content");
      content != nullptr && content->IsArray()) {
    for (const JsonValue& block : content->GetArray()) {
      int s = sniff_block(block);
      if (s < 0) {
        return -1;
      }
      score += s;
    }
  }
  return score;
}

int sniff_messages(const JsonValue& array) { return sniff_each(array, sniff_message); }

bool is_request(const JsonValue& record) {
  const JsonValue* messages = find_member(record, "messages");
  return messages != nullptr && messages->IsArray();
}

// --- Decoding ---

void decode_message(const JsonValue& object, const std::string& path, Message& message) {
  auto role = optional_string(object, "role", path);
  if (!role) {
    // Not a message (an error response, a record of some other kind): kept as is.
    message.kind = Kind::unknown;
    message.role = Role::none;
    message.record_type = std::string(string_member(object, "type").value_or(""));
    return;
  }
  decode_anthropic_role(*role, message);
  decode_anthropic_content(find_member(object, "content"), member_path(path, "content"),
                           message.source, message.content);
  decode_anthropic_response_fields(object, path, message);
  message.id = message.meta->message_id;
}

class AnthropicDecoder final : public Decoder {
 public:
  void decode(Record&& record, std::vector<Message>& out) override {
    const JsonValue& root = record.source->doc;
    if (root.IsArray()) {
      decode_array(std::move(record), out);
      return;
    }
    if (!root.IsObject()) {
      wrong_type("", "a JSON object", root);
    }
    if (is_request(root)) {
      decode_request(std::move(record), out);
      return;
    }
    Message message = begin_message(Format::anthropic, record, &root);
    decode_message(root, "", message);
    message.raw = std::move(record.raw);
    out.push_back(std::move(message));
  }

 private:
  static void decode_elements(const std::shared_ptr<Container>& container, const JsonValue& array,
                              const std::string& path, const Location& where, std::size_t slot,
                              std::vector<Message>& out) {
    for (rapidjson::SizeType i = 0; i < array.Size(); ++i) {
      const JsonValue& element = array[i];
      std::string element_path = fmt::format("{}/{}", path, i);
      if (!element.IsObject()) {
        wrong_type(element_path, "a message (an object)", element);
      }
      Message message = begin_contained(container, where, slot++, &element);
      decode_message(element, element_path, message);
      out.push_back(std::move(message));
    }
    container->size = slot;
  }

  static void decode_array(Record&& record, std::vector<Message>& out) {
    Location where = record.where;
    auto container = make_container(Format::anthropic, std::move(record), "");
    decode_elements(container, container->source->doc, "", where, 0, out);
  }

  static void decode_request(Record&& record, std::vector<Message>& out) {
    Location where = record.where;
    const JsonValue& root = record.source->doc;
    const JsonValue* system = find_member(root, "system");
    bool has_system = system != nullptr && !system->IsNull();
    auto container =
        make_container(Format::anthropic, std::move(record), "messages", "", has_system);
    std::size_t slot = 0;
    if (has_system) {
      Message message = begin_contained(container, where, slot++, system);
      message.role = Role::system;
      decode_anthropic_content(system, "/system", message.source, message.content);
      out.push_back(std::move(message));
    }
    decode_elements(container, *find_member(root, "messages"), "/messages", where, slot, out);
  }
};

// --- Encoding ---

class AnthropicEncoder final : public EncoderBase {
 public:
  explicit AnthropicEncoder(LossReport& loss) : EncoderBase(Format::anthropic, loss) {}

 protected:
  void encode(const Message& message, Records& values) override {
    if (message.kind != Kind::turn) {
      if (same_format(message)) {
        values.add(to_json(*message.json));
      } else if (auto error = error_body_of(message, ErrorShape::anthropic,
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
        role = "system";
        break;
      case Role::user:
      case Role::tool:  // its content is tool_result blocks, which ride in user messages
        role = "user";
        break;
      case Role::assistant:
        role = "assistant";
        break;
      case Role::function:
        drop("legacy function messages", message);
        return;
      case Role::custom:
        if (message.origin == Format::anthropic) {
          role = message.custom_role;
          break;
        }
        drop("messages with custom roles", message);
        return;
      case Role::none:
        drop(record_noun(message), message);
        return;
    }
    if (!message.name.empty() && message.origin != Format::anthropic) {
      drop("message names", message);
    }
    DropFn drop_block = [&](std::string_view what) { drop(what, message); };
    if (anthropic_drops_all(message.content, uses_anthropic_blocks(message.origin), drop_block)) {
      return;
    }
    JsonWriter writer(values.open());
    const bool keep = uses_anthropic_blocks(message.origin);
    if (!same_format(message)) {
      // No original to keep members of: member by member, as the ObjectWriter below
      // writes a fresh object.
      writer.StartObject();
      write_string_member(writer, "role", role);
      if (message.content.form != Content::Form::absent) {
        write_key(writer, "content");
        write_anthropic_content(writer, message.content, keep, drop_block);
      }
      writer.EndObject();
      values.close();
      return;
    }
    ObjectWriter object(writer, message.json);
    object.set_string("role", role);
    if (message.content.form == Content::Form::absent) {
      object.remove("content");
    } else {
      object.set("content", [&, keep](JsonWriter& w) {
        write_anthropic_content(w, message.content, keep, drop_block);
      });
    }
    object.write();
    values.close();
  }
};

}  // namespace

int sniff_anthropic(const JsonValue& record) {
  if (record.IsArray()) {
    return sniff_messages(record);
  }
  if (!record.IsObject()) {
    return 0;
  }
  if (is_request(record)) {
    int score = sniff_messages(*find_member(record, "messages"));
    if (score < 0) {
      return -1;
    }
    if (find_member(record, "max_tokens") == nullptr) {
      return -1;  // required by the Messages API
    }
    if (find_member(record, "system") != nullptr) {
      score += 2;
    }
    if (auto model = string_member(record, "model"); model && model->substr(0, 6) == "claude") {
      score += 3;
    }
    if (const JsonValue* tools = find_member(record, "tools");
        tools != nullptr && tools->IsArray() && !tools->Empty()) {
      score += find_member((*tools)[0], "input_schema") != nullptr ? 3 : -1;
    }
    return score;
  }
  if (find_member(record, "choices") != nullptr) {
    return -1;
  }
  return sniff_message(record);
}

std::unique_ptr<Decoder> make_anthropic_decoder() { return make_decoder<AnthropicDecoder>(); }

std::unique_ptr<Encoder> make_anthropic_encoder(LossReport& loss) {
  return make_encoder<AnthropicEncoder>(loss);
}

bool anthropic_as_is(const Message& message) {
  return message.origin == Format::anthropic && keeps_own_bytes(message) &&
         message.json != nullptr && message.json->IsObject() && message.json->MemberCount() == 2 &&
         find_member(*message.json, "role") != nullptr &&
         find_member(*message.json, "content") != nullptr;
}

}  // namespace convo
