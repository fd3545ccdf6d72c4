#include "formats/openai.h"

#include <fmt/format.h>

#include <algorithm>

#include "formats/api_error.h"
#include "formats/fields.h"
#include "formats/json_out.h"
#include "formats/mapping.h"
#include "formats/object_writer.h"
#include "formats/tool_turns.h"

namespace convo {

namespace {

// The members in which OpenAI-compatible providers return an assistant's reasoning.
constexpr std::string_view k_reasoning_members[] = {"reasoning_content", "reasoning"};


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
        member.value.IsString() && std::find(std::begin(k_reasoning_members),
                                             std::end(k_reasoning_members),
                                             key) != std::end(k_reasoning_members);
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
         std::find(std::begin(k_reasoning_members), std::end(k_reasoning_members),
                   block.type_name) != std::end(k_reasoning_members);
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
  for (std::string_view key : k_reasoning_members) {
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

// --- Encoding ---

class OpenAIEncoder final : public EncoderBase {
 public:
  explicit OpenAIEncoder(LossReport& loss) : EncoderBase(Format::openai, loss) {}

 protected:
  void encode(const Message& message, Records& values) override {
    if (message.kind != Kind::turn) {
      if (same_format(message)) {
        values.add(to_json(*message.json));
      } else if (auto error = error_body_of(message, ErrorShape::openai,
                                            [&](std::string_view what) { drop(what, message); })) {
        values.add(std::move(*error));  // another API's error body, as this one's
      } else {
        drop(record_noun(message), message);
      }
      return;
    }
    if (message.role == Role::none) {
      drop(record_noun(message), message);
      return;
    }
    // Tool results become tool messages, one per result, ahead of what else the
    // message holds (Anthropic puts tool results first in a user message).
    auto rest = split_off_results(
        message, [&](const Block& result) { tool_message(values, message, result); });
    if (!rest) {
      return;
    }
    if (is_system_prompt_list(message, *rest)) {
      // Anthropic's `system` (Gemini's systemInstruction) as a list of text blocks is
      // how those APIs take several system messages: one message each, kept apart.
      for (const Block* block : *rest) {
        plain_message(values, message, {block});
      }
      return;
    }
    if (plain_message(values, message, *rest)) {
    } else if (message.role == Role::assistant && only_thinking(*rest)) {
      // Its thinking is counted; the message goes with it (a Claude Code record that
      // held one thinking block), which a round trip cannot give back.
      drop("thinking-only assistant messages", message);
    }
  }

 private:
  // Adds the tool message of `block`, a result of `m`, to `values`.
  void tool_message(Records& values, const Message& m, const Block& block) {
    JsonWriter writer(values.open());
    bool patch = same_format(m) && m.role == Role::tool;
    ObjectWriter object(writer, patch ? m.json : nullptr);
    object.set_string("role", "tool");
    object.set("content", [&](JsonWriter& w) { write_result_content(w, m, block.result); });
    object.set_string("tool_call_id", block.id);
    if (block.is_error.value_or(false)) {
      drop("tool error flags", m);
    }
    if (!block.cache_control.empty()) {
      drop("cache_control markers", m);
    }
    object.write();
    values.close();
  }

  void write_result_content(JsonWriter& w, const Message& m, const Content& content) {
    switch (content.form) {
      case Content::Form::absent:
      case Content::Form::null:
        w.String("");
        return;
      case Content::Form::string:
        write_string(w, content.text);
        return;
      case Content::Form::blocks:
        w.StartArray();
        for (const Block& block : content.blocks) {
          if (block.type == BlockType::text) {
            write_text_part(w, m, block);
          } else {
            drop(fmt::format("{} in tool results", blocks_of(block)), m);
          }
        }
        w.EndArray();
        return;
    }
  }

  void write_text_part(JsonWriter& w, const Message& m, const Block& block) {
    bool same = keeps_own_json(m, block, Format::openai);
    if (same && block.json->IsString()) {
      write_string(w, block.text);
      return;
    }
    ObjectWriter part(w, same ? block.json : nullptr);
    part.set_string("type", "text").set_string("text", block.text);
    part.write();
  }

  // A body's system prompt of another API (its system slot) made of several text
  // blocks.
  bool is_system_prompt_list(const Message& m, const std::vector<const Block*>& blocks) const {
    return m.container && m.container->system_slot && m.slot == 0 && !same_format(m) &&
           m.role == Role::system && blocks.size() > 1 &&
           std::all_of(blocks.begin(), blocks.end(),
                       [](const Block* b) { return b->type == BlockType::text; });
  }

  static bool only_thinking(const std::vector<const Block*>& blocks) {
    return !blocks.empty() && std::all_of(blocks.begin(), blocks.end(), [](const Block* b) {
      return b->type == BlockType::thinking || b->type == BlockType::redacted_thinking;
    });
  }

  // Adds the message without its tool results to `values`; false, adding nothing,
  // when every block it had was dropped (an assistant record holding only a
  // thinking block).
  bool plain_message(Records& values, const Message& m, const std::vector<const Block*>& blocks) {
    JsonWriter writer(values.open());
    const bool same = same_format(m);
    ObjectWriter object(writer, same ? m.json : nullptr);
    object.set_string("role", openai_role_name(m));
    CallSplit split;  // the calls; the parts and reasoning apart
    std::vector<const Block*>& calls = split.calls;
    std::vector<const Block*> parts;
    std::vector<const Block*> reasoning;
    for (const Block* block : blocks) {
      if (block->type == BlockType::tool_use) {
        calls.push_back(block);
      } else if (is_openai_reasoning(*block) && m.role == Role::assistant) {
        reasoning.push_back(block);
      } else if (admit(fit(m, *block), [&](std::string_view what) { drop(what, m); })) {
        parts.push_back(block);
      }
    }
    if (std::string lost = assistant_calls_only(m, openai_role_name(m), split); !lost.empty()) {
      drop(lost, m);
    }
    if (!blocks.empty() && parts.empty() && calls.empty() && reasoning.empty()) {
      values.cancel();
      return false;
    }
    write_reasoning(object, same ? m.json : nullptr, reasoning);
    const bool has_calls = !calls.empty();
    object.set("content", [&, has_calls](JsonWriter& w) { write_content(w, m, parts, has_calls); });
    if (!m.name.empty()) {
      object.set_string("name", m.name);
    }
    object.set_blocks("tool_calls", std::move(calls),
                      [&](JsonWriter& w, const Block& call) { write_tool_call(w, m, call); });
    object.write();
    values.close();
    return true;
  }

  // Puts reasoning blocks back in the members they came from (several blocks of one
  // member, after merge-runs, joined by a newline). A member that was a block in
  // `original` and has none now (a stage removed it) is left out; one that never was
  // a block (empty, or not a string) stays as it was.
  static void write_reasoning(ObjectWriter& object, const JsonValue* original,
                              const std::vector<const Block*>& reasoning) {
    for (std::string_view key : k_reasoning_members) {
      std::string text;
      bool any = false;
      for (const Block* block : reasoning) {
        if (block->type_name == key) {
          text += any ? "\n" : "";
          text += block->text;
          any = true;
        }
      }
      if (any) {
        object.set(key, [text](JsonWriter& w) { write_string(w, text); });
      } else if (auto was = original ? string_member(*original, key) : std::nullopt;
                 was && !was->empty()) {
        object.remove(key);
      }
    }
  }

  // Writes the content: `kept` are the blocks that openai can hold.
  void write_content(JsonWriter& w, const Message& m, const std::vector<const Block*>& kept,
                     bool has_calls) {
    if (!m.content.is_blocks()) {
      if (m.content.form == Content::Form::string) {
        write_string(w, m.content.text);
      } else {
        w.Null();
      }
      return;
    }
    bool all_text = std::all_of(kept.begin(), kept.end(),
                                [](const Block* b) { return b->type == BlockType::text; });
    // Keep the original's string or null when it was one (the tool calls were folded
    // into blocks on the way in) and still is one text; otherwise one text becomes a
    // string, and several parts (a string merged with parts by merge-runs) stay parts.
    const JsonValue* original =
        same_format(m) ? find_member(*m.json, "content") : nullptr;
    bool was_text = original != nullptr && (original->IsString() || original->IsNull()) &&
                    kept.size() <= 1;
    bool fresh_text = original == nullptr && kept.size() <= 1;
    if (all_text && (was_text || fresh_text)) {
      std::string text;
      for (const Block* block : kept) {
        text += block->text;
      }
      if (text.empty() && (has_calls || (original != nullptr && original->IsNull()))) {
        w.Null();
      } else {
        write_string(w, text);
      }
      return;
    }
    w.StartArray();
    for (const Block* block : kept) {
      write_part(w, m, *block);
    }
    w.EndArray();
  }

  // Whether the block can be a content part of this message, and what it loses
  // (a cache_control marker on it, the block itself).
  static BlockFit fit(const Message& m, const Block& block) {
    BlockFit out;
    if (!block.cache_control.empty() && m.origin != Format::openai) {
      out.losing("cache_control markers");
    }
    switch (block.type) {
      case BlockType::text:
        return out;
      case BlockType::image:
      case BlockType::audio:
      case BlockType::file:
      case BlockType::document:
        if (m.role == Role::assistant) {
          return out.dropping(
              fmt::format("{} in assistant messages", blocks_of(block)));
        }
        if (keeps_own_json(m, block, Format::openai)) {
          return out;
        }
        if (block.source.type == MediaSource::Type::base64 ||
            (block.source.type == MediaSource::Type::url && block.type == BlockType::image) ||
            (block.source.type == MediaSource::Type::file_id && block.type == BlockType::file)) {
          return out;
        }
        return out.dropping(fmt::format("{} blocks", block_type_name(block.type)));
      case BlockType::unknown:
        if (keeps_own_json(m, block, Format::openai)) {
          return out;
        }
        [[fallthrough]];
      default:
        return out.dropping(blocks_of(block));
    }
  }

  void write_part(JsonWriter& w, const Message& m, const Block& block) {
    if (block.type == BlockType::text) {
      write_text_part(w, m, block);
      return;
    }
    if (keeps_own_json(m, block, Format::openai)) {
      block.json->Accept(w);
      return;
    }
    const MediaSource& source = block.source;
    if (block.type == BlockType::image) {
      write_openai_image_part(w, source);
      if (auto loss = url_media_type_loss(block); !loss.empty()) {
        drop(loss, m);  // image_url is the URL alone
      }
      return;
    }
    w.StartObject();
    switch (block.type) {
      case BlockType::audio: {
        std::string format = source.media_type.substr(0, 6) == "audio/"
                                 ? source.media_type.substr(6)
                                 : std::string("wav");
        if (format == "mpeg" || format == "mp3") {
          format = "mp3";  // the API names formats, not media types: wav or mp3
        } else if (format == "wave" || format == "x-wav" || format == "vnd.wave") {
          format = "wav";
        }
        w.Key("type");
        w.String("input_audio");
        w.Key("input_audio");
        w.StartObject();
        w.Key("data");
        write_string(w, source.data);
        w.Key("format");
        write_string(w, format);
        w.EndObject();
        break;
      }
      default:  // file or document
        w.Key("type");
        w.String("file");
        w.Key("file");
        w.StartObject();
        if (source.type == MediaSource::Type::file_id) {
          w.Key("file_id");
          write_string(w, source.data);
        } else {
          w.Key("file_data");
          write_media_url(w, source);
        }
        if (!block.name.empty()) {
          w.Key("filename");
          write_string(w, block.name);
        }
        w.EndObject();
        break;
    }
    w.EndObject();
  }

  void write_tool_call(JsonWriter& w, const Message& m, const Block& call) {
    bool same = keeps_own_json(m, call, Format::openai);
    const JsonValue* function = same ? find_member(*call.json, "function") : nullptr;
    ObjectWriter object(w, same ? call.json : nullptr);
    object.set_string("id", call.id);
    object.set_string("type", "function");
    object.set("function", [&](JsonWriter& fw) {
      ObjectWriter f(fw, function);
      f.set_string("name", call.name);
      if (!(same && call.input.empty() && call.input_value != nullptr)) {
        // The block itself, not a copy of its text (a patch, for Codex's custom
        // calls): it outlives `f`, which is written below.
        const Block* input = &call;
        f.set("arguments", [input](JsonWriter& aw) {
          if (!input->input.empty()) {
            write_string(aw, input->input);
          } else {
            write_string(aw, input->input_json());
          }
        });
      }
      f.write();
    });
    if (!call.cache_control.empty()) {
      drop("cache_control markers", m);
    }
    object.write();
  }
};

}  // namespace

std::string openai_audio_media_type(std::string_view format) {
  return format == "mp3" ? std::string("audio/mpeg") : fmt::format("audio/{}", format);
}

void write_openai_image_part(JsonWriter& w, const MediaSource& source) {
  w.StartObject();
  w.Key("type");
  w.String("image_url");
  w.Key("image_url");
  w.StartObject();
  w.Key("url");
  write_media_url(w, source);
  w.EndObject();
  w.EndObject();
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

std::unique_ptr<Encoder> make_openai_encoder(LossReport& loss) {
  return make_encoder<OpenAIEncoder>(loss);
}

}  // namespace convo
