// The ai-sdk encoder: ModelMessages for messages of every format, UIMessages for
// the messages read as UIMessages (joined back into one when their tool parts were
// read as several turns); with --ai-sdk-shape, UIMessages from every message
// (UiMessageBuilder, ai_sdk_ui_encode.cc) or ModelMessages from UIMessages too.
#include <fmt/format.h>

#include <algorithm>

#include "formats/ai_sdk.h"
#include "formats/ai_sdk_parts.h"
#include "formats/json_out.h"
#include "formats/mapping.h"
#include "formats/object_writer.h"
#include "formats/tool_turns.h"
#include "io/output.h"

namespace convo {

namespace {

using namespace ai_sdk;

// True when `a` and `b` hold the same text and blocks (compared by what convo
// models of them).
bool same_content(const Content& a, const Content& b) {
  if (a.is_blocks() != b.is_blocks()) {
    return false;
  }
  if (!a.is_blocks()) {
    return a.text == b.text;
  }
  if (a.blocks.size() != b.blocks.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.blocks.size(); ++i) {
    const Block& x = a.blocks[i];
    const Block& y = b.blocks[i];
    if (x.type != y.type || x.text != y.text || x.source.data != y.source.data) {
      return false;
    }
  }
  return true;
}

// True when `block` is given by an OpenAI file id, which a file part's `data` holds:
// the SDK's OpenAI provider sends `data` starting "file-" as a `file_id`.
bool openai_file_id(const Block& block) {
  return block.source.type == MediaSource::Type::file_id && block.source.data.starts_with("file-") &&
         block.type != BlockType::image;
}

class AiSdkEncoder final : public EncoderBase {
 public:
  explicit AiSdkEncoder(LossReport& loss)
      : EncoderBase(Format::ai_sdk, loss),
        m_ui([this](std::string_view what, const Message& m) { drop(what, m); }),
        m_ui_side([this](std::string_view what, const Message& m) { drop(what, m); }) {}

  void configure(const EncodeOptions& options) override {
    EncoderBase::configure(options);
    m_shape = options.ai_sdk_shape;
  }

 protected:
  // A message read in the other shape than the one asked for.
  bool reshapes(const Message& message) const override {
    if (m_shape == AiSdkShape::as_read || message.origin != Format::ai_sdk ||
        message.json == nullptr || !message.json->IsObject() || message.kind != Kind::turn ||
        message.role == Role::none) {
      return false;
    }
    return is_ui_message(*message.json) != (m_shape == AiSdkShape::ui);
  }

  void encode(const Message& message, Records& values) override {
    if (!m_results.empty() && !joins_results(message)) {
      drain(values);
    }
    const bool reshaped = reshapes(message);
    if (reshaped && message.json != m_unmodelled_json) {
      // What the other shape has no place for (drop_unheld counts it for messages of
      // other formats): a UIMessage's id and metadata, a ModelMessage's providerOptions.
      m_unmodelled_json = message.json;
      ai_sdk_unmodelled(message, [&](std::string_view what) {
        // A UIMessage has an id, and holds a json output's value as it is; a
        // ModelMessage's want of an id is counted below, as for other formats.
        if (what != "message ids" && (m_shape == AiSdkShape::model || what != "JSON tool outputs")) {
          drop(what, message);
        }
      });
    }
    const JsonValue* original = same_format(message) && !reshaped ? message.json : nullptr;
    if (m_shape == AiSdkShape::ui && (original == nullptr || !is_ui_message(*original))) {
      encode_ui(message, original, values);
      return;
    }
    m_ui_side.flush(values);
    m_ui.flush(values);
    if (message.kind != Kind::turn || message.role == Role::none) {
      if (original != nullptr) {
        values.add(to_json(*original));
      } else {
        drop(record_noun(message), message);
      }
      return;
    }
    if (original != nullptr && is_ui_message(*original)) {
      values.add(ui_message(original, {&message}));
      return;
    }
    if (drops_role(message)) {
      return;
    }
    if (!message.id.empty() && format_info(message.origin).holds_message_ids) {
      drop("message ids", message);  // a ModelMessage has none (elsewhere the origin counts them)
    }
    m_tool_names.note(message);
    if (joins_results(message)) {
      // Held: the results of one step's calls are one tool message, as the SDK writes
      // them (response.messages), also when they come a message per result (OpenAI's).
      append_parts(m_results, message, "tool", message.content);
      return;
    }
    switch (message.role) {
      case Role::system:
      case Role::developer:
        values.add(system_message(message, original));
        return;
      case Role::tool:
        push_model_message(values, message, original, "tool", message.content);
        return;
      case Role::assistant:
        push_model_message(values, message, original, "assistant", message.content);
        return;
      default:
        break;
    }
    // A user message with tool results (Anthropic's way): a tool message with the
    // results, then the user message with the rest.
    Content results;
    results.form = Content::Form::blocks;
    Content rest;
    rest.form = message.content.form;
    rest.text = message.content.text;
    for (const Block& block : message.content.blocks) {
      (block.type == BlockType::tool_result ? results : rest).blocks.push_back(block);
    }
    if (!results.blocks.empty()) {
      push_model_message(values, message, nullptr, "tool", results);
      if (rest.blocks.empty()) {
        return;
      }
    }
    push_model_message(values, message, results.blocks.empty() ? original : nullptr, "user", rest);
  }

  // Appends the ModelMessage `model_message` writes, unless every block of
  // `content` was one it has no part for (counted): no empty message, which would
  // read back as a turn of its own.
  void push_model_message(Records& values, const Message& m,
                          const JsonValue* original, std::string_view role,
                          const Content& content) {
    std::string value = model_message(m, original, role, content);
    if (!value.empty()) {
      values.add(std::move(value));
    }
  }

  // The tool results held: one tool message; the UIMessage being built.
  void drain(Records& values) override {
    m_ui_side.flush(values);
    m_ui.flush(values);
    if (m_results.empty()) {
      return;
    }
    values.add(fmt::format(R"({{"role":"tool","content":[{}]}})", m_results));
    m_results.clear();
  }

  // A UIMessage read as several turns, or a JSON array of messages, of which some
  // changed: the turns of each UIMessage join back into it.
  void write_changed_container(const Container& container, std::vector<Message>& held,
                               Output& out) override {
    const JsonValue& root = container.source->doc;
    std::vector<std::string> elements;
    Records values;
    // What is held back (the UIMessage being built from other messages) goes before
    // a UIMessage read as one, and at the end.
    auto add_drained = [&] {
      values.clear();
      drain(values);
      for (std::string_view value : values) {
        elements.emplace_back(value);
      }
    };
    for (std::size_t i = 0; i < held.size();) {
      const JsonValue* json = held[i].json;
      if (json == nullptr || !json->IsObject() || !is_ui_message(*json) || reshapes(held[i])) {
        values_of(held[i], values);
        for (std::string_view value : values) {
          elements.emplace_back(value);
        }
        ++i;
        continue;
      }
      add_drained();
      std::vector<const Message*> turns;
      bool changed = false;
      for (; i < held.size() && held[i].json == json; ++i) {
        turns.push_back(&held[i]);
        changed = changed || held[i].modified;
      }
      elements.push_back(changed ? ui_message(json, turns) : to_json(*json));
    }
    add_drained();
    if (!root.IsArray()) {
      for (const std::string& element : elements) {
        out.write_line(element);
      }
      return;
    }
    std::string array = "[";
    for (const std::string& element : elements) {
      array += array.size() > 1 ? "," : "";
      array += element;
    }
    out.write_line(array + "]");
  }

 private:
  static std::string text_of(rapidjson::StringBuffer& buffer) {
    return std::string(buffer.GetString(), buffer.GetSize());
  }

  // --- ModelMessage ---

  // True when `message`, from another format, holds tool results alone (a tool
  // message, a user message of results): it joins the results held before it.
  bool joins_results(const Message& message) const {
    if (same_format(message) || message.container || message.kind != Kind::turn ||
        format_traits(message.origin).splits_replies ||
        (message.role != Role::tool && message.role != Role::user) || !message.content.is_blocks() ||
        message.content.blocks.empty()) {
      return false;
    }
    return std::all_of(message.content.blocks.begin(), message.content.blocks.end(),
                       [](const Block& b) { return b.type == BlockType::tool_result; });
  }

  // Appends to `parts` (comma-separated) the parts of `content` in a ModelMessage of
  // `role`, counting the blocks it has no part for.
  void append_parts(std::string& parts, const Message& m, std::string_view role,
                    const Content& content) {
    for (const Block& block : content.blocks) {
      if (!admit(fit(m, block, role), [&](std::string_view what) { drop(what, m); })) {
        continue;
      }
      PooledBuffer pooled;
      rapidjson::StringBuffer& buffer = pooled.get();
      JsonWriter writer(buffer);
      write_model_part(writer, m, block, role);
      parts += parts.empty() ? "" : ",";
      parts += text_of(buffer);
    }
  }

  // A system message's content is a string; the cache_control of its last text block
  // is the message's `providerOptions.anthropic.cacheControl`, which the Anthropic
  // provider puts on the system text it makes of it.
  std::string system_message(const Message& m, const JsonValue* original) {
    std::string text;
    std::string cache_control;
    if (m.content.is_blocks()) {
      for (const Block& block : m.content.blocks) {
        if (block.type != BlockType::text) {
          drop(fmt::format("{} in system messages", blocks_of(block)), m);
          continue;
        }
        text += block.text;
        if (!cache_control.empty()) {
          drop("cache_control markers", m);  // one marker per system message
        }
        cache_control = block.cache_control;
      }
    } else {
      text = m.content.text;
    }
    PooledBuffer pooled;
    rapidjson::StringBuffer& buffer = pooled.get();
    JsonWriter writer(buffer);
    ObjectWriter object(writer, original);
    object.set_string("role", "system").set_string("content", text);
    if (!cache_control.empty()) {
      object.set("providerOptions", [cache_control](JsonWriter& w) {
        w.StartObject();
        w.Key("anthropic");
        w.StartObject();
        w.Key("cacheControl");
        write_raw(w, cache_control);
        w.EndObject();
        w.EndObject();
      });
    }
    object.write();
    return text_of(buffer);
  }

  std::string model_message(const Message& m, const JsonValue* original, std::string_view role,
                            const Content& content) {
    PooledBuffer pooled;
    rapidjson::StringBuffer& buffer = pooled.get();
    JsonWriter writer(buffer);
    ObjectWriter object(writer, original);
    object.set_string("role", role);
    std::vector<const Block*> parts;  // outlives object.write(), which writes them
    if (!content.is_blocks()) {
      object.set_string("content", content.form == Content::Form::string
                                       ? std::string_view(content.text)
                                       : std::string_view());
    } else {
      for (const Block& block : content.blocks) {
        if (admit(fit(m, block, role), [&](std::string_view what) { drop(what, m); })) {
          parts.push_back(&block);
        }
      }
      if (parts.empty() && !content.blocks.empty()) {
        return {};
      }
      object.set("content", [&](JsonWriter& w) {
        w.StartArray();
        for (const Block* block : parts) {
          write_model_part(w, m, *block, role);
        }
        w.EndArray();
      });
    }
    object.write();
    return text_of(buffer);
  }

  // True when `block` is written as the JSON it was read from: a ModelMessage's part,
  // written as one.
  bool own_json(const Message& m, const Block& block) const {
    return keeps_own_json(m, block, Format::ai_sdk) && !reshapes(m);
  }

  // Whether `block` has a part in a ModelMessage of `role`, and what it loses there.
  BlockFit fit(const Message& m, const Block& block, std::string_view role) const {
    BlockFit out;
    if (own_json(m, block)) {
      return out;
    }
    switch (block.type) {
      case BlockType::text:
        return out;
      case BlockType::thinking:
      case BlockType::redacted_thinking:
        return role == "assistant" ? out
                                   : out.dropping(fmt::format("{} in {} messages", blocks_of(block), role));
      case BlockType::tool_use:
        return role == "assistant" ? out : out.dropping(fmt::format("tool calls in {} messages", role));
      case BlockType::tool_result:
        return role == "user" ? out.dropping("tool results in user messages") : out;
      case BlockType::image:
      case BlockType::audio:
      case BlockType::video:
      case BlockType::file:
      case BlockType::document:
        if (role == "tool") {
          return out.dropping(fmt::format("{} in tool messages", blocks_of(block)));
        }
        if (block.source.type == MediaSource::Type::url ||
            block.source.type == MediaSource::Type::base64 ||
            block.source.type == MediaSource::Type::text || openai_file_id(block)) {
          return out;
        }
        return out.dropping(fmt::format("{} blocks given by file id", block_type_name(block.type)));
      default:
        return out.dropping(blocks_of(block));
    }
  }

  void write_model_part(JsonWriter& w, const Message& m, const Block& block, std::string_view role) {
    if (own_json(m, block) && block.json->IsObject()) {
      ObjectWriter object(w, block.json);
      switch (block.type) {
        case BlockType::text:
        case BlockType::thinking:
          object.set_string("text", block.text);
          break;
        case BlockType::tool_use:
          object.set_string("toolCallId", block.id).set_string("toolName", block.name);
          if (!block.input.empty()) {
            object.set(find_member(*block.json, "args") != nullptr ? "args" : "input",
                       [&block](JsonWriter& iw) { write_input(iw, block); });
          }
          break;
        case BlockType::tool_result:
          object.set_string("toolCallId", block.id);
          if (!unchanged_output(block)) {
            object.remove("result").remove("isError");
            object.set("output", [&](JsonWriter& ow) { write_output(ow, m, block); });
          }
          break;
        default:
          break;
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
      case BlockType::redacted_thinking:
        w.String("reasoning");
        w.Key("text");
        write_string(w, block.type == BlockType::thinking ? std::string_view(block.text)
                                                          : std::string_view());
        break;
      case BlockType::tool_use:
        w.String("tool-call");
        w.Key("toolCallId");
        write_string(w, block.id);
        w.Key("toolName");
        write_string(w, block.name);
        w.Key("input");
        write_input(w, block);
        break;
      case BlockType::tool_result:
        w.String("tool-result");
        w.Key("toolCallId");
        write_string(w, block.id);
        w.Key("toolName");
        write_string(w, m_tool_names.name_for(block));
        w.Key("output");
        write_output(w, m, block);
        break;
      default: {
        // Media: an image part in user messages (one without a file name), a file part
        // elsewhere; a plain-text document is a text/plain file of its bytes, which the
        // Anthropic provider sends as a text document again.
        std::string data = block.source.type == MediaSource::Type::url || openai_file_id(block)
                               ? block.source.data.str()
                               : block.source.base64_data();
        std::string media_type = block.source.media_type;
        if (media_type.empty() && block.source.type == MediaSource::Type::text) {
          media_type = "text/plain";
        }
        if (block.type == BlockType::image && role == "user" && block.name.empty()) {
          w.String("image");
          w.Key("image");
          write_string(w, data);
          if (!media_type.empty()) {
            w.Key("mediaType");
            write_string(w, media_type);
          }
          break;
        }
        if (media_type.empty()) {
          media_type = file_part_media_type(block);
        }
        w.String("file");
        w.Key("data");
        write_string(w, data);
        w.Key("mediaType");
        write_string(w, media_type);
        if (!block.name.empty()) {  // an image with a name too: ImagePart has no place for it
          w.Key("filename");
          write_string(w, block.name);
        }
        break;
      }
    }
    if (has_provider_fields(block)) {
      w.Key("providerOptions");
      write_provider_fields(w, block);
    }
    w.EndObject();
  }

  // True when a tool-result part's output, read again, is what `block` holds now.
  static bool unchanged_output(const Block& block) {
    const JsonValue* output = find_member(*block.json, "output");
    if (output == nullptr) {
      output = find_member(*block.json, "result");
    }
    if (output == nullptr) {
      return false;
    }
    Content content;
    std::optional<bool> is_error =
        find_member(*block.json, "output") == nullptr ? block.is_error : std::nullopt;
    try {
      decode_output(*output, "", block.json_owner, content, is_error);
    } catch (const DecodeError&) {
      return false;
    }
    return same_content(content, block.result) && is_error == block.is_error;
  }

  void write_output(JsonWriter& w, const Message& m, const Block& result) {
    const Content& content = result.result;
    const bool error = result.is_error.value_or(false);
    bool all_text = true;  // and no cache_control: a text output has no place for it
    for (const Block& block : content.blocks) {
      all_text = all_text && block.type == BlockType::text && block.cache_control.empty();
    }
    // Several texts are a `content` output's text parts, which keep their boundaries;
    // an error's (an error-text output holds one text) are joined.
    const bool texts = content.is_blocks() && content.blocks.size() > 1;
    w.StartObject();
    w.Key("type");
    if (!content.is_blocks() || (all_text && (!texts || error))) {
      if (all_text && texts) {
        drop("text block boundaries in tool results", m);
      }
      w.String(error ? "error-text" : "text");
      w.Key("value");
      write_string(w, content.is_blocks() ? content.joined_text() : content.text);
      w.EndObject();
      return;
    }
    if (error) {
      drop("tool error flags", m);
    }
    w.String("content");
    w.Key("value");
    w.StartArray();
    for (const Block& block : content.blocks) {
      if (block.type == BlockType::text) {
        w.StartObject();
        w.Key("type");
        w.String("text");
        w.Key("text");
        write_string(w, block.text);
        if (!block.cache_control.empty()) {
          w.Key("providerOptions");
          write_provider_fields(w, block);
        }
        w.EndObject();
      } else if (block.source.type == MediaSource::Type::base64) {
        // image-data and file-data: the SDK's spelling since "media" was deprecated.
        w.StartObject();
        w.Key("type");
        w.String(block.type == BlockType::image ? "image-data" : "file-data");
        w.Key("data");
        write_string(w, block.source.data);
        w.Key("mediaType");
        write_string(w, block.source.media_type.empty() ? "application/octet-stream"
                                                        : block.source.media_type);
        if (block.type != BlockType::image && !block.name.empty()) {
          w.Key("filename");  // file-data's own (LanguageModelV3ToolResultOutput)
          write_string(w, block.name);
        }
        w.EndObject();
      } else if (block.source.type == MediaSource::Type::url) {
        w.StartObject();
        w.Key("type");
        w.String(block.type == BlockType::image ? "image-url" : "file-url");
        w.Key("url");
        write_string(w, block.source.data);
        w.EndObject();
      } else {
        drop(fmt::format("{} in tool results", blocks_of(block)), m);
      }
    }
    w.EndArray();
    w.EndObject();
  }

  // --- UIMessage ---

  // One UIMessage from `turns` (the turns its parts were read as), patched into
  // `original`: a tool part is written with the result that answers it.
  std::string ui_message(const JsonValue* original, const std::vector<const Message*>& turns) {
    const Message& m = *turns.front();
    std::vector<const Block*> blocks;
    for (const Message* turn : turns) {
      for (const Block& block : turn->content.blocks) {
        blocks.push_back(&block);
      }
    }
    auto result_for = [&](const Block& call) -> const Block* {
      for (const Block* block : blocks) {
        if (block->type == BlockType::tool_result && block->id == call.id) {
          return block;
        }
      }
      return nullptr;
    };
    PooledBuffer pooled;
    rapidjson::StringBuffer& buffer = pooled.get();
    JsonWriter writer(buffer);
    ObjectWriter object(writer, original);
    if (m.modified && m.role != Role::tool) {
      object.set_string("role", m.role == Role::system   ? "system"
                                : m.role == Role::user ? "user"
                                                       : "assistant");
    }
    object.set("parts", [&](JsonWriter& w) {
      w.StartArray();
      for (const Block* block : blocks) {
        if (block->type == BlockType::tool_result) {
          bool answered = false;
          for (const Block* call : blocks) {
            answered = answered || (call->type == BlockType::tool_use && call->id == block->id);
          }
          if (!answered) {
            drop("tool results without their calls", m);
          }
          continue;
        }
        write_ui_part(w, m, *block, block->type == BlockType::tool_use ? result_for(*block) : nullptr);
      }
      w.EndArray();
    });
    object.write();
    return text_of(buffer);
  }

  void write_ui_part(JsonWriter& w, const Message& m, const Block& block, const Block* result) {
    const bool own = keeps_own_json(m, block, Format::ai_sdk) && block.json->IsObject();
    if (block.type == BlockType::tool_use) {
      write_ui_tool(w, m, block, result, own);
      return;
    }
    if (own) {
      ObjectWriter object(w, block.json);
      if (block.type == BlockType::text || block.type == BlockType::thinking) {
        object.set_string("text", block.text);
      }
      object.write();
      return;
    }
    switch (block.type) {
      case BlockType::text:
      case BlockType::thinking:
        w.StartObject();
        w.Key("type");
        w.String(block.type == BlockType::text ? "text" : "reasoning");
        w.Key("text");
        write_string(w, block.text);
        w.EndObject();
        return;
      case BlockType::image:
      case BlockType::audio:
      case BlockType::video:
      case BlockType::file:
      case BlockType::document:
        if (block.source.type == MediaSource::Type::url ||
            block.source.type == MediaSource::Type::base64 ||
            block.source.type == MediaSource::Type::text) {
          w.StartObject();
          w.Key("type");
          w.String("file");
          w.Key("mediaType");
          write_string(w, file_part_media_type(block));
          w.Key("url");
          write_string(w, block.source.to_url());
          if (!block.name.empty()) {
            w.Key("filename");
            write_string(w, block.name);
          }
          w.EndObject();
          return;
        }
        drop(fmt::format("{} blocks given by file id", block_type_name(block.type)), m);
        return;
      default:
        drop(blocks_of(block), m);
        return;
    }
  }

  void write_ui_tool(JsonWriter& w, const Message& m, const Block& call, const Block* result,
                     bool own) {
    const JsonValue* invocation = own ? find_member(*call.json, "toolInvocation") : nullptr;
    if (invocation != nullptr) {
      // Version 4: the invocation is kept as it was read, its input patched.
      ObjectWriter object(w, call.json);
      object.set("toolInvocation", [&](JsonWriter& iw) {
        ObjectWriter inner(iw, invocation);
        if (!call.input.empty()) {
          inner.set(find_member(*invocation, "args") != nullptr ? "args" : "input",
                    [&call](JsonWriter& vw) { write_input(vw, call); });
        }
        inner.write();
      });
      object.write();
      return;
    }
    ObjectWriter object(w, own ? call.json : nullptr);
    if (!own) {
      object.set_string("type", "dynamic-tool").set_string("toolName", call.name);
    }
    object.set_string("toolCallId", call.id);
    if (!own || !call.input.empty()) {
      object.set("input", [&call](JsonWriter& iw) { write_input(iw, call); });
    }
    if (result == nullptr) {
      if (!own) {
        object.set_string("state", "input-available");
      }
    } else if (result->is_error.value_or(false)) {
      object.set_string("state", "output-error").set_string("errorText", result->result.joined_text());
    } else {
      const JsonValue* output = own ? find_member(*call.json, "output") : nullptr;
      bool same = output != nullptr && same_content(output_value_content(*output), result->result);
      if (!same) {
        object.set_string("state", "output-available");
        object.set_string("output", result->result.is_blocks() ? result->result.joined_text()
                                                                : result->result.text);
        for (const Block& block : result->result.blocks) {
          if (block.type != BlockType::text) {
            drop(fmt::format("{} in tool results", blocks_of(block)), m);
          }
        }
      }
    }
    object.write();
  }

  // Neither shape holds a legacy function message or a custom role: counted, and
  // true. A message's name, which neither holds either, is counted.
  bool drops_role(const Message& message) {
    if (message.role == Role::function || message.role == Role::custom) {
      drop(message.role == Role::custom ? "messages with custom roles" : "legacy function messages",
           message);
      return true;
    }
    if (!message.name.empty()) {
      drop("message names", message);
    }
    return false;
  }

  // --- UIMessage from any format (--ai-sdk-shape ui) ---

  void encode_ui(const Message& message, const JsonValue* original, Records& values) {
    if (message.kind != Kind::turn || message.role == Role::none) {
      if (original != nullptr) {
        m_ui.flush(values);
        values.add(to_json(*original));
      } else {
        drop(record_noun(message), message);
      }
      return;
    }
    if (drops_role(message)) {
      return;
    }
    // A subagent's messages (Claude Code's sidechain) come between a Task call and
    // its result: they are UIMessages of their own, written while the turn that
    // called the subagent waits for its result.
    if (message.meta->is_sidechain) {
      m_ui_side.add(message, values);
      return;
    }
    m_ui_side.flush(values);  // the subagent is done when the main chain goes on
    m_ui.add(message, values);
  }

  AiSdkShape m_shape = AiSdkShape::as_read;
  UiMessageBuilder m_ui;
  UiMessageBuilder m_ui_side;
  const JsonValue* m_unmodelled_json = nullptr;  // whose unmodelled members were counted
  ToolNames m_tool_names;
  std::string m_results;  // the tool-result parts of a run of result messages
};

}  // namespace

std::unique_ptr<Encoder> make_ai_sdk_encoder(LossReport& loss) {
  return make_encoder<AiSdkEncoder>(loss);
}

}  // namespace convo
