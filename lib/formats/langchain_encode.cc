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
  void encode(const Message& message, Records& values) override {
    Original original;
    if (same_format(message)) {
      original.outer = message.json;
      original.at = locate(*message.json, "");
    }
    if (message.kind == Kind::remove) {
      values.add(record(original, "remove", [&](ObjectWriter& d, bool full) {
        set_common(d, message, full);
        if (full) {
          d.set_string("content", "");
        }
      }));
      return;
    }
    if (message.kind != Kind::turn || message.role == Role::none) {
      if (original.outer != nullptr) {
        values.add(to_json(*original.outer));
      } else {
        drop(record_noun(message), message);
      }
      return;
    }
    m_tool_names.note(message);
    // Tool results become tool messages, one per result, ahead of the rest of the
    // message (LangChain, like OpenAI, has a message per tool result).
    auto rest = split_off_results(message, [&](const Block& result) {
      values.add(tool_message(message, result, original));
    });
    if (rest) {
      values.add(plain_message(message, original, *rest));
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
    if (std::string lost = assistant_calls_only(m, type, split); !lost.empty()) {
      drop(lost, m);
    }
    const std::vector<const Block*>& calls = split.calls;
    const std::vector<const Block*>& invalid = split.invalid;
    const std::vector<const Block*>& parts = split.content;
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
        if (!m.usage->empty()) {
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
      const bool same = keeps_own_json(m, *call, Format::langchain) &&
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
    const bool same = keeps_own_json(m, block, Format::langchain);
    ObjectWriter object(w, same ? block.json : nullptr);
    if (!same) {
      auto optional = [&](std::string_view key, std::string_view value) {
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
      if (admit(fit(m, *block), drop_block)) {
        write_block(w, m, *block);
      }
    }
    w.EndArray();
  }

  // Whether `block` has a LangChain form, and what it loses in it: a block without
  // one is lost whole.
  static BlockFit fit(const Message& m, const Block& block) {
    BlockFit out;
    return has_form(m, block) ? out : out.dropping(blocks_of(block));
  }

  static bool has_form(const Message& m, const Block& block) {
    if (keeps_own_json(m, block, Format::langchain)) {
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
    if (keeps_own_json(m, block, Format::langchain)) {
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
        // OpenAI's image part: what every LangChain chat model reads; a URL's media
        // type needs the standard block's mime_type.
        if ((block.source.type == MediaSource::Type::url && url_media_type_loss(block).empty()) ||
            block.source.type == MediaSource::Type::base64) {
          write_openai_image_part(w, block.source);
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

std::unique_ptr<Encoder> make_langchain_encoder(LossReport& loss) {
  return make_encoder<LangChainEncoder>(loss);
}

}  // namespace convo
