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
#include "formats/tool_turns.h"
#include "io/output.h"

namespace convo {

using opencode::is_bookkeeping_part;
using opencode::is_export;
using opencode::is_message_info;
using opencode::is_with_parts;

namespace {

// --- Times: OpenCode counts milliseconds since 1970; convo keeps ISO 8601. ---

std::string iso_time(std::int64_t ms) {
  std::int64_t millis = ((ms % 1000) + 1000) % 1000;
  std::time_t seconds = static_cast<std::time_t>((ms - millis) / 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, millis);
}

// --- Part kinds ---

BlockType block_type_for_mime(std::string_view mime) {
  if (mime.substr(0, 6) == "image/") {
    return BlockType::image;
  }
  if (mime.substr(0, 6) == "audio/") {
    return BlockType::audio;
  }
  if (mime.substr(0, 6) == "video/") {
    return BlockType::video;
  }
  if (mime == "application/pdf" || mime == "text/plain") {
    return BlockType::document;
  }
  return BlockType::file;
}

// --- Detection ---

bool is_session_info(const JsonValue& record) {
  return find_member(record, "projectID") != nullptr && find_member(record, "role") == nullptr &&
         find_member(record, "id") != nullptr;
}

bool is_part(const JsonValue& record) {
  return find_member(record, "messageID") != nullptr && find_member(record, "sessionID") != nullptr &&
         string_member(record, "type").has_value();
}

int sniff_record(const JsonValue& record) {
  if (!record.IsObject()) {
    return 0;
  }
  if (is_with_parts(record)) {
    return 10;
  }
  if (is_export(record)) {
    const JsonValue& messages = *find_member(record, "messages");
    bool fits = std::all_of(messages.Begin(), messages.End(),
                            [](const JsonValue& m) { return m.IsObject() && is_with_parts(m); });
    return fits ? 10 : 0;
  }
  if (is_session_info(record) || is_message_info(record) || is_part(record)) {
    return 6;
  }
  return find_member(record, "role") != nullptr ? -1 : 0;
}

// --- Decoding ---

// Decodes one message with parts into turns appended to `out`; `json` is the
// `{"info","parts"}` object the turns point at.
class PartsReader {
 public:
  explicit PartsReader(const std::shared_ptr<const Source>& owner) : m_owner(owner) {}

  // The blocks of `parts` (at `path`), in order.
  std::vector<Block> blocks(const JsonValue& parts, const std::string& path) {
    std::vector<Block> out;
    std::vector<Block> results;  // of the run of tool parts being read
    auto flush = [&] {
      for (Block& result : results) {
        out.push_back(std::move(result));
      }
      results.clear();
    };
    for (rapidjson::SizeType i = 0; i < parts.Size(); ++i) {
      const JsonValue& part = parts[i];
      std::string part_path = fmt::format("{}/{}", path, i);
      if (!part.IsObject()) {
        wrong_type(part_path, "a part (an object)", part);
      }
      std::string_view type = required_string(part, "type", part_path, "part");
      if (type != "tool") {
        flush();  // a step boundary or new content: the results came before it
      }
      if (is_bookkeeping_part(type)) {
        continue;
      }
      Block block;
      block.json = &part;
      block.json_owner = m_owner;
      block.type_name = std::string(type);
      if (type == "text") {
        block.type = BlockType::text;
        block.text = std::string(required_string(part, "text", part_path, "text part"));
      } else if (type == "reasoning") {
        block.type = BlockType::thinking;
        block.type_name = "thinking";
        block.text = std::string(required_string(part, "text", part_path, "reasoning part"));
        if (const JsonValue* metadata = find_member(part, "metadata")) {
          if (const JsonValue* anthropic = find_member(*metadata, "anthropic")) {
            if (auto signature = string_member(*anthropic, "signature")) {
              block.signature = std::string(*signature);
            }
          }
        }
      } else if (type == "file") {
        decode_file(part, part_path, block);
      } else if (type == "tool") {
        decode_tool(part, part_path, block, results);
      } else {
        block.type = BlockType::unknown;  // agent, subtask, compaction, retry, ...
      }
      out.push_back(std::move(block));
    }
    flush();
    return out;
  }

 private:
  static void decode_file(const JsonValue& part, const std::string& path, Block& block) {
    std::string mime(optional_string(part, "mime", path).value_or(""));
    block.type = block_type_for_mime(mime);
    block.source = MediaSource::from_url(optional_string(part, "url", path).value_or(""));
    if (block.source.media_type.empty() || block.source.type == MediaSource::Type::url) {
      block.source.media_type = mime;
    }
    block.name = std::string(optional_string(part, "filename", path).value_or(""));
    // A text file attached from the workspace carries its text inline
    // (`source.text.value`): that text is the document, whatever the URL says.
    if (mime.substr(0, 5) == "text/") {
      if (const JsonValue* source = find_member(part, "source"); source != nullptr && source->IsObject()) {
        if (const JsonValue* text = find_member(*source, "text"); text != nullptr && text->IsObject()) {
          if (auto value = string_member(*text, "value")) {
            block.type = BlockType::document;
            block.source.type = MediaSource::Type::text;
            block.source.media_type = "text/plain";
            block.source.data = std::string(*value);
          }
        }
      }
    }
  }

  void decode_tool(const JsonValue& part, const std::string& path, Block& use,
                   std::vector<Block>& results) {
    use.type = BlockType::tool_use;
    use.type_name = "tool_use";
    use.id = std::string(required_string(part, "callID", path, "tool part"));
    use.name = std::string(optional_string(part, "tool", path).value_or(""));
    const JsonValue* state = optional_object(part, "state", path);
    if (state == nullptr) {
      return;
    }
    std::string state_path = member_path(path, "state");
    use.input_value = find_member(*state, "input");
    if (auto raw = optional_string(*state, "raw", state_path); raw && !raw->empty()) {
      const JsonValue* input = use.input_value;
      if (input == nullptr || !input->IsObject() || input->ObjectEmpty()) {
        use.input_value = nullptr;
        use.input = std::string(*raw);  // arguments that were not an object
      }
    }
    std::string_view status = optional_string(*state, "status", state_path).value_or("");
    if (status != "completed" && status != "error") {
      return;  // pending or running: no result yet
    }
    Content output;
    output.form = Content::Form::string;
    if (status == "error") {
      output.text = std::string(optional_string(*state, "error", state_path).value_or(""));
    } else {
      output.text = std::string(optional_string(*state, "output", state_path).value_or(""));
      const JsonValue* attachments = find_member(*state, "attachments");
      if (attachments != nullptr && attachments->IsArray() && !attachments->Empty()) {
        Text text = std::move(output.text);
        output.form = Content::Form::blocks;
        output.blocks.push_back(Block::make_text(std::move(text)));
        std::string list_path = member_path(state_path, "attachments");
        for (rapidjson::SizeType i = 0; i < attachments->Size(); ++i) {
          const JsonValue& file = (*attachments)[i];
          Block block;
          block.json = &file;
          block.json_owner = m_owner;
          block.type_name = "file";
          if (file.IsObject()) {
            decode_file(file, fmt::format("{}/{}", list_path, i), block);
          }
          output.blocks.push_back(std::move(block));
        }
      }
    }
    Block result = Block::make_tool_result(use.id, std::move(output));
    if (status == "error") {
      result.is_error = true;
    }
    result.name = use.name;
    result.json = &part;
    result.json_owner = m_owner;
    results.push_back(std::move(result));
  }

  std::shared_ptr<const Source> m_owner;
};

// Fills the fields of `message` that come from a message's `info`.
void decode_info(const JsonValue& info, const std::string& path, Message& message) {
  std::string_view role = required_string(info, "role", path, "message info");
  message.record_type = std::string(role);
  message.role = role == "assistant" ? Role::assistant : Role::user;
  if (role != "assistant" && role != "user") {
    message.role = Role::custom;
    message.custom_role = std::string(role);
  }
  // The id is OpenCode's, not an API response's (one assistant message spans
  // several model calls): it is the message id of the message's first turn only.
  message.id = std::string(optional_string(info, "id", path).value_or(""));
  message.meta.edit().session_id = std::string(optional_string(info, "sessionID", path).value_or(""));
  message.meta.edit().parent_uuid = std::string(optional_string(info, "parentID", path).value_or(""));
  message.meta.edit().model = std::string(optional_string(info, "modelID", path).value_or(""));
  message.meta.edit().stop_reason = std::string(optional_string(info, "finish", path).value_or(""));
  if (const JsonValue* time = optional_object(info, "time", path)) {
    if (auto created = optional_int(*time, "created", member_path(path, "time"))) {
      message.timestamp = iso_time(*created);
    }
  }
  if (const JsonValue* tokens = optional_object(info, "tokens", path)) {
    std::string tokens_path = member_path(path, "tokens");
    message.usage.edit().input = optional_int(*tokens, "input", tokens_path);
    message.usage.edit().output = optional_int(*tokens, "output", tokens_path);
    message.usage.edit().reasoning = optional_int(*tokens, "reasoning", tokens_path);
    message.usage.edit().total = optional_int(*tokens, "total", tokens_path);
    if (const JsonValue* cache = optional_object(*tokens, "cache", tokens_path)) {
      std::string cache_path = member_path(tokens_path, "cache");
      message.usage.edit().cache_read = optional_int(*cache, "read", cache_path);
      message.usage.edit().cache_write = optional_int(*cache, "write", cache_path);
    }
  }
  message.usage.edit().cost = optional_number(info, "cost", path);
}

class OpenCodeDecoder final : public Decoder {
 public:
  void decode(Record&& record, std::vector<Message>& out) override {
    const JsonValue& root = record.source->doc;
    if (!root.IsObject()) {
      wrong_type("", "a JSON object", root);
    }
    if (is_export(root)) {
      decode_export(std::move(record), out);
      return;
    }
    if (is_with_parts(root)) {
      decode_line(std::move(record), out);
      return;
    }
    if (is_message_info(root) && record.where.file) {
      // A message file of older storage: its parts are stored beside it.
      std::optional<std::string> joined = opencode_with_stored_parts(
          record.raw, string_member(root, "id").value_or(""), *record.where.file);
      if (joined) {
        Record whole;
        whole.where = record.where;
        whole.source = std::make_shared<Source>(joined->size());
        if (parse_json(*joined, whole.source->doc) || !is_with_parts(whole.source->doc)) {
          throw DecodeError("", "a part file beside this message (../../part/) is not JSON");
        }
        whole.raw = std::move(*joined);
        decode_line(std::move(whole), out);
        return;
      }
    }
    Message message = begin_message(Format::opencode, record, &root);
    message.content.form = Content::Form::absent;
    if (is_message_info(root)) {
      decode_info(root, "", message);
      message.content.form = Content::Form::blocks;
    } else {
      message.kind = is_session_info(root) ? Kind::bookkeeping : Kind::unknown;
      // A part file read alone is named by its type ("text part records").
      auto part_type = is_part(root) ? string_member(root, "type") : std::nullopt;
      message.record_type = is_session_info(root) ? "session"
                            : part_type            ? fmt::format("{} part", *part_type)
                            : is_part(root)        ? "part"
                                                   : "";
      message.role = Role::none;
      message.id = std::string(string_member(root, "id").value_or(""));
    }
    message.raw = std::move(record.raw);
    out.push_back(std::move(message));
  }

 private:
  // The turns of one message with parts.
  static std::vector<Message> turns_of(const JsonValue& with_parts, const std::string& path,
                                       const Record& record) {
    std::string info_path = member_path(path, "info");
    Message first;
    decode_info(*find_member(with_parts, "info"), info_path, first);
    PartsReader reader(record.source);
    std::vector<Block> blocks =
        reader.blocks(*find_member(with_parts, "parts"), member_path(path, "parts"));
    std::vector<ToolTurn> turns = split_tool_turns(std::move(blocks), first.role);
    std::vector<Message> out;
    for (std::size_t i = 0; i < turns.size(); ++i) {
      Message message = begin_message(Format::opencode, record, &with_parts);
      message.role = turns[i].role;
      message.custom_role = first.custom_role;
      message.record_type = first.record_type;
      message.timestamp = first.timestamp;
      message.meta = first.meta;
      if (i == 0) {
        message.id = first.id;
        message.usage = first.usage;
      }
      message.content.form = Content::Form::blocks;
      message.content.blocks = std::move(turns[i].blocks);
      out.push_back(std::move(message));
    }
    return out;
  }

  static void decode_line(Record&& record, std::vector<Message>& out) {
    const JsonValue& root = record.source->doc;
    std::vector<Message> turns = turns_of(root, "", record);
    if (turns.size() == 1) {
      turns[0].raw = std::move(record.raw);
      out.push_back(std::move(turns[0]));
      return;
    }
    Location where = record.where;
    auto container = make_container(Format::opencode, std::move(record), "");
    for (std::size_t slot = 0; slot < turns.size(); ++slot) {
      Message message = begin_contained(container, where, slot, turns[slot].json);
      adopt(message, std::move(turns[slot]));
      out.push_back(std::move(message));
    }
    container->size = turns.size();
  }

  static void decode_export(Record&& record, std::vector<Message>& out) {
    Location where = record.where;
    auto container = make_container(Format::opencode, std::move(record), "messages");
    const JsonValue& root = container->source->doc;
    std::size_t slot = 0;
    Message session = begin_contained(container, where, slot++, find_member(root, "info"));
    session.kind = Kind::bookkeeping;
    session.role = Role::none;
    session.record_type = "session";
    session.content.form = Content::Form::absent;
    session.id = std::string(string_member(*find_member(root, "info"), "id").value_or(""));
    out.push_back(std::move(session));
    const JsonValue& messages = *find_member(root, "messages");
    Record view;
    view.source = std::const_pointer_cast<Source>(container->source);
    view.where = where;
    for (rapidjson::SizeType i = 0; i < messages.Size(); ++i) {
      std::string path = fmt::format("/messages/{}", i);
      if (!messages[i].IsObject() || !is_with_parts(messages[i])) {
        throw DecodeError(path, "expected a message with \"info\" and \"parts\"");
      }
      for (Message& turn : turns_of(messages[i], path, view)) {
        Message message = begin_contained(container, where, slot++, turn.json);
        adopt(message, std::move(turn));
        out.push_back(std::move(message));
      }
    }
    container->size = slot;
  }

  // Moves what `turn` decoded into `message`, which holds the provenance.
  static void adopt(Message& message, Message&& turn) {
    message.kind = turn.kind;
    message.role = turn.role;
    message.custom_role = std::move(turn.custom_role);
    message.record_type = std::move(turn.record_type);
    message.id = std::move(turn.id);
    message.timestamp = std::move(turn.timestamp);
    message.content = std::move(turn.content);
    message.meta = std::move(turn.meta);
    message.usage = turn.usage;
  }
};

}  // namespace

namespace opencode {

bool is_bookkeeping_part(std::string_view type) {
  return type == "step-start" || type == "step-finish" || type == "snapshot" || type == "patch" ||
         type == "retry";
}

bool is_with_parts(const JsonValue& record) {
  const JsonValue* info = find_member(record, "info");
  const JsonValue* parts = find_member(record, "parts");
  return info != nullptr && info->IsObject() && find_member(*info, "role") != nullptr &&
         parts != nullptr && parts->IsArray();
}

bool is_export(const JsonValue& record) {
  const JsonValue* info = find_member(record, "info");
  const JsonValue* messages = find_member(record, "messages");
  return info != nullptr && info->IsObject() && find_member(*info, "role") == nullptr &&
         messages != nullptr && messages->IsArray();
}

bool is_message_info(const JsonValue& record) {
  return find_member(record, "sessionID") != nullptr && find_member(record, "role") != nullptr &&
         find_member(record, "time") != nullptr;
}

}  // namespace opencode

int sniff_opencode(const JsonValue& record) { return sniff_record(record); }

void opencode_unmodelled(const Message& message,
                         const std::function<void(std::string_view)>& unheld) {
  if (message.json == nullptr || !message.json->IsObject()) {
    return;
  }
  const JsonValue* info = find_member(*message.json, "info");
  if (info == nullptr && opencode::is_message_info(*message.json)) {
    info = message.json;  // a message file of older storage
  }
  if (info != nullptr && info->IsObject() && find_member(*info, "role") != nullptr) {
    for (const auto& member : info->GetObject()) {
      std::string_view key = view_of(member.name);
      if (member.value.IsNull() || key == "role" || key == "cost") {
        continue;  // the message's role; its cost is counted by every encoder ("costs")
      }
      if (key == "id") {
        unheld("message ids");
      } else if (key == "sessionID") {
        unheld("session ids");
      } else if (key == "time") {
        unheld("timestamps");  // `created`: a message's time where the target has one
        if (member.value.IsObject() && find_member(member.value, "completed") != nullptr) {
          unheld("completion times");  // when the reply was done: no other format says it
        }
      } else if (key == "modelID" || key == "model") {
        unheld("model names");  // an assistant's modelID, a user message's {providerID, modelID}
      } else if (key == "tokens") {
        unheld("usage");
      } else if (key == "finish") {
        unheld("stop reasons");
      } else {
        unheld(fmt::format("{} of messages", key));  // agent, mode, path, providerID, parentID
      }
    }
  }
  const JsonValue* parts = find_member(*message.json, "parts");
  if (parts == nullptr || !parts->IsArray()) {
    return;
  }
  bool part_ids = false;
  bool part_sessions = false;
  for (const JsonValue& part : parts->GetArray()) {
    if (!part.IsObject()) {
      continue;
    }
    auto type = string_member(part, "type");
    if (type && is_bookkeeping_part(*type)) {
      unheld(fmt::format("{} parts", *type));
    }
    part_ids = part_ids || find_member(part, "id") != nullptr ||
               find_member(part, "messageID") != nullptr;
    part_sessions = part_sessions || find_member(part, "sessionID") != nullptr;
  }
  // Counted once per message, as its info's members are.
  if (part_ids) {
    unheld("part ids");  // a part's own id and its message's, which other formats lack
  }
  if (part_sessions && (info == nullptr || find_member(*info, "sessionID") == nullptr)) {
    unheld("session ids");
  }
}

std::unique_ptr<Decoder> make_opencode_decoder() { return make_decoder<OpenCodeDecoder>(); }

}  // namespace convo
