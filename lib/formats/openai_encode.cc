// The openai format's writer: a message as a Chat Completions message (openai.h);
// reading is openai.cc.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>

#include "formats/api_error.h"
#include "formats/json_out.h"
#include "formats/mapping.h"
#include "formats/object_writer.h"
#include "formats/openai.h"
#include "formats/tool_turns.h"

namespace convo {

namespace {

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
    // Counted before the content is written, which may count its own.
    if (block.is_error.value_or(false)) {
      drop("tool error flags", m);
    }
    if (!block.cache_control.empty()) {
      drop("cache_control markers", m);
    }
    JsonWriter writer(values.open());
    if (!(same_format(m) && m.role == Role::tool)) {
      // No original to keep members of: written member by member, as the
      // ObjectWriter below would.
      writer.StartObject();
      write_string_member(writer, "role", "tool");
      write_key(writer, "content");
      write_result_content(writer, m, block.result);
      write_string_member(writer, "tool_call_id", block.id);
      writer.EndObject();
      values.close();
      return;
    }
    ObjectWriter object(writer, m.json);
    object.set_string("role", "tool");
    object.set("content", [&](JsonWriter& w) { write_result_content(w, m, block.result); });
    object.set_string("tool_call_id", block.id);
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
    CallSplit split;  // the calls; the parts and reasoning apart
    std::vector<const Block*>& calls = split.calls;
    std::vector<const Block*> parts;
    std::vector<const Block*> reasoning;
    // Each list's room for every block at its first: one allocation, not one a
    // doubling (a reply of reasoning, text and calls grew three lists by steps).
    auto add = [&blocks](std::vector<const Block*>& list, const Block* block) {
      if (list.capacity() == 0) {
        list.reserve(blocks.size());
      }
      list.push_back(block);
    };
    for (const Block* block : blocks) {
      if (block->type == BlockType::tool_use) {
        add(calls, block);
      } else if (is_openai_reasoning(*block) && m.role == Role::assistant) {
        add(reasoning, block);
      } else if (admit(fit(m, *block), [&](std::string_view what) { drop(what, m); })) {
        add(parts, block);
      }
    }
    if (std::string lost = assistant_calls_only(m, openai_role_name(m), split); !lost.empty()) {
      drop(lost, m);
    }
    if (!blocks.empty() && parts.empty() && calls.empty() && reasoning.empty()) {
      values.cancel();
      return false;
    }
    const bool has_calls = !calls.empty();
    if (!same) {
      write_fresh_message(writer, m, parts, reasoning, calls);
      values.close();
      return true;
    }
    ObjectWriter object(writer, m.json);
    object.set_string("role", openai_role_name(m));
    write_reasoning(object, m.json, reasoning);
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

  // A message of another format (or a fresh one), with no original members to keep,
  // written member by member: what plain_message's ObjectWriter writes for it, in
  // the same order, without the copies and callables it keeps for an original.
  void write_fresh_message(JsonWriter& w, const Message& m, const std::vector<const Block*>& parts,
                           const std::vector<const Block*>& reasoning,
                           const std::vector<const Block*>& calls) {
    w.StartObject();
    write_string_member(w, "role", openai_role_name(m));
    for (std::string_view key : k_openai_reasoning_members) {
      if (auto text = reasoning_text(reasoning, key)) {
        w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
        write_string(w, *text);
      }
    }
    write_key(w, "content");
    write_content(w, m, parts, !calls.empty());
    if (!m.name.empty()) {
      write_string_member(w, "name", m.name);
    }
    if (!calls.empty()) {
      write_key(w, "tool_calls");
      w.StartArray();
      for (const Block* call : calls) {
        write_tool_call(w, m, *call);
      }
      w.EndArray();
    }
    w.EndObject();
  }

  // Puts reasoning blocks back in the members they came from (several blocks of one
  // member, after merge-runs, joined by a newline). A member that was a block in
  // `original` and has none now (a stage removed it) is left out; one that never was
  // a block (empty, or not a string) stays as it was.
  static void write_reasoning(ObjectWriter& object, const JsonValue* original,
                              const std::vector<const Block*>& reasoning) {
    for (std::string_view key : k_openai_reasoning_members) {
      if (auto text = reasoning_text(reasoning, key)) {
        object.set(key, [text = std::move(*text)](JsonWriter& w) { write_string(w, text); });
      } else if (auto was = original ? string_member(*original, key) : std::nullopt;
                 was && !was->empty()) {
        object.remove(key);
      }
    }
  }

  // The text of the reasoning blocks of member `key`, joined by newlines; nullopt
  // when none is.
  static std::optional<std::string> reasoning_text(const std::vector<const Block*>& reasoning,
                                                   std::string_view key) {
    std::optional<std::string> text;
    for (const Block* block : reasoning) {
      if (block->type_name == key) {
        if (text) {
          *text += '\n';
        } else {
          text.emplace();
        }
        *text += block->text;
      }
    }
    return text;
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
      // At most one text (was_text, fresh_text): written from its block, not a copy.
      if (kept.empty() || kept.front()->text.empty()) {
        if (has_calls || (original != nullptr && original->IsNull())) {
          w.Null();
        } else {
          write_string(w, std::string_view());
        }
      } else {
        write_string(w, kept.front()->text);
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
    if (!call.cache_control.empty()) {
      drop("cache_control markers", m);
    }
    if (!keeps_own_json(m, call, Format::openai)) {
      // No original call to keep members of: member by member, as below.
      w.StartObject();
      write_string_member(w, "id", call.id);
      write_string_member(w, "type", "function");
      write_key(w, "function");
      w.StartObject();
      write_string_member(w, "name", call.name);
      write_key(w, "arguments");
      write_arguments(w, call);
      w.EndObject();
      w.EndObject();
      return;
    }
    const JsonValue* function = find_member(*call.json, "function");
    ObjectWriter object(w, call.json);
    object.set_string("id", call.id);
    object.set_string("type", "function");
    object.set("function", [&](JsonWriter& fw) {
      ObjectWriter f(fw, function);
      f.set_string("name", call.name);
      if (!(call.input.empty() && call.input_value != nullptr)) {
        // The block itself, not a copy of its text (a patch, for Codex's custom
        // calls): it outlives `f`, which is written below.
        const Block* input = &call;
        f.set("arguments", [input](JsonWriter& aw) { write_arguments(aw, *input); });
      }
      f.write();
    });
    object.write();
  }

  // A call's input as OpenAI's `arguments`, a JSON string.
  static void write_arguments(JsonWriter& w, const Block& call) {
    if (!call.input.empty()) {
      write_string(w, call.input);
    } else {
      write_string(w, call.input_json());
    }
  }
};


}  // namespace

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

std::unique_ptr<Encoder> make_openai_encoder(LossReport& loss) {
  return make_encoder<OpenAIEncoder>(loss);
}

}  // namespace convo
