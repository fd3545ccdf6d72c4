#include "formats/openai.h"

#include <fmt/format.h>

#include <algorithm>

#include "formats/fields.h"
#include "formats/mapping.h"

namespace convo {

namespace {


// --- Detection ---

int sniff_part(const JsonValue& part) {
  auto type = string_member(part, "type");
  if (!type) {
    return 0;
  }
  if (*type == "image_url" || *type == "input_audio" || *type == "file" || *type == "refusal") {
    return 3;
  }
  // "thinking" parts are a provider extension (Mistral), not evidence against.
  if (*type == "tool_use" || *type == "tool_result" || *type == "redacted_thinking" ||
      *type == "document" || *type == "image") {
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
    bool claude_code = find_member(message, "message") != nullptr ||
                       find_member(message, "uuid") != nullptr ||
                       find_member(message, "sessionId") != nullptr;
    return claude_code ? -1 : 0;
  }
  if (auto type = string_member(message, "type"); type && *type == "message") {
    return -1;  // an Anthropic response
  }
  int score = 1;
  if (*role == "tool" || *role == "developer" || *role == "function") {
    score += 5;
  }
  if (find_member(message, "tool_calls") != nullptr ||
      find_member(message, "tool_call_id") != nullptr) {
    score += 5;
  }
  if (const JsonValue* content = find_member(message, "content");
      content != nullptr && content->IsArray()) {
    for (const JsonValue& part : content->GetArray()) {
      int s = sniff_part(part);
      if (s < 0) {
        return -1;
      }
      score += s;
    }
  }
  return score;
}

int sniff_messages(const JsonValue& array) { return sniff_each(array, sniff_message); }

const JsonValue* array_member(const JsonValue& object, std::string_view key) {
  const JsonValue* value = find_member(object, key);
  return value != nullptr && value->IsArray() ? value : nullptr;
}

// --- Decoding ---

void decode_part(const JsonValue& part, const std::string& path,
                 const std::shared_ptr<const Source>& owner, Block& block) {
  auto type = begin_block(part, path, owner, block, "a content part (an object)");
  if (!type) {
    return;
  }
  if (const JsonValue* marker = find_member(part, "cache_control");
      marker != nullptr && !marker->IsNull()) {
    block.cache_control = to_json(*marker);  // OpenRouter's, spelled as Anthropic's
  }
  if (*type == "text") {
    block.type = BlockType::text;
    block.text = std::string(required_string(part, "text", path, "text part"));
  } else if (*type == "image_url") {
    block.type = BlockType::image;
    const JsonValue* image = find_member(part, "image_url");
    if (image != nullptr && image->IsString()) {
      block.source = MediaSource::from_url(*image, owner);
    } else if (image != nullptr && image->IsObject()) {
      std::string image_path = member_path(path, "image_url");
      required_string(*image, "url", image_path, "image_url");
      block.source = MediaSource::from_url(*find_member(*image, "url"), owner);
    } else {
      throw DecodeError(path, "image_url part has no \"image_url\"");
    }
  } else if (*type == "input_audio") {
    block.type = BlockType::audio;
    if (const JsonValue* audio = optional_object(part, "input_audio", path)) {
      std::string audio_path = member_path(path, "input_audio");
      block.source.type = MediaSource::Type::base64;
      block.source.data = std::string(optional_string(*audio, "data", audio_path).value_or(""));
      block.source.media_type =
          openai_audio_media_type(optional_string(*audio, "format", audio_path).value_or("wav"));
    }
  } else if (*type == "file") {
    block.type = BlockType::file;
    if (const JsonValue* file = optional_object(part, "file", path)) {
      std::string file_path = member_path(path, "file");
      if (auto data = optional_string(*file, "file_data", file_path)) {
        block.source = MediaSource::from_url(*data);
      } else if (auto id = optional_string(*file, "file_id", file_path)) {
        block.source.type = MediaSource::Type::file_id;
        block.source.data = std::string(*id);
      }
      block.name = std::string(optional_string(*file, "filename", file_path).value_or(""));
    }
  } else {
    block.type = BlockType::unknown;
  }
}

void decode_content(const JsonValue* value, const std::string& path,
                    const std::shared_ptr<const Source>& owner, Content& out) {
  decode_content_list(value, path, owner, out, decode_part,
                      "a string, null or an array of content parts");
}

void decode_role(std::string_view role, Message& message) {
  static constexpr std::pair<std::string_view, Role> k_roles[] = {
      {"system", Role::system}, {"developer", Role::developer}, {"user", Role::user},
      {"assistant", Role::assistant}, {"tool", Role::tool},    {"function", Role::function},
  };
  for (const auto& [name, value] : k_roles) {
    if (name == role) {
      message.role = value;
      return;
    }
  }
  message.role = Role::custom;
  message.custom_role = std::string(role);
}

}  // namespace

void openai_unmodelled(const Message& message,
                       const std::function<void(std::string_view)>& unheld) {
  if (message.json == nullptr || !message.json->IsObject() || message.kind != Kind::turn ||
      message.origin != Format::openai) {
    return;
  }
  auto carries = [](const JsonValue& value) {
    return !value.IsNull() && !(value.IsArray() && value.Empty()) &&
           !(value.IsObject() && value.ObjectEmpty());
  };
  for (const auto& member : message.json->GetObject()) {
    std::string_view key = view_of(member.name);
    bool reasoning_text =
        member.value.IsString() && std::find(std::begin(k_openai_reasoning_members),
                                             std::end(k_openai_reasoning_members),
                                             key) != std::end(k_openai_reasoning_members);
    if (key == "content" && member.value.IsArray()) {
      for (const JsonValue& part : member.value.GetArray()) {
        // An image's detail has no place in a block: "auto", the API's default, is
        // what comes back.
        const JsonValue* image = part.IsObject() ? find_member(part, "image_url") : nullptr;
        auto detail = image != nullptr && image->IsObject() ? string_member(*image, "detail")
                                                            : std::nullopt;
        if (detail && *detail != "auto") {
          unheld("detail of image blocks");
        }
      }
    }
    if (key == "role" || key == "name" || key == "id" || key == "content" ||
        key == "tool_call_id" || reasoning_text || !carries(member.value)) {
      continue;
    }
    if (key != "tool_calls") {
      unheld(fmt::format("{} of messages", key));
      continue;
    }
    if (!member.value.IsArray()) {
      continue;
    }
    for (const JsonValue& call : member.value.GetArray()) {
      if (!call.IsObject()) {
        continue;
      }
      for (const auto& part : call.GetObject()) {
        std::string_view name = view_of(part.name);
        if (name != "id" && name != "type" && name != "function" && carries(part.value)) {
          unheld(fmt::format("{} of tool calls", name));
        }
      }
    }
  }
}

bool is_openai_reasoning(const Block& block) {
  return block.type == BlockType::thinking &&
         std::find(std::begin(k_openai_reasoning_members), std::end(k_openai_reasoning_members),
                   block.type_name) != std::end(k_openai_reasoning_members);
}

void decode_openai_tool_calls(const JsonValue& object, const std::string& path,
                              const std::shared_ptr<const Source>& owner, Content& content) {
  const JsonValue* calls = find_member(object, "tool_calls");
  if (calls == nullptr || calls->IsNull()) {
    return;
  }
  std::string calls_path = member_path(path, "tool_calls");
  if (!calls->IsArray()) {
    wrong_type(calls_path, "an array of tool calls", *calls);
  }
  content_to_blocks(content);
  for (rapidjson::SizeType i = 0; i < calls->Size(); ++i) {
    const JsonValue& call = (*calls)[i];
    std::string call_path = fmt::format("{}/{}", calls_path, i);
    if (!call.IsObject()) {
      wrong_type(call_path, "a tool call (an object)", call);
    }
    Block block;
    block.type = BlockType::tool_use;
    block.type_name = "tool_use";
    block.json = &call;
    block.json_owner = owner;
    block.id = std::string(optional_string(call, "id", call_path).value_or(""));
    if (const JsonValue* function = optional_object(call, "function", call_path)) {
      std::string function_path = member_path(call_path, "function");
      block.name = std::string(optional_string(*function, "name", function_path).value_or(""));
      const JsonValue* arguments = find_member(*function, "arguments");
      if (arguments != nullptr && arguments->IsString()) {
        block.input = std::string(view_of(*arguments));
      } else if (arguments != nullptr && arguments->IsObject()) {
        block.input_value = arguments;  // some providers send an object
      } else if (arguments != nullptr && !arguments->IsNull()) {
        wrong_type(member_path(function_path, "arguments"), "a JSON string", *arguments);
      }
    }
    content.blocks.push_back(std::move(block));
  }
}

namespace {

// A provider's reasoning text as a thinking block ahead of the content, so that it
// is carried to formats that hold thinking. A member of another type (OpenRouter's
// structured `reasoning_details` live elsewhere) stays an unmodelled member.
void decode_reasoning(const JsonValue& object, Message& message) {
  for (std::string_view key : k_openai_reasoning_members) {
    auto text = string_member(object, key);
    if (!text || text->empty()) {
      continue;
    }
    Block block;
    block.type = BlockType::thinking;
    block.type_name = std::string(key);
    block.text = std::string(*text);
    content_to_blocks(message.content);
    message.content.blocks.insert(message.content.blocks.begin(), std::move(block));
    return;
  }
}

void decode_message(const JsonValue& object, const std::string& path, Message& message) {
  auto role = optional_string(object, "role", path);
  if (!role) {
    message.kind = Kind::unknown;
    message.role = Role::none;
    if (const JsonValue* error = find_member(object, "error"); error != nullptr && error->IsObject()) {
      // An API error body ({"error": {"code", "message", "type", "param"}}): named as
      // such where another format drops it ("error records"), not as an unknown record.
      message.record_type = "error";
    }
    return;
  }
  decode_role(*role, message);
  if (auto name = find_member(object, "name"); name != nullptr && name->IsString()) {
    message.name = std::string(view_of(*name));
  }
  if (auto id = find_member(object, "id"); id != nullptr && id->IsString()) {
    message.id = std::string(view_of(*id));
  }
  const JsonValue* content = find_member(object, "content");
  std::string content_path = member_path(path, "content");
  if (message.role == Role::tool) {
    Content result;
    decode_content(content, content_path, message.source, result);
    std::string id(optional_string(object, "tool_call_id", path).value_or(""));
    message.content.form = Content::Form::blocks;
    message.content.blocks.push_back(Block::make_tool_result(std::move(id), std::move(result)));
    return;
  }
  decode_content(content, content_path, message.source, message.content);
  if (message.role == Role::assistant) {
    decode_openai_tool_calls(object, path, message.source, message.content);
    decode_reasoning(object, message);
  }
}

class OpenAIDecoder final : public Decoder {
 public:
  void decode(Record&& record, std::vector<Message>& out) override {
    const JsonValue& root = record.source->doc;
    if (root.IsArray()) {
      Location where = record.where;
      auto container = make_container(Format::openai, std::move(record), "");
      decode_elements(container, container->source->doc, "", "", where, out);
      return;
    }
    if (!root.IsObject()) {
      wrong_type("", "a JSON object", root);
    }
    if (const JsonValue* messages = array_member(root, "messages")) {
      Location where = record.where;
      auto container = make_container(Format::openai, std::move(record), "messages");
      decode_elements(container, *messages, "/messages", "", where, out);
      return;
    }
    if (const JsonValue* choices = array_member(root, "choices")) {
      decode_response(std::move(record), *choices, out);
      return;
    }
    Message message = begin_message(Format::openai, record, &root);
    decode_message(root, "", message);
    message.raw = std::move(record.raw);
    out.push_back(std::move(message));
  }

 private:
  static void decode_elements(const std::shared_ptr<Container>& container, const JsonValue& array,
                              const std::string& path, std::string_view wrapper,
                              const Location& where, std::vector<Message>& out) {
    std::size_t slot = 0;
    for (rapidjson::SizeType i = 0; i < array.Size(); ++i) {
      std::string element_path = fmt::format("{}/{}", path, i);
      const JsonValue* element = &array[i];
      if (!wrapper.empty()) {
        if (!element->IsObject()) {
          wrong_type(element_path, "a choice (an object)", *element);
        }
        element = optional_object(*element, wrapper, element_path);
        if (element == nullptr) {
          throw DecodeError(element_path, fmt::format("choice has no \"{}\"", wrapper));
        }
        element_path = member_path(element_path, wrapper);
      }
      if (!element->IsObject()) {
        wrong_type(element_path, "a message (an object)", *element);
      }
      Message message = begin_contained(container, where, slot++, element);
      decode_message(*element, element_path, message);
      out.push_back(std::move(message));
    }
    container->size = slot;
  }

  static void decode_response(Record&& record, const JsonValue& choices, std::vector<Message>& out) {
    Location where = record.where;
    const JsonValue& root = record.source->doc;
    auto container = make_container(Format::openai, std::move(record), "choices", "message");
    std::size_t first = out.size();
    decode_elements(container, choices, "/choices", "message", where, out);
    Usage usage;
    if (const JsonValue* u = optional_object(root, "usage", "")) {
      usage.input = optional_int(*u, "prompt_tokens", "/usage");
      usage.output = optional_int(*u, "completion_tokens", "/usage");
      usage.total = optional_int(*u, "total_tokens", "/usage");
      if (const JsonValue* details = find_member(*u, "completion_tokens_details");
          details != nullptr && details->IsObject()) {
        usage.reasoning = optional_int(*details, "reasoning_tokens", "/usage/completion_tokens_details");
      }
      if (const JsonValue* details = find_member(*u, "prompt_tokens_details");
          details != nullptr && details->IsObject()) {
        usage.cache_read = optional_int(*details, "cached_tokens", "/usage/prompt_tokens_details");
      }
    }
    std::string model(string_member(root, "model").value_or(""));
    std::string id(string_member(root, "id").value_or(""));
    for (std::size_t i = first; i < out.size(); ++i) {
      Message& message = out[i];
      message.usage = usage;
      message.meta.edit().model = model;
      message.meta.edit().message_id = id;
      const JsonValue& choice = choices[static_cast<rapidjson::SizeType>(i - first)];
      message.meta.edit().stop_reason = std::string(string_member(choice, "finish_reason").value_or(""));
    }
  }
};

}  // namespace

std::string openai_audio_media_type(std::string_view format) {
  return format == "mp3" ? std::string("audio/mpeg") : fmt::format("audio/{}", format);
}

int sniff_openai(const JsonValue& record) {
  if (record.IsArray()) {
    return sniff_messages(record);
  }
  if (!record.IsObject()) {
    return 0;
  }
  if (const JsonValue* choices = array_member(record, "choices")) {
    int score = 10;
    for (const JsonValue& choice : choices->GetArray()) {
      if (const JsonValue* message = find_member(choice, "message")) {
        int s = sniff_message(*message);
        if (s < 0) {
          return -1;
        }
        score += s;
      }
    }
    return score;
  }
  if (const JsonValue* messages = array_member(record, "messages")) {
    int score = sniff_messages(*messages);
    if (score < 0) {
      return -1;
    }
    if (auto model = string_member(record, "model");
        model && (model->substr(0, 3) == "gpt" || model->substr(0, 1) == "o")) {
      score += 3;
    }
    if (find_member(record, "max_completion_tokens") != nullptr) {
      score += 2;
    }
    if (find_member(record, "system") != nullptr) {
      return -1;  // Anthropic's top-level system prompt
    }
    if (const JsonValue* tools = array_member(record, "tools"); tools != nullptr && !tools->Empty()) {
      score += find_member((*tools)[0], "function") != nullptr ? 3 : -1;
    }
    return score;
  }
  return sniff_message(record);
}

std::unique_ptr<Decoder> make_openai_decoder() { return make_decoder<OpenAIDecoder>(); }

}  // namespace convo
