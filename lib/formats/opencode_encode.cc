#include "formats/opencode.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <cstdio>
#include <ctime>

#include "formats/fields.h"
#include "formats/json_out.h"
#include "formats/mapping.h"
#include "formats/object_writer.h"
#include "formats/opencode_records.h"
#include "formats/opencode_storage.h"
#include "formats/responses_items.h"
#include "formats/tool_turns.h"
#include "io/output.h"

namespace convo {

using opencode::is_bookkeeping_part;
using opencode::is_export;
using opencode::is_message_info;
using opencode::is_with_parts;

namespace {

// --- Times: OpenCode counts milliseconds since 1970; convo keeps ISO 8601. ---

// Milliseconds for an ISO 8601 time ("2025-06-19T05:20:00.000Z", also with a space
// for the T, without Z or fraction: taken as UTC); nullopt when it is not one.
std::optional<std::int64_t> epoch_ms(const std::string& text) {
  std::tm tm{};
  int ms = 0;
  char separator = 0;
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2d%c%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &separator, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &consumed) != 7 ||
      (separator != 'T' && separator != ' ')) {
    return std::nullopt;
  }
  if (text[static_cast<std::size_t>(consumed)] == '.') {
    int digits = 0;
    for (std::size_t i = static_cast<std::size_t>(consumed) + 1;
         i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
      if (digits < 3) {
        ms = ms * 10 + (text[i] - '0');
      }
      ++digits;
    }
    for (; digits < 3; ++digits) {
      ms *= 10;
    }
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<std::int64_t>(timegm(&tm)) * 1000 + ms;
}

// The media type OpenCode must be told for a block given by URL without one: from
// the URL's extension, else the kind's wildcard ("image/*"), which reads back as
// the same kind of block.
std::string mime_of(const Block& block) {
  if (!block.source.media_type.empty()) {
    return block.source.media_type;
  }
  if (block.source.type == MediaSource::Type::text) {
    return "text/plain";
  }
  static constexpr std::pair<std::string_view, std::string_view> k_extensions[] = {
      {".png", "image/png"},  {".jpg", "image/jpeg"},      {".jpeg", "image/jpeg"},
      {".gif", "image/gif"},  {".webp", "image/webp"},     {".pdf", "application/pdf"},
      {".mp3", "audio/mpeg"}, {".wav", "audio/wav"},       {".mp4", "video/mp4"},
      {".txt", "text/plain"}, {".json", "application/json"},
  };
  std::string_view url = block.source.data;
  url = url.substr(0, url.find_first_of("?#"));
  for (const auto& [extension, mime] : k_extensions) {
    if (url.size() > extension.size() && url.substr(url.size() - extension.size()) == extension) {
      return std::string(mime);
    }
  }
  switch (block.type) {
    case BlockType::image:
      return "image/*";
    case BlockType::audio:
      return "audio/*";
    case BlockType::video:
      return "video/*";
    case BlockType::document:
      return "application/pdf";
    default:
      return "application/octet-stream";
  }
}

// --- Encoding ---

class OpenCodeEncoder final : public EncoderBase {
 public:
  explicit OpenCodeEncoder(LossReport& loss) : EncoderBase(Format::opencode, loss) {}

 protected:
  void encode(const Message& message, Records& values) override {
    if (same_format(message) && !message.container) {
      drain(values);
      const JsonValue& json = *message.json;
      if (message.kind == Kind::turn && is_with_parts(json)) {
        values.add(write_message({&message}, &json, find_member(json, "info")));
      } else if (message.kind == Kind::turn && is_message_info(json) &&
                 !message.content.empty()) {
        values.add(write_message({&message}, nullptr, &json));  // a message file, now with parts
      } else {
        values.add(to_json(json));
      }
      return;
    }
    if (message.kind != Kind::turn || message.role == Role::none) {
      drop(record_noun(message), message);
      return;
    }
    // Tool results join the held assistant message whose calls they answer.
    std::vector<Block> results;
    std::vector<Block> rest;
    if (message.content.is_blocks()) {
      for (const Block& block : message.content.blocks) {
        (block.type == BlockType::tool_result ? results : rest).push_back(block);
      }
    }
    if (!results.empty()) {
      Message answers = message;
      answers.role = Role::tool;
      answers.content.blocks.clear();
      for (Block& result : results) {
        if (answers_held_call(result.id)) {
          answers.content.blocks.push_back(std::move(result));
        } else {
          drop("tool results without calls", message);
        }
      }
      if (!answers.content.blocks.empty()) {
        m_held.push_back(std::move(answers));
      }
      if (rest.empty() && message.role != Role::assistant) {
        return;
      }
    }
    // Tool calls made one per message (Responses function_call items) join the held
    // assistant message while none of its results has come.
    bool more_calls = holds_responses_items(message.origin) && results.empty() &&
                      message.role == Role::assistant && message.has_tool_uses() &&
                      !m_held.empty() &&
                      std::all_of(m_held.begin(), m_held.end(),
                                  [](const Message& m) { return m.role == Role::assistant; });
    if (!more_calls) {
      drain(values);
    }
    Message own = message;
    if (!results.empty()) {
      own.content.blocks = std::move(rest);
    }
    switch (own.role) {
      case Role::user:
      case Role::assistant:
        break;
      case Role::tool:
        return;  // nothing left but results
      case Role::system:
      case Role::developer:
        drop("system messages", own);
        return;
      default:
        drop(fmt::format("{} messages", role_name(own.role)), own);
        return;
    }
    if (!own.name.empty()) {
      drop("message names", own);
    }
    if (own.role == Role::assistant && own.has_tool_uses()) {
      m_held.push_back(std::move(own));  // until its results have come
      return;
    }
    values.add(write_message({&own}, nullptr, nullptr));
  }

  void drain(Records& values) override {
    if (m_held.empty()) {
      return;
    }
    std::vector<const Message*> turns;
    for (const Message& message : m_held) {
      turns.push_back(&message);
    }
    values.add(write_message(turns, nullptr, nullptr));
    m_held.clear();
  }

  // Messages split into turns, of which some changed: each message again, with the
  // blocks of its turns as they are now, its bookkeeping parts in place.
  void write_changed_container(const Container& container, std::vector<Message>& held,
                               Output& out) override {
    const JsonValue& root = container.source->doc;
    std::vector<std::string> lines;
    std::size_t i = 0;
    while (i < held.size()) {
      const Message& first = held[i];
      if (first.kind != Kind::turn || first.json == nullptr || !is_with_parts(*first.json)) {
        ++i;  // the session record: the document keeps its info regardless
        continue;
      }
      std::vector<const Message*> turns;
      std::size_t j = i;
      while (j < held.size() && held[j].json == first.json) {
        turns.push_back(&held[j]);
        ++j;
      }
      lines.push_back(write_message(turns, first.json, find_member(*first.json, "info")));
      i = j;
    }
    if (!is_export(root)) {
      for (const std::string& line : lines) {
        out.write_line(line);
      }
      return;
    }
    rapidjson::StringBuffer buffer;
    JsonWriter writer(buffer);
    ObjectWriter document(writer, &root);
    document.set("messages", [&lines](JsonWriter& w) {
      w.StartArray();
      for (const std::string& line : lines) {
        write_raw(w, line);
      }
      w.EndArray();
    });
    document.write();
    out.write_line(std::string_view(buffer.GetString(), buffer.GetSize()));
  }

 private:
  bool answers_held_call(const std::string& id) const {
    for (const Message& message : m_held) {
      for (const Block* use : message.tool_uses()) {
        if (use->id == id) {
          return true;
        }
      }
    }
    return false;
  }

  // One OpenCode message from `turns` (blocks in order; the first gives the info).
  // `original` is the `{"info","parts"}` object they came from, or null; `info` the
  // info to keep, or null to write one from the message.
  std::string write_message(const std::vector<const Message*>& turns, const JsonValue* original,
                            const JsonValue* info) {
    const Message& m = *turns.front();
    std::deque<Block> texts;  // blocks for string contents (stable addresses)
    std::vector<const Block*> blocks;
    std::vector<const Block*> results;
    for (const Message* turn : turns) {
      if (turn->content.is_string() && !turn->content.text.empty()) {
        texts.push_back(Block::make_text(turn->content.text));
        blocks.push_back(&texts.back());
      }
      for (const Block& block : turn->content.blocks) {
        (block.type == BlockType::tool_result ? results : blocks).push_back(&block);
      }
    }
    rapidjson::StringBuffer buffer;
    JsonWriter writer(buffer);
    const JsonValue* parts = original != nullptr ? find_member(*original, "parts") : nullptr;
    ObjectWriter object(writer, original);
    object.set("info", [&](JsonWriter& w) { write_info(w, m, info); });
    object.set("parts", [&](JsonWriter& w) { write_parts(w, m, parts, blocks, results); });
    object.write();
    return std::string(buffer.GetString(), buffer.GetSize());
  }

  void write_info(JsonWriter& w, const Message& m, const JsonValue* info) {
    ObjectWriter object(w, info);
    if (info != nullptr) {
      object.write();  // a stage changes content, not OpenCode's bookkeeping
      return;
    }
    const RecordMeta& e = *m.meta;
    if (!m.id.empty()) {
      object.set_string("id", m.id);
    }
    if (!e.session_id.empty()) {
      object.set_string("sessionID", e.session_id);
    }
    object.set_string("role", m.role == Role::assistant ? "assistant" : "user");
    if (auto ms = epoch_ms(m.timestamp)) {
      object.set("time", [ms](JsonWriter& tw) {
        tw.StartObject();
        tw.Key("created");
        tw.Int64(*ms);
        tw.EndObject();
      });
    }
    if (m.role == Role::assistant) {
      if (!e.model.empty()) {
        object.set_string("modelID", e.model);
      }
      if (m.usage->cost) {
        object.set("cost", [&m](JsonWriter& cw) { cw.Double(*m.usage->cost); });
      }
      if (!m.usage->empty()) {
        object.set("tokens", [&m](JsonWriter& tw) { write_tokens(tw, m.usage); });
      }
      if (!e.stop_reason.empty()) {
        object.set_string("finish", e.stop_reason);
      }
    }
    object.write();
  }

  static void write_tokens(JsonWriter& w, const Usage& u) {
    w.StartObject();
    if (u.total) {
      w.Key("total");
      w.Int64(*u.total);
    }
    w.Key("input");
    w.Int64(u.input.value_or(0));
    w.Key("output");
    w.Int64(u.output.value_or(0));
    w.Key("reasoning");
    w.Int64(u.reasoning.value_or(0));
    w.Key("cache");
    w.StartObject();
    w.Key("read");
    w.Int64(u.cache_read.value_or(0));
    w.Key("write");
    w.Int64(u.cache_write.value_or(0));
    w.EndObject();
    w.EndObject();
  }

  // The parts: one per block (a tool_use with its result), and the original's
  // bookkeeping parts where they were, relative to the parts that remain.
  void write_parts(JsonWriter& w, const Message& m, const JsonValue* parts,
                   const std::vector<const Block*>& blocks, const std::vector<const Block*>& results) {
    w.StartArray();
    std::size_t next = 0;  // original parts before this one are written or gone
    auto bookkeeping_until = [&](std::size_t end) {
      if (parts == nullptr || !parts->IsArray()) {
        return;
      }
      for (; next < end && next < parts->Size(); ++next) {
        const JsonValue& part = (*parts)[static_cast<rapidjson::SizeType>(next)];
        if (auto type = string_member(part, "type"); type && is_bookkeeping_part(*type)) {
          part.Accept(w);
        }
      }
    };
    for (const Block* block : blocks) {
      if (auto index = index_in(parts, block->json)) {
        bookkeeping_until(*index);
        next = std::max(next, *index + 1);
      }
      if (block->type == BlockType::tool_use) {
        const Block* result = nullptr;
        for (const Block* candidate : results) {
          if (candidate->id == block->id) {
            result = candidate;
          }
        }
        write_tool(w, m, *block, result);
      } else if (admit(fit(m, *block), [&](std::string_view what) { drop(what, m); })) {
        write_part(w, m, *block);
      }
    }
    bookkeeping_until(parts != nullptr && parts->IsArray() ? parts->Size() : 0);
    for (const Block* result : results) {
      bool answered = std::any_of(blocks.begin(), blocks.end(), [&](const Block* b) {
        return b->type == BlockType::tool_use && b->id == result->id;
      });
      if (!answered) {
        drop("tool results without calls", m);
      }
    }
    w.EndArray();
  }

  static std::optional<std::size_t> index_in(const JsonValue* parts, const JsonValue* part) {
    if (parts == nullptr || part == nullptr || !parts->IsArray()) {
      return std::nullopt;
    }
    for (rapidjson::SizeType i = 0; i < parts->Size(); ++i) {
      if (&(*parts)[i] == part) {
        return i;
      }
    }
    return std::nullopt;
  }

  // Whether `block` has an OpenCode form, and what it loses in it.
  static BlockFit fit(const Message& m, const Block& block) {
    BlockFit out;
    if (keeps_own_json(m, block, Format::opencode)) {
      return out;
    }
    switch (block.type) {
      case BlockType::text:
      case BlockType::thinking:
        return out;
      case BlockType::image:
      case BlockType::audio:
      case BlockType::video:
      case BlockType::file:
      case BlockType::document:
        if (block.source.type == MediaSource::Type::base64 ||
            block.source.type == MediaSource::Type::url ||
            block.source.type == MediaSource::Type::text) {
          return out;
        }
        // (A plain-text document goes as a data: URL of its bytes.)
        return out.dropping(fmt::format("{} blocks given by file id", block_type_name(block.type)));
      default:
        return out.dropping(blocks_of(block));
    }
  }

  static void write_file(JsonWriter& w, const Block& block) {
    w.StartObject();
    w.Key("type");
    w.String("file");
    w.Key("mime");
    write_string(w, mime_of(block));
    if (!block.name.empty()) {
      w.Key("filename");
      write_string(w, block.name);
    }
    w.Key("url");
    write_string(w, block.source.to_url());
    w.EndObject();
  }

  // A part names its session and message, as OpenCode's own do: where the message has
  // them (another format's session id comes back on each part, not just the message).
  static void set_owner_ids(ObjectWriter& part, const Message& m) {
    if (!m.meta->session_id.empty()) {
      part.set_string("sessionID", m.meta->session_id);
    }
    if (!m.id.empty()) {
      part.set_string("messageID", m.id);
    }
  }

  void write_part(JsonWriter& w, const Message& m, const Block& block) {
    const bool same = keeps_own_json(m, block, Format::opencode);
    if (same && block.type != BlockType::text && block.type != BlockType::thinking) {
      block.json->Accept(w);  // files, agents, subtasks, ...: as they were
      return;
    }
    if (!same && block.type != BlockType::text && block.type != BlockType::thinking) {
      write_file(w, block);
      return;
    }
    ObjectWriter object(w, same ? block.json : nullptr);
    if (!same) {
      set_owner_ids(object, m);
    }
    object.set_string("type", block.type == BlockType::text ? "text" : "reasoning");
    object.set_string("text", block.text);
    if (!same && block.type == BlockType::thinking && block.signature) {
      object.set("metadata", [&block](JsonWriter& mw) {
        mw.StartObject();
        mw.Key("anthropic");
        mw.StartObject();
        mw.Key("signature");
        write_string(mw, *block.signature);
        mw.EndObject();
        mw.EndObject();
      });
    }
    object.write();
  }

  // A tool part from a call and its result (null: not come yet).
  void write_tool(JsonWriter& w, const Message& m, const Block& use, const Block* result) {
    const bool same = keeps_own_json(m, use, Format::opencode);
    const JsonValue* state = same ? find_member(*use.json, "state") : nullptr;
    ObjectWriter object(w, same ? use.json : nullptr);
    if (!same) {
      set_owner_ids(object, m);
    }
    object.set_string("type", "tool");
    object.set_string("callID", use.id);
    object.set_string("tool", use.name);
    object.set("state", [&](JsonWriter& sw) {
      ObjectWriter s(sw, state);
      std::string_view was = state != nullptr ? string_member(*state, "status").value_or("") : "";
      std::string_view status = result == nullptr
                                    ? (was == "running" ? std::string_view("running") : "pending")
                                : result->is_error.value_or(false) ? "error"
                                                                   : "completed";
      s.set_string("status", status);
      bool raw = false;
      if (!(same && use.input.empty() && use.input_value != nullptr)) {
        rapidjson::StringBuffer input_buffer;
        JsonWriter input_writer(input_buffer);
        if (write_tool_input(input_writer, use)) {
          s.set_raw("input", std::string_view(input_buffer.GetString(), input_buffer.GetSize()));
        } else {
          s.set_raw("input", "{}");
          s.set_string("raw", use.input_json());  // read back as the input
          raw = true;
        }
      }
      if (status == "pending" && !raw && !s.original_has("raw")) {
        s.set_string("raw", "");  // required of a pending call
      }
      if (result == nullptr) {
        s.remove("output").remove("error").remove("attachments");
      } else {
        std::string text;
        std::vector<const Block*> files;
        if (result->result.is_blocks()) {
          // The output is one text, before the attachments: several texts are joined,
          // and a text after a file moves before it.
          bool boundaries = false;
          bool texts = false;
          for (const Block& block : result->result.blocks) {
            boundaries = boundaries || (block.type == BlockType::text && (texts || !files.empty()));
            texts = texts || block.type == BlockType::text;
            if (block.type == BlockType::text) {
              text += block.text;
            } else if (keeps_own_json(m, block, Format::opencode)) {
              files.push_back(&block);
            } else if (block.type != BlockType::unknown &&
                       (block.source.type == MediaSource::Type::base64 ||
                        block.source.type == MediaSource::Type::url)) {
              files.push_back(&block);
            } else {
              drop(fmt::format("{} in tool results", blocks_of(block)), m);
            }
          }
          if (boundaries) {
            drop("text block boundaries in tool results", m);
          }
        } else {
          text = result->result.text;
        }
        if (status == "error") {
          s.set_string("error", text).remove("output").remove("attachments");
          if (!files.empty()) {
            drop("attachments of failed tool calls", m);
          }
        } else {
          s.set_string("output", text).remove("error");
          if (!files.empty()) {
            s.set("attachments", [&](JsonWriter& aw) {
              aw.StartArray();
              for (const Block* file : files) {
                if (keeps_own_json(m, *file, Format::opencode)) {
                  file->json->Accept(aw);
                } else {
                  write_file(aw, *file);
                }
              }
              aw.EndArray();
            });
          } else {
            s.remove("attachments");
          }
        }
      }
      s.write();
    });
    object.write();
  }

  std::vector<Message> m_held;  // an assistant message from another format and its results
};

}  // namespace

std::unique_ptr<Encoder> make_opencode_encoder(LossReport& loss) {
  return make_encoder<OpenCodeEncoder>(loss);
}

}  // namespace convo
