#include "formats/ai_sdk.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "formats/ai_sdk_parts.h"
#include "formats/fields.h"
#include "formats/json_out.h"
#include "formats/mapping.h"
#include "formats/tool_turns.h"

namespace convo {

namespace ai_sdk {

bool is_ui_message(const JsonValue& record) {
  // Version 4's UIMessages have `content` (their text) beside `parts`; ModelMessages
  // never have `parts`.
  const JsonValue* parts = find_member(record, "parts");
  return parts != nullptr && parts->IsArray();
}

BlockType media_block_type(std::string_view media_type) {
  if (media_type.starts_with("image/")) {
    return BlockType::image;
  }
  if (media_type.starts_with("audio/")) {
    return BlockType::audio;
  }
  if (media_type.starts_with("video/")) {
    return BlockType::video;
  }
  if (media_type == "application/pdf" || media_type.starts_with("text/")) {
    return BlockType::document;
  }
  return BlockType::file;
}

std::string_view file_part_media_type(const Block& block) {
  return !block.source.media_type.empty()             ? std::string_view(block.source.media_type)
         : block.source.type == MediaSource::Type::text ? "text/plain"
         : block.type == BlockType::document            ? "application/pdf"
         : block.type == BlockType::image               ? "image/*"
                                                        : "application/octet-stream";
}

MediaSource media_source(std::string_view data, std::string_view media_type) {
  MediaSource source;
  if (data.starts_with("http://") || data.starts_with("https://") || data.starts_with("data:")) {
    source = MediaSource::from_url(data);
  } else if (data.starts_with("file-")) {
    // An OpenAI file id, as the SDK's OpenAI provider reads it ('-' is no base64).
    source.type = MediaSource::Type::file_id;
    source.data = std::string(data);
  } else {
    source.type = MediaSource::Type::base64;
    source.data = std::string(data);
  }
  if (!media_type.empty()) {
    source.media_type = std::string(media_type);
  }
  return source;
}

std::string anthropic_cache_control(const JsonValue* options) {
  if (options == nullptr || !options->IsObject()) {
    return {};
  }
  const JsonValue* anthropic = find_member(*options, "anthropic");
  if (anthropic == nullptr || !anthropic->IsObject()) {
    return {};
  }
  const JsonValue* cache = find_member(*anthropic, "cacheControl");
  return cache != nullptr && !cache->IsNull() ? to_json(*cache) : std::string();
}

std::optional<std::string> provider_signature(const JsonValue* options) {
  if (options == nullptr || !options->IsObject()) {
    return std::nullopt;
  }
  for (const auto& provider : options->GetObject()) {
    if (provider.value.IsObject()) {
      if (auto signature = string_member(provider.value, "signature")) {
        return std::string(*signature);
      }
    }
  }
  return std::nullopt;
}

void write_input(JsonWriter& w, const Block& call) {
  if (call.input.empty() && call.input_value != nullptr) {
    call.input_value->Accept(w);
    return;
  }
  std::string_view text = call.input.empty() ? std::string_view("{}") : std::string_view(call.input);
  if (!json_text_type(text)) {
    write_string(w, text);
  } else {
    write_raw(w, text);
  }
}

bool has_provider_fields(const Block& block) {
  return (block.signature && !block.signature->empty()) || !block.cache_control.empty() ||
         block.type == BlockType::redacted_thinking;
}

void write_provider_fields(JsonWriter& w, const Block& block) {
  w.StartObject();
  w.Key("anthropic");
  w.StartObject();
  if (block.signature && !block.signature->empty()) {
    w.Key("signature");
    write_string(w, *block.signature);
  }
  if (block.type == BlockType::redacted_thinking) {
    w.Key("redactedData");
    write_string(w, block.text);
  }
  if (!block.cache_control.empty()) {
    w.Key("cacheControl");
    write_raw(w, block.cache_control);
  }
  w.EndObject();
  w.EndObject();
}

namespace {

std::string json_text(const JsonValue& value) {
  return value.IsString() ? std::string(view_of(value)) : to_json(value);
}

void decode_output_part(const JsonValue& value, const std::string& path,
                        const std::shared_ptr<const Source>& owner, Block& block) {
  auto type = begin_block(value, path, owner, block, "a tool output part (an object)");
  if (!type) {
    return;
  }
  auto media_type = optional_string(value, "mediaType", path).value_or("");
  if (*type == "text") {
    block.type = BlockType::text;
    block.text = std::string(required_string(value, "text", path, "text part"));
  } else if (*type == "media" || *type == "image-data" || *type == "file-data") {
    block.type = media_block_type(media_type);
    block.source.type = MediaSource::Type::base64;
    block.source.data = std::string(required_string(value, "data", path, "media part"));
    block.source.media_type = std::string(media_type);
    block.name = std::string(optional_string(value, "filename", path).value_or(""));
  } else if (*type == "image-url" || *type == "file-url") {
    block.type = *type == "image-url" ? BlockType::image : BlockType::file;
    block.source = MediaSource::from_url(required_string(value, "url", path, "URL part"));
  } else {
    block.type = BlockType::unknown;
    return;
  }
  block.cache_control = anthropic_cache_control(find_member(value, "providerOptions"));
}

}  // namespace

void decode_output(const JsonValue& output, const std::string& path,
                   const std::shared_ptr<const Source>& owner, Content& content,
                   std::optional<bool>& is_error) {
  if (!output.IsObject()) {
    // Version 4's `result` and anything older: a value.
    content = output_value_content(output);
    return;
  }
  auto type = required_string(output, "type", path, "tool output");
  const JsonValue* value = find_member(output, "value");
  content.form = Content::Form::string;
  if (type == "content") {
    if (value == nullptr || !value->IsArray()) {
      wrong_type(member_path(path, "value"), "a list of output parts",
                 value != nullptr ? *value : output);
    }
    decode_content_list(value, member_path(path, "value"), owner, content, decode_output_part,
                        "a list of output parts");
  } else if (type == "execution-denied") {
    is_error = true;
    content.text = std::string(optional_string(output, "reason", path).value_or(""));
  } else {
    if (value == nullptr) {
      throw DecodeError(path, fmt::format("tool output of type \"{}\" has no \"value\"", type));
    }
    content.text = json_text(*value);
    if (type == "error-text" || type == "error-json") {
      is_error = true;
    } else if (type == "json" && value->IsString()) {
      content.text = to_json(*value);  // a JSON string stays one
    }
  }
}

Content output_value_content(const JsonValue& output) {
  Content content;
  content.form = Content::Form::string;
  if (!output.IsNull()) {
    content.text = json_text(output);
  }
  return content;
}

std::string_view ui_tool_name(const JsonValue& part) {
  auto type = string_member(part, "type").value_or("");
  if (type.starts_with("tool-") && type != "tool-invocation") {
    return type.substr(5);
  }
  return string_member(part, "toolName").value_or("");
}

}  // namespace ai_sdk

namespace {

using namespace ai_sdk;

// --- Detection ---

constexpr std::array<std::string_view, 4> k_roles = {"system", "user", "assistant", "tool"};

bool one_of_roles(std::string_view role) {
  return std::find(k_roles.begin(), k_roles.end(), role) != k_roles.end();
}

int sniff_ui_part(const JsonValue& part) {
  if (!part.IsObject()) {
    return -1;
  }
  auto type = string_member(part, "type");
  if (!type) {
    return -1;  // Gemini's parts have no type
  }
  if (type->starts_with("tool-") || *type == "dynamic-tool" || *type == "step-start" ||
      type->starts_with("source-") || type->starts_with("data-")) {
    return 5;
  }
  if (*type == "text" || *type == "reasoning") {
    return 2;
  }
  if (*type == "file") {
    return find_member(part, "url") != nullptr ? 3 : -1;
  }
  return -1;
}

int sniff_model_part(const JsonValue& part) {
  if (!part.IsObject()) {
    return -1;
  }
  auto type = string_member(part, "type");
  if (!type) {
    return -1;
  }
  if (*type == "tool-call" || *type == "tool-result") {
    return 10;  // no other format spells them so: outweighs OpenAI's "tool" role
  }
  if (*type == "reasoning" || type->starts_with("tool-approval-") ||
      *type == "redacted-reasoning") {
    return 5;
  }
  if (*type == "image") {
    return find_member(part, "image") != nullptr ? 5 : -1;
  }
  if (*type == "file") {
    return find_member(part, "data") != nullptr && find_member(part, "mediaType") != nullptr ? 5
                                                                                             : -1;
  }
  if (*type == "text") {
    return find_member(part, "providerOptions") != nullptr ? 3 : 0;
  }
  return -1;
}

int sniff_message(const JsonValue& record) {
  if (record.IsArray()) {
    return record.Empty() ? 0 : sniff_each(record, sniff_message);
  }
  if (!record.IsObject()) {
    return 0;
  }
  auto role = string_member(record, "role");
  if (!role) {
    return 0;
  }
  if (!one_of_roles(*role) || find_member(record, "type") != nullptr ||
      find_member(record, "tool_calls") != nullptr ||
      find_member(record, "tool_call_id") != nullptr) {
    return -1;
  }
  if (is_ui_message(record)) {
    if (*role == "tool") {
      return -1;
    }
    int parts = sniff_each(*find_member(record, "parts"), sniff_ui_part);
    return parts < 0 ? -1 : parts + (find_member(record, "id") != nullptr ? 2 : 0);
  }
  const JsonValue* content = find_member(record, "content");
  if (content == nullptr) {
    return -1;
  }
  int score = find_member(record, "providerOptions") != nullptr ? 3 : 0;
  if (content->IsString()) {
    return *role == "tool" ? -1 : score;
  }
  if (!content->IsArray() || *role == "system") {
    return -1;
  }
  int parts = sniff_each(*content, sniff_model_part);
  return parts < 0 ? -1 : score + parts;
}

// --- Decoding: ModelMessage ---

void decode_reasoning(const JsonValue& value, const std::string& path, std::string_view options_key,
                      Block& block) {
  block.type = BlockType::thinking;
  block.text = std::string(optional_string(value, "text", path).value_or(""));
  const JsonValue* options = find_member(value, options_key);
  block.signature = provider_signature(options);
  if (options != nullptr && options->IsObject()) {
    if (const JsonValue* anthropic = find_member(*options, "anthropic");
        anthropic != nullptr && anthropic->IsObject()) {
      if (auto data = string_member(*anthropic, "redactedData")) {
        block.type = BlockType::redacted_thinking;
        block.text = std::string(*data);
      }
    }
  }
}

void decode_model_part(const JsonValue& value, const std::string& path,
                       const std::shared_ptr<const Source>& owner, Block& block) {
  auto type = begin_block(value, path, owner, block, "a content part (an object)");
  if (!type) {
    return;
  }
  if (*type == "text") {
    block.type = BlockType::text;
    block.text = std::string(required_string(value, "text", path, "text part"));
  } else if (*type == "reasoning") {
    decode_reasoning(value, path, "providerOptions", block);
  } else if (*type == "redacted-reasoning") {
    block.type = BlockType::redacted_thinking;
    block.text = std::string(required_string(value, "data", path, "redacted-reasoning part"));
  } else if (*type == "image" || *type == "file") {
    const bool image = *type == "image";
    const JsonValue* data = find_member(value, image ? "image" : "data");
    auto media_type = optional_string(value, "mediaType", path).value_or("");
    if (data == nullptr || !data->IsString()) {
      block.type = BlockType::unknown;  // bytes serialized as an object: kept as they are
      return;
    }
    block.source = media_source(view_of(*data), media_type);
    block.type = image ? BlockType::image : media_block_type(block.source.media_type);
    block.name = std::string(optional_string(value, "filename", path).value_or(""));
  } else if (*type == "tool-call") {
    block.type = BlockType::tool_use;
    block.id = std::string(required_string(value, "toolCallId", path, "tool-call part"));
    block.name = std::string(required_string(value, "toolName", path, "tool-call part"));
    const JsonValue* input = find_member(value, "input");
    if (input == nullptr) {
      input = find_member(value, "args");  // version 4
    }
    if (input != nullptr && !input->IsNull()) {
      block.input_value = input;
    }
  } else if (*type == "tool-result") {
    block.type = BlockType::tool_result;
    block.id = std::string(required_string(value, "toolCallId", path, "tool-result part"));
    block.name = std::string(optional_string(value, "toolName", path).value_or(""));
    const JsonValue* output = find_member(value, "output");
    std::string output_path = member_path(path, "output");
    if (output == nullptr) {
      output = find_member(value, "result");  // version 4
      output_path = member_path(path, "result");
      block.is_error = optional_bool(value, "isError", path);
    }
    if (output == nullptr) {
      throw DecodeError(path, "tool-result part has no \"output\"");
    }
    decode_output(*output, output_path, owner, block.result, block.is_error);
  } else {
    block.type = BlockType::unknown;  // tool approvals, and anything newer
    return;
  }
  block.type_name = std::string(block_type_name(block.type));
  block.cache_control = anthropic_cache_control(find_member(value, "providerOptions"));
}

// --- Decoding: UIMessage ---

// The call, and the result when the part has one, of a UI tool part.
void decode_tool_part(const JsonValue& part, const std::string& path,
                      const std::shared_ptr<const Source>& owner, std::vector<Block>& calls,
                      std::vector<Block>& results) {
  // Version 4 keeps the call in `toolInvocation`.
  const JsonValue* call = &part;
  std::string call_path = path;
  if (const JsonValue* invocation = optional_object(part, "toolInvocation", path)) {
    call = invocation;
    call_path = member_path(path, "toolInvocation");
  }
  Block use;
  use.type = BlockType::tool_use;
  use.type_name = "tool_use";
  use.json = &part;
  use.json_owner = owner;
  use.id = std::string(required_string(*call, "toolCallId", call_path, "tool part"));
  use.name = std::string(call == &part ? ui_tool_name(part)
                                        : optional_string(*call, "toolName", call_path).value_or(""));
  const JsonValue* input = find_member(*call, "input");
  if (input == nullptr) {
    input = find_member(*call, "args");
  }
  if (input != nullptr && !input->IsNull()) {
    use.input_value = input;
  }
  auto state = optional_string(*call, "state", call_path).value_or("");
  Block result;
  result.type = BlockType::tool_result;
  result.type_name = "tool_result";
  result.json = &part;
  result.json_owner = owner;
  result.id = use.id;
  result.name = use.name;
  bool answered = false;
  if (state == "output-available" || state == "result") {
    const JsonValue* output = find_member(*call, state == "result" ? "result" : "output");
    result.result = output != nullptr ? output_value_content(*output) : Content{};
    answered = true;
  } else if (state == "output-error" || state == "output-denied") {
    result.result.form = Content::Form::string;
    result.result.text = std::string(optional_string(*call, "errorText", call_path).value_or(""));
    result.is_error = true;
    answered = true;
  }
  calls.push_back(std::move(use));
  if (answered) {
    results.push_back(std::move(result));
  }
}

std::vector<Block> decode_ui_parts(const JsonValue& parts, const std::shared_ptr<const Source>& owner) {
  std::vector<Block> blocks;
  // A run of tool parts becomes its calls, then its results: one step's calls are
  // answered together.
  std::vector<Block> calls;
  std::vector<Block> results;
  auto flush = [&] {
    for (Block& block : calls) {
      blocks.push_back(std::move(block));
    }
    for (Block& block : results) {
      blocks.push_back(std::move(block));
    }
    calls.clear();
    results.clear();
  };
  for (rapidjson::SizeType i = 0; i < parts.Size(); ++i) {
    const JsonValue& part = parts[i];
    std::string path = "/parts/" + std::to_string(i);  // fmt::format: 6% of a decode
    Block block;
    auto type = begin_block(part, path, owner, block, "a message part (an object)");
    if (type && (*type == "dynamic-tool" || *type == "tool-invocation" ||
                 (type->starts_with("tool-") && !type->starts_with("tool-approval-")))) {
      decode_tool_part(part, path, owner, calls, results);
      continue;
    }
    flush();
    if (!type) {
      blocks.push_back(std::move(block));
      continue;
    }
    if (*type == "text") {
      block.type = BlockType::text;
      block.text = std::string(required_string(part, "text", path, "text part"));
    } else if (*type == "reasoning") {
      decode_reasoning(part, path, "providerMetadata", block);
    } else if (*type == "file") {
      block.source = media_source(required_string(part, "url", path, "file part"),
                                  optional_string(part, "mediaType", path).value_or(""));
      block.type = media_block_type(block.source.media_type);
      block.name = std::string(optional_string(part, "filename", path).value_or(""));
    } else {
      block.type = BlockType::unknown;  // step-start, source-*, data-*, and anything newer
    }
    if (block.type != BlockType::unknown) {
      block.type_name = std::string(block_type_name(block.type));
    }
    blocks.push_back(std::move(block));
  }
  flush();
  return blocks;
}

Role role_of(std::string_view role) {
  if (role == "system") {
    return Role::system;
  }
  if (role == "assistant") {
    return Role::assistant;
  }
  if (role == "tool") {
    return Role::tool;
  }
  return Role::user;
}

// The turns of one message object (`root`, at `path`): one for a ModelMessage,
// one or more for a UIMessage (its tool results make turns of their own).
// A message of `base`'s provenance (its origin, place and source), nothing else:
// cheaper than copying `base`.
Message fresh(const Message& base, const JsonValue* json) {
  Message message;
  message.origin = base.origin;
  message.where = base.where;
  message.source = base.source;
  message.json = json;
  return message;
}

std::vector<Message> decode_turns(const JsonValue& root, const std::string& path,
                                  const Message& base) {
  std::vector<Message> out;
  Message message = fresh(base, &root);
  if (!root.IsObject()) {
    wrong_type(path, "an AI SDK message (an object)", root);
  }
  auto role = optional_string(root, "role", path);
  if (!role) {
    message.kind = Kind::unknown;
    message.role = Role::none;
    // Named by its type where it has one (a UI stream chunk read with --from ai-sdk:
    // "text-delta records"), so that what a target drops is counted by what it was.
    if (auto type = string_member(root, "type")) {
      message.record_type = std::string(*type);
    }
    message.content.form = Content::Form::absent;
    out.push_back(std::move(message));
    return out;
  }
  if (!one_of_roles(*role)) {
    throw DecodeError(member_path(path, "role"),
                      fmt::format("unknown role \"{}\": an AI SDK message is system, user, "
                                  "assistant or tool",
                                  *role));
  }
  message.role = role_of(*role);
  message.record_type = std::string(*role);
  if (!is_ui_message(root)) {
    decode_content_list(find_member(root, "content"), member_path(path, "content"),
                        message.source, message.content, decode_model_part,
                        "a string or a list of content parts");
    // A system message's cacheControl marks its text (the Anthropic provider's system
    // block): the text becomes one block that carries it.
    if (message.role == Role::system && !message.content.is_blocks()) {
      std::string cache = anthropic_cache_control(find_member(root, "providerOptions"));
      if (!cache.empty()) {
        Block text;
        text.type = BlockType::text;
        text.type_name = "text";
        text.text = std::move(message.content.text);
        text.cache_control = std::move(cache);
        message.content.text.clear();
        message.content.form = Content::Form::blocks;
        message.content.blocks.push_back(std::move(text));
      }
    }
    out.push_back(std::move(message));
    return out;
  }
  message.id = std::string(optional_string(root, "id", path).value_or(""));
  message.content.form = Content::Form::blocks;
  std::vector<ToolTurn> turns =
      split_tool_turns(decode_ui_parts(*find_member(root, "parts"), message.source), message.role);
  if (turns.size() <= 1) {
    if (!turns.empty()) {
      message.role = turns[0].role;
      message.content.blocks = std::move(turns[0].blocks);
    }
    out.push_back(std::move(message));
    return out;
  }
  for (std::size_t i = 0; i < turns.size(); ++i) {
    Message turn = fresh(message, &root);
    turn.role = turns[i].role;
    turn.record_type = message.record_type;
    if (i == 0) {
      turn.id = message.id;
    }
    turn.content.form = Content::Form::blocks;
    turn.content.blocks = std::move(turns[i].blocks);
    out.push_back(std::move(turn));
  }
  return out;
}

class AiSdkDecoder final : public Decoder {
 public:
  void decode(Record&& record, std::vector<Message>& out) override {
    const JsonValue& root = record.source->doc;
    if (!root.IsArray() && !root.IsObject()) {
      wrong_type("", "a JSON object", root);
    }
    Message base = begin_message(Format::ai_sdk, record, &root);
    if (root.IsObject()) {
      std::vector<Message> turns = decode_turns(root, "", base);
      if (turns.size() == 1) {
        turns[0].raw = std::move(record.raw);
        out.push_back(std::move(turns[0]));
        return;
      }
      // A UIMessage with tool results: one turn each, in one container.
      contain(std::move(record), turns, out);
      return;
    }
    // A JSON array of messages (what JSON.stringify(messages) saves).
    std::vector<Message> turns;
    for (rapidjson::SizeType i = 0; i < root.Size(); ++i) {
      for (Message& turn : decode_turns(root[i], fmt::format("/{}", i), base)) {
        turns.push_back(std::move(turn));
      }
    }
    contain(std::move(record), turns, out);
  }

 private:
  // The turns, decoded from `record`, as messages of a container of its bytes.
  static void contain(Record&& record, std::vector<Message>& turns, std::vector<Message>& out) {
    Location where = record.where;
    auto container = make_container(Format::ai_sdk, std::move(record), "");
    for (std::size_t slot = 0; slot < turns.size(); ++slot) {
      Message turn = begin_contained(container, where, slot, turns[slot].json);
      turn.kind = turns[slot].kind;
      turn.role = turns[slot].role;
      turn.record_type = std::move(turns[slot].record_type);
      turn.id = std::move(turns[slot].id);
      turn.content = std::move(turns[slot].content);
      out.push_back(std::move(turn));
    }
    container->size = turns.size();
  }
};

}  // namespace

int sniff_ai_sdk(const JsonValue& record) { return sniff_message(record); }

std::unique_ptr<Decoder> make_ai_sdk_decoder() { return make_decoder<AiSdkDecoder>(); }

namespace {

// True when `options`, the providerOptions of `record`, say nothing but the
// cacheControl of a system message, which the decoder puts on its text.
bool only_system_cache_control(const JsonValue& record, const JsonValue& options) {
  if (string_member(record, "role").value_or("") != "system" || !options.IsObject() ||
      options.MemberCount() != 1) {
    return false;
  }
  const JsonValue* anthropic = find_member(options, "anthropic");
  return anthropic != nullptr && anthropic->IsObject() && anthropic->MemberCount() == 1 &&
         find_member(*anthropic, "cacheControl") != nullptr;
}

// True when `options` (a part's providerOptions, or providerMetadata in a UIMessage)
// holds only what the decoder models: an Anthropic signature and redacted data of a
// reasoning part, and where `cache` Anthropic's cacheControl. Another provider's
// signature is read, but written back as Anthropic's.
bool part_options_modelled(const JsonValue& options, bool reasoning, bool cache) {
  if (!options.IsObject()) {
    return options.IsNull();
  }
  for (const auto& provider : options.GetObject()) {
    if (!provider.value.IsObject()) {
      return false;
    }
    for (const auto& member : provider.value.GetObject()) {
      std::string_view key = view_of(member.name);
      const bool anthropic = view_of(provider.name) == "anthropic";
      if (!member.value.IsNull() &&
          !(anthropic && reasoning && (key == "signature" || key == "redactedData")) &&
          !(anthropic && cache && key == "cacheControl")) {
        return false;
      }
    }
  }
  return true;
}

// True when a part of `parts` (a message's content or parts) has provider options or
// metadata the decoder does not model.
bool parts_have_unmodelled_options(const JsonValue& parts, bool ui) {
  if (!parts.IsArray()) {
    return false;
  }
  for (const JsonValue& part : parts.GetArray()) {
    if (!part.IsObject()) {
      continue;
    }
    const bool reasoning = string_member(part, "type").value_or("") == "reasoning";
    for (std::string_view key : {"providerOptions", "providerMetadata", "callProviderMetadata"}) {
      const JsonValue* options = find_member(part, key);
      if (options != nullptr && !part_options_modelled(*options, reasoning, !ui)) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace

void ai_sdk_unmodelled(const Message& message, const std::function<void(std::string_view)>& unheld) {
  if (message.json == nullptr || !message.json->IsObject()) {
    return;
  }
  if (const JsonValue* options = find_member(*message.json, "providerOptions");
      options != nullptr && !only_system_cache_control(*message.json, *options)) {
    unheld("provider options");
  }
  const bool ui = is_ui_message(*message.json);
  const JsonValue* parts = find_member(*message.json, ui ? "parts" : "content");
  if (parts != nullptr && parts_have_unmodelled_options(*parts, ui)) {
    // Of its parts: a UIMessage's are its providerMetadata.
    unheld(ui ? "provider metadata" : "provider options");
  }
  if (parts != nullptr && parts->IsArray()) {
    bool v4 = false;
    bool json_output = false;
    for (const JsonValue& part : parts->GetArray()) {
      if (!part.IsObject()) {
        continue;
      }
      const JsonValue* output = nullptr;
      if (!ui) {
        // A ModelMessage's tool-result part: its json and error-json outputs' values.
        const JsonValue* model_output = find_member(part, "output");
        auto type = model_output != nullptr && model_output->IsObject()
                        ? string_member(*model_output, "type").value_or("")
                        : "";
        output = type == "json" || type == "error-json" ? find_member(*model_output, "value") : nullptr;
      } else if (const JsonValue* call = find_member(part, "toolInvocation");
                 call != nullptr && call->IsObject()) {
        v4 = true;  // version 4 keeps the call and its result in `toolInvocation`
        output = find_member(*call, "result");
      } else {
        output = find_member(part, "output");
      }
      json_output = json_output || (output != nullptr && !output->IsString() && !output->IsNull());
    }
    if (v4) {
      unheld("version 4 tool invocations");  // written again, by convo too, as tool-NAME parts
    }
    if (json_output) {
      unheld("JSON tool outputs");  // a tool result's text elsewhere
    }
  }
  if (auto id = string_member(*message.json, "id"); ui && id && !id->empty()) {
    unheld("message ids");  // a UIMessage's (a UI stream chunk's id names a part)
  }
  if (const JsonValue* metadata = find_member(*message.json, "metadata");
      metadata != nullptr && !metadata->IsNull()) {
    unheld("metadata of UI messages");
  }
}

}  // namespace convo
