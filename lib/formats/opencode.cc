#include "formats/opencode.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <cstdio>
#include <ctime>

#include "formats/fields.h"
#include "formats/json_out.h"
#include "formats/object_writer.h"
#include "formats/responses_items.h"
#include "formats/opencode_storage.h"
#include "formats/tool_turns.h"
#include "io/output.h"

namespace convo {

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

// --- Part kinds ---

// Parts that record how a message came about rather than what it says.
bool is_bookkeeping_part(std::string_view type) {
  return type == "step-start" || type == "step-finish" || type == "snapshot" || type == "patch" ||
         type == "retry";
}

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

// The media type OpenCode must be told for a block given by URL without one: from
// the URL's extension, else the kind's wildcard ("image/*"), which reads back as
// the same kind of block.
std::string mime_of(const Block& block) {
  if (!block.source.media_type.empty()) {
    return block.source.media_type;
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

// --- Detection ---

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

bool is_session_info(const JsonValue& record) {
  return find_member(record, "projectID") != nullptr && find_member(record, "role") == nullptr &&
         find_member(record, "id") != nullptr;
}

bool is_message_info(const JsonValue& record) {
  return find_member(record, "sessionID") != nullptr && find_member(record, "role") != nullptr &&
         find_member(record, "time") != nullptr;
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
        std::string text = std::move(output.text);
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
  message.envelope.session_id = std::string(optional_string(info, "sessionID", path).value_or(""));
  message.envelope.parent_uuid = std::string(optional_string(info, "parentID", path).value_or(""));
  message.envelope.model = std::string(optional_string(info, "modelID", path).value_or(""));
  message.envelope.stop_reason = std::string(optional_string(info, "finish", path).value_or(""));
  if (const JsonValue* time = optional_object(info, "time", path)) {
    if (auto created = optional_int(*time, "created", member_path(path, "time"))) {
      message.timestamp = iso_time(*created);
    }
  }
  if (const JsonValue* tokens = optional_object(info, "tokens", path)) {
    std::string tokens_path = member_path(path, "tokens");
    message.usage.input = optional_int(*tokens, "input", tokens_path);
    message.usage.output = optional_int(*tokens, "output", tokens_path);
    message.usage.reasoning = optional_int(*tokens, "reasoning", tokens_path);
    message.usage.total = optional_int(*tokens, "total", tokens_path);
    if (const JsonValue* cache = optional_object(*tokens, "cache", tokens_path)) {
      std::string cache_path = member_path(tokens_path, "cache");
      message.usage.cache_read = optional_int(*cache, "read", cache_path);
      message.usage.cache_write = optional_int(*cache, "write", cache_path);
    }
  }
  message.usage.cost = optional_number(info, "cost", path);
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
      message.record_type = is_session_info(root) ? "session" : is_part(root) ? "part" : "";
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
      message.envelope = first.envelope;
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
    message.envelope = std::move(turn.envelope);
    message.usage = turn.usage;
  }
};

// --- Encoding ---

class OpenCodeEncoder final : public EncoderBase {
 public:
  explicit OpenCodeEncoder(LossReport& loss) : EncoderBase(Format::opencode, loss) {}

 protected:
  void encode(const Message& message, std::vector<std::string>& values) override {
    if (same_format(message) && !message.container) {
      drain(values);
      const JsonValue& json = *message.json;
      if (message.kind == Kind::turn && is_with_parts(json)) {
        values.push_back(write_message({&message}, &json, find_member(json, "info")));
      } else if (message.kind == Kind::turn && is_message_info(json) &&
                 !message.content.empty()) {
        values.push_back(write_message({&message}, nullptr, &json));  // a message file, now with parts
      } else {
        values.push_back(to_json(json));
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
          drop("tool results without their call", message);
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
                      message.role == Role::assistant &&
                      message.has_tool_uses() && !m_held.empty() &&
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
    values.push_back(write_message({&own}, nullptr, nullptr));
  }

  void drain(std::vector<std::string>& values) override {
    if (m_held.empty()) {
      return;
    }
    std::vector<const Message*> turns;
    for (const Message& message : m_held) {
      turns.push_back(&message);
    }
    values.push_back(write_message(turns, nullptr, nullptr));
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
    const Envelope& e = m.envelope;
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
      if (m.usage.cost) {
        object.set("cost", [&m](JsonWriter& cw) { cw.Double(*m.usage.cost); });
      }
      if (!m.usage.empty()) {
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
      } else if (writable(m, *block)) {
        write_part(w, m, *block);
      }
    }
    bookkeeping_until(parts != nullptr && parts->IsArray() ? parts->Size() : 0);
    for (const Block* result : results) {
      bool answered = std::any_of(blocks.begin(), blocks.end(), [&](const Block* b) {
        return b->type == BlockType::tool_use && b->id == result->id;
      });
      if (!answered) {
        drop("tool results without their call", m);
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

  bool writable(const Message& m, const Block& block) {
    if (m.origin == Format::opencode && block.json != nullptr) {
      return true;
    }
    switch (block.type) {
      case BlockType::text:
      case BlockType::thinking:
        return true;
      case BlockType::image:
      case BlockType::audio:
      case BlockType::video:
      case BlockType::file:
      case BlockType::document:
        if (block.source.type == MediaSource::Type::base64 ||
            block.source.type == MediaSource::Type::url) {
          return true;
        }
        drop(fmt::format("{} blocks given by file id or as plain text", block_type_name(block.type)),
             m);
        return false;
      default:
        drop(fmt::format("{} blocks", block.type_name.empty() ? block_type_name(block.type)
                                                              : std::string_view(block.type_name)),
             m);
        return false;
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

  void write_part(JsonWriter& w, const Message& m, const Block& block) {
    const bool same = m.origin == Format::opencode && block.json != nullptr;
    if (same && block.type != BlockType::text && block.type != BlockType::thinking) {
      block.json->Accept(w);  // files, agents, subtasks, ...: as they were
      return;
    }
    if (!same && block.type != BlockType::text && block.type != BlockType::thinking) {
      write_file(w, block);
      return;
    }
    ObjectWriter object(w, same ? block.json : nullptr);
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
    const bool same = m.origin == Format::opencode && use.json != nullptr;
    const JsonValue* state = same ? find_member(*use.json, "state") : nullptr;
    ObjectWriter object(w, same ? use.json : nullptr);
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
          for (const Block& block : result->result.blocks) {
            if (block.type == BlockType::text) {
              text += block.text;
            } else if (block.json != nullptr && m.origin == Format::opencode) {
              files.push_back(&block);
            } else if (block.type != BlockType::unknown &&
                       (block.source.type == MediaSource::Type::base64 ||
                        block.source.type == MediaSource::Type::url)) {
              files.push_back(&block);
            } else {
              drop(fmt::format("{} blocks in tool results", block_type_name(block.type)), m);
            }
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
                if (file->json != nullptr && m.origin == Format::opencode) {
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

int sniff_opencode(const JsonValue& record) { return sniff_record(record); }

void opencode_unmodelled(const Message& message,
                         const std::function<void(std::string_view)>& unheld) {
  if (message.json == nullptr || !message.json->IsObject()) {
    return;
  }
  const JsonValue* parts = find_member(*message.json, "parts");
  if (parts == nullptr || !parts->IsArray()) {
    return;
  }
  for (const JsonValue& part : parts->GetArray()) {
    if (!part.IsObject()) {
      continue;
    }
    auto type = string_member(part, "type");
    if (type && is_bookkeeping_part(*type)) {
      unheld(fmt::format("{} parts", *type));
    }
  }
}

std::unique_ptr<Decoder> make_opencode_decoder() { return std::make_unique<OpenCodeDecoder>(); }

std::unique_ptr<Encoder> make_opencode_encoder(LossReport& loss) {
  return std::make_unique<OpenCodeEncoder>(loss);
}

}  // namespace convo
