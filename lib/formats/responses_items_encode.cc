// Writing Responses items (responses_items.h): a message as the items of an
// openai-responses or codex file, keeping what an item read from one had.
#include <fmt/format.h>

#include <algorithm>

#include "formats/api_error.h"
#include "formats/json_out.h"
#include "formats/mapping.h"
#include "formats/object_writer.h"
#include "formats/responses_items.h"

namespace convo {

namespace {

using DropFn = std::function<void(std::string_view)>;

class ItemWriter {
 public:
  ItemWriter(const Message& m, Format target, const DropFn& drop, Records& values)
      : m_m(m), m_target(target), m_drop(drop), m_values(values),
        m_same(holds_responses_items(m.origin) && m.json != nullptr && m.json->IsObject()) {}

  void run() {
    if (std::string_view bytes = responses_item_bytes(m_m, m_target); !bytes.empty()) {
      m_values.add(bytes);
      return;
    }
    if (m_m.kind != Kind::turn) {
      if (m_same && m_m.origin == m_target) {
        add_item_as_it_was();
      } else if (auto error = m_target == Format::openai_responses
                                  ? error_body_of(m_m, ErrorShape::openai, m_drop)
                                  : std::nullopt) {
        m_values.add(std::move(*error));  // the Responses API's is OpenAI's shape
      } else {
        m_drop(record_noun(m_m));
      }
      return;
    }
    // An item of this family, unchanged, is written as it is (Codex's system role
    // aside): its own bytes when it was a line of its own.
    bool system_to_codex = m_target == Format::codex && m_m.origin != Format::codex &&
                           m_m.role == Role::system;
    // Codex reads only typed items whose content is a list of parts.
    bool easy_to_codex = m_target == Format::codex && m_same &&
                         (!string_member(*m_m.json, "type") ||
                          (find_member(*m_m.json, "content") != nullptr &&
                           find_member(*m_m.json, "content")->IsString()));
    if (m_same && !m_m.modified && !system_to_codex && !easy_to_codex) {
      if (m_m.origin == Format::openai_responses && !m_m.container && !m_m.raw.empty()) {
        m_values.add(m_m.raw.view());
      } else {
        add_item_as_it_was();
      }
      return;
    }
    if (m_m.role == Role::none || m_m.role == Role::custom || m_m.role == Role::function) {
      m_drop(fmt::format("{} messages", m_m.role == Role::custom
                                             ? std::string_view(m_m.custom_role)
                                             : role_name(m_m.role)));
      return;
    }
    if (!m_m.name.empty() && !m_same) {
      m_drop("message names");
    }
    if (!m_m.content.is_blocks()) {
      if (m_m.role == Role::tool) {
        m_drop("tool messages without a call id");
        return;
      }
      write_message({});
      return;
    }
    std::vector<const Block*> parts;
    auto flush = [&] {
      if (!parts.empty()) {
        write_message(parts);
        parts.clear();
      }
    };
    for (const Block& block : m_m.content.blocks) {
      switch (block.type) {
        case BlockType::text:
        case BlockType::image:
        case BlockType::file:
        case BlockType::document:
        case BlockType::audio:
        case BlockType::video:
          if (m_m.role == Role::tool) {
            m_drop(fmt::format("{} in tool messages", blocks_of(block)));
          } else if ((block.type == BlockType::audio || block.type == BlockType::video) &&
                     !file_part_holds(block)) {
            m_drop(fmt::format("{} blocks", block.type_name.empty()
                                                 ? block_type_name(block.type)
                                                 : std::string_view(block.type_name)));
          } else if (part_holdable(block)) {
            if (starts_message_item(block, parts)) {
              flush();
            }
            parts.push_back(&block);
          }
          break;
        case BlockType::tool_use:
          flush();
          write_call(block);
          break;
        case BlockType::tool_result:
          flush();
          write_output(block);
          break;
        case BlockType::thinking:
          flush();
          write_reasoning(block);
          break;
        case BlockType::unknown:
          if (same_block(block) && block.json == m_m.json) {
            flush();
            add_item_as_it_was();
          } else if (same_block(block) && m_m.role != Role::tool) {
            parts.push_back(&block);  // a content part of this family: kept
          } else {
            m_drop(fmt::format("{} blocks", block.type_name.empty()
                                                 ? std::string_view("unknown")
                                                 : std::string_view(block.type_name)));
          }
          break;
        default:
          m_drop(fmt::format("{} blocks", block.type_name.empty()
                                               ? block_type_name(block.type)
                                               : std::string_view(block.type_name)));
          break;
      }
      if (!block.cache_control.empty()) {
        m_drop("cache_control markers");
      }
    }
    flush();
    // An assistant turn of another format with no block (its only block, thinking
    // without a signature, left out by the format it went through) says nothing: an
    // empty message item would stand where the dropped item was. Counted. (A response's
    // message stays: it holds the response's id, model and usage.)
    if (m_m.content.blocks.empty() && m_m.role == Role::assistant &&
        !holds_responses_items(m_m.origin) && !is_response(m_m)) {
      m_drop("empty assistant messages");
    } else if (m_m.content.blocks.empty() && m_m.role != Role::tool) {
      write_message({});
    }
  }

 private:
  bool same_block(const Block& block) const {
    return holds_responses_items(m_m.origin) && block.json != nullptr;
  }

  // The type of the item `block` was decoded from; "" for a block of another family.
  std::string_view item_type(const Block& block) const {
    if (!same_block(block) || !block.json->IsObject()) {
      return "";
    }
    return string_member(*block.json, "type").value_or("");
  }

  // The item's original JSON when this item is the one the message was decoded
  // from (of type `type`), so that its other members stay.
  const JsonValue* original(std::string_view type) const {
    if (!m_same || m_used_original) {
      return nullptr;
    }
    auto was = string_member(*m_m.json, "type").value_or("message");
    return was == type ? m_m.json : nullptr;
  }

  // True when `block` begins a message item of its own, not a part of the one in
  // `parts`: a response body's text after text. The API writes one output_text per
  // message item (its commentary, then its final answer), and a response's message
  // items are read back as the texts of one reply. (A Codex rollout's are turns of
  // their own.)
  bool starts_message_item(const Block& block, const std::vector<const Block*>& parts) const {
    return m_m.role == Role::assistant && is_response(m_m) &&
           m_target == Format::openai_responses && block.type == BlockType::text &&
           !same_block(block) && !parts.empty() && parts.back()->type == BlockType::text;
  }

  // True for audio or video given by URL or file id: an input_file part holds it
  // (file_url, file_id), read back as the file block the reader reads any input_file
  // as. Not inline audio in a message: it would come back a file, not the audio Chat's
  // input_audio holds. (A tool result's, which Chat has no place for, is a file_data
  // input_file of its data URL.)
  static bool file_part_holds(const Block& block) {
    return (block.type == BlockType::audio || block.type == BlockType::video) &&
           (block.source.type == MediaSource::Type::url ||
            block.source.type == MediaSource::Type::file_id);
  }

  bool part_holdable(const Block& block) {
    if (block.type == BlockType::text || same_block(block)) {
      return true;
    }
    if (m_m.role == Role::assistant) {
      m_drop(fmt::format("{} in assistant messages", blocks_of(block)));
      return false;
    }
    const MediaSource& s = block.source;
    bool ok = s.type == MediaSource::Type::base64 || s.type == MediaSource::Type::url ||
              s.type == MediaSource::Type::file_id;
    if (!ok) {
      m_drop(fmt::format("{} blocks", block_type_name(block.type)));
    }
    return ok;
  }

  std::string_view text_type() const {
    return m_m.role == Role::assistant ? "output_text" : "input_text";
  }

  void write_part(JsonWriter& w, const Block& block) {
    if (same_block(block) && block.type == BlockType::unknown) {
      block.json->Accept(w);
      return;
    }
    const JsonValue* was = same_block(block) && block.json->IsObject() ? block.json : nullptr;
    ObjectWriter part(w, was);
    if (block.type == BlockType::text) {
      bool refusal = block.type_name == "refusal" && was != nullptr;
      if (!refusal && !(was != nullptr && find_member(*was, "type") != nullptr)) {
        part.set_string("type", text_type());
      }
      part.set_string(refusal ? "refusal" : "text", block.text);
    } else if (block.type == BlockType::image) {
      part.set_string("type", "input_image");
      if (was == nullptr || !find_member(*was, "file_id")) {
        if (block.source.type == MediaSource::Type::file_id) {
          part.set_string("file_id", block.source.data);
        } else {
          // Written from where the data is, not joined into a URL first.
          part.set("image_url", [source = &block.source](JsonWriter& uw) {
            write_media_url(uw, *source);
          });
          if (auto loss = url_media_type_loss(block); !loss.empty()) {
            m_drop(loss);  // image_url is the URL alone
          }
        }
      }
      // ResponseInputImage requires detail; the API's default is auto.
      if (was == nullptr && m_target == Format::openai_responses) {
        part.set_string("detail", "auto");
      }
    } else {
      part.set_string("type", "input_file");
      if (was == nullptr) {
        if (block.source.type == MediaSource::Type::file_id) {
          part.set_string("file_id", block.source.data);
        } else if (block.source.type == MediaSource::Type::url) {
          part.set_string("file_url", block.source.data);
        } else {
          part.set("file_data", [source = &block.source](JsonWriter& fw) {
            write_media_url(fw, *source);
          });
        }
        if (!block.name.empty()) {
          part.set_string("filename", block.name);
        }
        // A file by URL or id has no place for its media type (a PDF's is read back
        // from its name); a data URL holds it.
        bool by_url = block.source.type == MediaSource::Type::url;
        bool told = block.source.type == MediaSource::Type::base64 ||
                    (block.source.media_type == "application/pdf" &&
                     (responses_names_pdf(block.name) ||
                      (by_url && responses_names_pdf(block.source.data.str()))));
        if (!block.source.media_type.empty() && !told) {
          m_drop("mime types of file blocks");
        }
      }
    }
    part.write();
  }

  void write_message(const std::vector<const Block*>& parts) {
    JsonWriter w(m_values.open());
    const JsonValue* was = original("message");
    m_used_original = m_used_original || was != nullptr;
    ObjectWriter item(w, was);
    if (was == nullptr || find_member(*was, "type") != nullptr || m_target == Format::codex) {
      item.set_string("type", "message");
    }
    // Codex resumes a rollout without its system messages (checked with Codex CLI
    // 0.169.0): there the system prompt is a developer message, as Codex's own are.
    std::string role = m_m.role == Role::tool ? std::string("user") : openai_role_name(m_m);
    if (role == "system" && m_target == Format::codex && m_m.origin != Format::codex) {
      role = "developer";
      m_drop("system message roles");  // what is lost: that it was a system message
    }
    item.set_string("role", role);
    // A string content stays a string, but in Codex, which takes only parts.
    const JsonValue* content =
        was != nullptr && m_target != Format::codex ? find_member(*was, "content") : nullptr;
    item.set("content", [&](JsonWriter& cw) {
      if (!m_m.content.is_blocks()) {
        if (content != nullptr && content->IsString()) {
          write_string(cw, m_m.content.text);
          return;
        }
        cw.StartArray();
        if (!m_m.content.text.empty() || m_m.content.form == Content::Form::string) {
          Block text = Block::make_text(m_m.content.text);
          write_part(cw, text);
        }
        cw.EndArray();
        return;
      }
      if (content != nullptr && content->IsString() && parts.size() == 1 &&
          parts[0]->type == BlockType::text) {
        write_string(cw, parts[0]->text);
        return;
      }
      cw.StartArray();
      for (const Block* block : parts) {
        write_part(cw, *block);
      }
      cw.EndArray();
    });
    item.write();
    m_values.close();
  }

  void write_call(const Block& call) {
    bool custom = item_type(call) == "custom_tool_call";
    std::string_view type = custom ? "custom_tool_call" : "function_call";
    const JsonValue* was = same_block(call) && call.json->IsObject() ? call.json : nullptr;
    if (was != nullptr && was == m_m.json) {
      m_used_original = true;
    }
    JsonWriter w(m_values.open());
    ObjectWriter item(w, was);
    item.set_string("type", type);
    item.set_string("name", call.name);
    if (custom) {
      JsonDoc input;
      std::string text;
      if (parse_object(call.input_json(), input)) {
        text = std::string(string_member(input, "input").value_or(""));
      }
      item.set_string("input", text);
    } else if (!(was != nullptr && call.input.empty() && call.input_value != nullptr)) {
      item.set_string("arguments", call.input_json());
    }
    item.set_string("call_id", call.id);
    item.write();
    m_values.close();
  }

  void write_output(const Block& result) {
    bool custom = item_type(result) == "custom_tool_call_output";
    std::string_view type = custom ? "custom_tool_call_output" : "function_call_output";
    const JsonValue* was = same_block(result) && result.json->IsObject() ? result.json : nullptr;
    if (was != nullptr && was == m_m.json) {
      m_used_original = true;
    }
    if (result.is_error.value_or(false)) {
      m_drop("tool error flags");
    }
    JsonWriter w(m_values.open());
    ObjectWriter item(w, was);
    item.set_string("type", type);
    item.set_string("call_id", result.id);
    const Content& c = result.result;
    if (c.form != Content::Form::absent || was == nullptr) {
      item.set("output", [&](JsonWriter& ow) {
        if (!c.is_blocks()) {
          write_string(ow, c.text);
          return;
        }
        bool all_text = std::all_of(c.blocks.begin(), c.blocks.end(), [](const Block& b) {
          return b.type == BlockType::text;
        });
        // Text in one piece is a string; texts in several pieces stay parts (joined,
        // where one ended and the next began would be lost).
        const JsonValue* output = was != nullptr ? find_member(*was, "output") : nullptr;
        if (all_text && (output == nullptr || !output->IsArray()) && c.blocks.size() <= 1) {
          write_string(ow, c.joined_text());
          return;
        }
        ow.StartArray();
        for (const Block& block : c.blocks) {
          if (block.type == BlockType::text || block.type == BlockType::image ||
              block.type == BlockType::file || block.type == BlockType::document ||
              block.type == BlockType::audio || block.type == BlockType::video ||
              (block.type == BlockType::unknown && same_block(block))) {
            write_part(ow, block);
          } else {
            m_drop(fmt::format("{} in tool results", blocks_of(block)));
          }
        }
        ow.EndArray();
      });
    }
    item.write();
    m_values.close();
  }

  void write_reasoning(const Block& thinking) {
    const JsonValue* was = item_type(thinking) == "reasoning" ? thinking.json : nullptr;
    if (was != nullptr && was == m_m.json) {
      m_used_original = true;
    }
    if (thinking.signature) {
      m_drop("thinking signatures");
    }
    JsonWriter w(m_values.open());
    ObjectWriter item(w, was);
    item.set_string("type", "reasoning");
    // The summary as it was while its text is unchanged (its parts, or reasoning text
    // read from `content`); else the text as one summary part.
    std::string before;
    if (was != nullptr) {
      Message probe;
      probe.source = thinking.json_owner;
      decode_responses_reasoning(*was, "", probe);
      before = probe.content.blocks.front().text;
    }
    if (was == nullptr || before != thinking.text) {
      item.set("summary", [&](JsonWriter& sw) {
        sw.StartArray();
        if (!thinking.text.empty()) {
          sw.StartObject();
          sw.Key("type");
          sw.String("summary_text");
          sw.Key("text");
          write_string(sw, thinking.text);
          sw.EndObject();
        }
        sw.EndArray();
      });
    }
    item.write();
    m_values.close();
  }

  // Adds the message's item, unchanged: the bytes it was read from when they are as
  // written (a Codex line's payload mostly is), else written from its parse.
  void add_item_as_it_was() {
    if (m_m.source != nullptr) {
      if (std::string_view bytes = json_as_read(*m_m.json, m_m.source->parsed_text(), m_m.raw.view());
          !bytes.empty()) {
        m_values.add(bytes);
        return;
      }
    }
    m_values.add(to_json(*m_m.json));
  }

  const Message& m_m;
  Format m_target;
  const DropFn& m_drop;
  Records& m_values;
  bool m_same;
  bool m_used_original = false;
};

}  // namespace

std::string_view responses_item_bytes(const Message& message, Format target) {
  // What ItemWriter::run writes as it is: an unchanged turn of this family (but a
  // system message or an untyped or string-content item going to Codex, which it
  // re-encodes), from a line of its own.
  if (message.kind != Kind::turn || message.modified ||
      message.origin != Format::openai_responses || message.container || message.raw.empty() ||
      message.json == nullptr || !message.json->IsObject()) {
    return {};
  }
  if (target == Format::codex) {
    const JsonValue* content = find_member(*message.json, "content");
    if (message.role == Role::system || !string_member(*message.json, "type") ||
        (content != nullptr && content->IsString())) {
      return {};
    }
  }
  return message.raw;
}

void encode_responses_items(const Message& message, Format target, const DropFn& drop,
                            Records& values) {
  ItemWriter(message, target, drop, values).run();
}

}  // namespace convo
