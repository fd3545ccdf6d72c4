#include "formats/gemini_cli.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "formats/fields.h"
#include "formats/gemini_parts.h"
#include "formats/json_out.h"
#include "formats/object_writer.h"
#include "formats/tool_turns.h"
#include "io/output.h"

namespace convo {

namespace {


constexpr std::string_view k_thought_open = "**";

// A thought as Gemini's thought text: "**subject**\n\ndescription".
std::string thought_text(std::string_view subject, std::string_view description) {
  if (subject.empty()) {
    return std::string(description);
  }
  if (description.empty()) {
    return fmt::format("**{}**", subject);  // a subject alone, as split_gemini_thought reads it
  }
  return fmt::format("**{}**\n\n{}", subject, description);
}


// True for an id convo gave a message that had none ("convo-N", as the writer makes
// them: Gemini CLI needs one): it says nothing, and is not carried to other formats.
bool made_up_message_id(std::string_view id) {
  return id.starts_with("convo-") && id.size() > 6 &&
         id.find_first_not_of("0123456789", 6) == std::string_view::npos;
}

// --- Decoding ---

// Decodes a PartListUnion (a string, one part or a list of parts) into `content`.
void decode_part_list(const JsonValue* value, const std::string& path,
                      const std::shared_ptr<const Source>& owner, Content& content) {
  if (value == nullptr || value->IsNull()) {
    content.form = Content::Form::absent;
  } else if (value->IsString()) {
    content.form = Content::Form::string;
    content.text = std::string(view_of(*value));
  } else if (value->IsArray()) {
    content.form = Content::Form::blocks;
    for (rapidjson::SizeType i = 0; i < value->Size(); ++i) {
      const JsonValue& part = (*value)[i];
      Block block;
      if (part.IsString()) {
        block = Block::make_text(std::string(view_of(part)));
      } else {
        decode_gemini_part(part, fmt::format("{}/{}", path, i), owner, block);
      }
      content.blocks.push_back(std::move(block));
    }
  } else if (value->IsObject()) {
    content.form = Content::Form::blocks;
    Block block;
    decode_gemini_part(*value, path, owner, block);
    content.blocks.push_back(std::move(block));
  } else {
    wrong_type(path, "a string or a list of parts", *value);
  }
}


void decode_tokens(const JsonValue& element, const std::string& path, Usage& usage) {
  const JsonValue* tokens = optional_object(element, "tokens", path);
  if (tokens == nullptr) {
    return;
  }
  std::string tokens_path = member_path(path, "tokens");
  usage.input = optional_int(*tokens, "input", tokens_path);
  usage.output = optional_int(*tokens, "output", tokens_path);
  usage.cache_read = optional_int(*tokens, "cached", tokens_path);
  usage.reasoning = optional_int(*tokens, "thoughts", tokens_path);
  usage.total = optional_int(*tokens, "total", tokens_path);
}

// True for the first line of a `session-*.jsonl` chat: the session's members
// without its messages.
bool is_session_line(const JsonValue& record) {
  const JsonValue* id = find_member(record, "sessionId");
  const JsonValue* hash = find_member(record, "projectHash");
  return id != nullptr && id->IsString() && hash != nullptr && hash->IsString() &&
         find_member(record, "messages") == nullptr;
}

// True for a message line of a `session-*.jsonl` chat (Gemini CLI tells them by
// their string `id`).
bool is_message_line(const JsonValue& record) {
  const JsonValue* id = find_member(record, "id");
  return id != nullptr && id->IsString() && find_member(record, "messages") == nullptr;
}

class GeminiCliDecoder final : public Decoder {
 public:
  void decode(Record&& record, std::vector<Message>& out) override {
    const JsonValue& doc = record.source->doc;
    if (!doc.IsObject()) {
      wrong_type("", "a Gemini CLI session (an object)", doc);
    }
    const JsonValue* messages = find_member(doc, "messages");
    if (messages == nullptr) {
      decode_line(std::move(record), out);
      return;
    }
    if (!messages->IsArray()) {
      wrong_type("/messages", "a list of messages", *messages);
    }
    auto container = std::make_shared<Container>();
    container->format = Format::gemini_cli;
    container->raw = record.raw;
    container->source = record.source;
    container->array_key = "messages";
    std::string session(string_member(doc, "sessionId").value_or(""));
    for (rapidjson::SizeType i = 0; i < messages->Size(); ++i) {
      std::string path = fmt::format("/messages/{}", i);
      const JsonValue& element = (*messages)[i];
      if (!element.IsObject()) {
        wrong_type(path, "a message (an object)", element);
      }
      std::size_t first = out.size();
      decode_element(container, record.where, element, path, out);
      for (std::size_t k = first; k < out.size(); ++k) {
        out[k].meta.edit().session_id = session;
        container->element_of_slot.push_back(i);
      }
    }
    container->size = container->element_of_slot.size();
  }

 private:
  // A line of a `session-*.jsonl` chat (newer Gemini CLI; 0.61 writes them): the
  // session's members first, then one line a message, and `$set` lines that update
  // the session's members. A message line is a container of its own (its tool calls'
  // results make a second turn); the others are bookkeeping records.
  void decode_line(Record&& record, std::vector<Message>& out) {
    const JsonValue& doc = record.source->doc;
    if (find_member(doc, "$rewindTo") != nullptr) {
      throw DecodeError("/$rewindTo",
                        "a Gemini CLI rewind is not read yet: it takes back the messages "
                        "from the one it names on (resume the chat in Gemini CLI and save "
                        "it, or cut the file before this line)");
    }
    if (const JsonValue* set = find_member(doc, "$set")) {
      if (!set->IsObject()) {
        wrong_type("/$set", "the session members it sets (an object)", *set);
      }
      if (auto id = string_member(*set, "sessionId")) {
        m_session = std::string(*id);
      }
      // A checkpoint of the history as Gemini CLI holds it for the API (its
      // <session_context> turn first, results as turns of their own) is kept, not
      // read as messages: the conversation is the messages recorded line by line.
      bool checkpoint = find_member(*set, "messages") != nullptr;
      out.push_back(bookkeeping(record, checkpoint ? "history checkpoint" : "metadata update"));
      return;
    }
    if (is_session_line(doc)) {
      m_session = std::string(string_member(doc, "sessionId").value_or(""));
      out.push_back(bookkeeping(record, "session"));
      return;
    }
    if (!is_message_line(doc)) {
      throw DecodeError("", "not a Gemini CLI session line: no \"messages\", \"id\", "
                            "\"$set\" or \"sessionId\" and \"projectHash\"");
    }
    Location where = record.where;
    auto container = make_container(Format::gemini_cli, std::move(record), "");
    std::size_t first = out.size();
    decode_element(container, where, container->source->doc, "", out);
    for (std::size_t k = first; k < out.size(); ++k) {
      out[k].meta.edit().session_id = m_session;
      container->element_of_slot.push_back(0);
    }
    container->size = container->element_of_slot.size();
  }

  // A line that is not a message, of the chat's session.
  Message bookkeeping(Record& record, std::string_view type) const {
    Message message = begin_message(Format::gemini_cli, record, &record.source->doc);
    message.meta.edit().session_id = m_session;
    message.kind = Kind::bookkeeping;
    message.role = Role::none;
    message.record_type = std::string(type);
    message.content.form = Content::Form::absent;
    message.raw = std::move(record.raw);
    return message;
  }

  std::string m_session;  // of the chat's session line, for its messages

  static void decode_element(const std::shared_ptr<Container>& container,
                             const Location& where, const JsonValue& element,
                             const std::string& path, std::vector<Message>& out) {
    std::shared_ptr<Container> base = container;
    Message message = begin_contained(base, where, container->element_of_slot.size(), &element);
    message.id = std::string(optional_string(element, "id", path).value_or(""));
    if (made_up_message_id(message.id)) {
      message.id = std::string();
    }
    message.timestamp = std::string(optional_string(element, "timestamp", path).value_or(""));
    std::string type(optional_string(element, "type", path).value_or(""));
    message.record_type = type;
    std::size_t slot = container->element_of_slot.size();
    // Slots are numbered over the messages decoded so far from this document.
    auto next_slot = [&](std::size_t k) { return slot + k; };
    if (type == "user") {
      message.role = Role::user;
      decode_part_list(find_member(element, "content"), member_path(path, "content"),
                       message.source, message.content);
      message.slot = next_slot(0);
      out.push_back(std::move(message));
      return;
    }
    if (type != "gemini") {
      message.kind = Kind::event;
      message.role = Role::none;
      decode_part_list(find_member(element, "content"), member_path(path, "content"),
                       message.source, message.content);
      message.slot = next_slot(0);
      out.push_back(std::move(message));
      return;
    }
    message.role = Role::assistant;
    message.meta.edit().model = std::string(optional_string(element, "model", path).value_or(""));
    Usage usage;
    decode_tokens(element, path, usage);
    message.usage = std::move(usage);
    Content& content = message.content;
    content.form = Content::Form::blocks;
    Content text;
    decode_part_list(find_member(element, "content"), member_path(path, "content"),
                     message.source, text);
    // Thought or functionCall parts in the content make it the whole turn, in its
    // order: Gemini CLI then sends the content as it is, not the `thoughts` nor the
    // `toolCalls`' calls (whose results it still sends after it).
    const bool whole = text.is_blocks() &&
                       std::any_of(text.blocks.begin(), text.blocks.end(), [](const Block& b) {
                         return b.type == BlockType::thinking || b.type == BlockType::tool_use;
                       });
    if (!whole) {
      for_each_object(find_member(element, "thoughts"), member_path(path, "thoughts"),
                      "a list of thoughts", "a thought (an object)",
                      [&](const JsonValue& thought, const std::string& thought_path) {
                        Block block;
                        block.type = BlockType::thinking;
                        block.type_name = "thinking";
                        block.json = &thought;
                        block.json_owner = message.source;
                        block.text = thought_text(
                            optional_string(thought, "subject", thought_path).value_or(""),
                            optional_string(thought, "description", thought_path).value_or(""));
                        content.blocks.push_back(std::move(block));
                      });
    }
    if (text.is_string() && !text.text.empty()) {
      content.blocks.push_back(Block::make_text(std::move(text.text)));
    } else if (text.is_blocks()) {
      for (Block& block : text.blocks) {
        content.blocks.push_back(std::move(block));
      }
    }
    std::vector<Block> results;
    for_each_object(find_member(element, "toolCalls"), member_path(path, "toolCalls"),
                    "a list of tool calls", "a tool call (an object)",
                    [&](const JsonValue& call, const std::string& call_path) {
                      Block block;
                      block.type = BlockType::tool_use;
                      block.type_name = "tool_use";
                      block.json = &call;
                      block.json_owner = message.source;
                      block.id = std::string(optional_string(call, "id", call_path).value_or(""));
                      block.name =
                          std::string(optional_string(call, "name", call_path).value_or(""));
                      if (const JsonValue* args = find_member(call, "args");
                          args != nullptr && !args->IsNull()) {
                        block.input_value = args;
                      }
                      if (auto result = decode_gemini_cli_result(call, call_path, message.source, block)) {
                        results.push_back(std::move(*result));
                      }
                      // A call the content holds keeps its place there.
                      auto in_content = std::find_if(
                          content.blocks.begin(), content.blocks.end(), [&](const Block& b) {
                            return whole && b.type == BlockType::tool_use && b.json != &call &&
                                   b.id == block.id;
                          });
                      if (in_content != content.blocks.end()) {
                        *in_content = std::move(block);
                      } else {
                        content.blocks.push_back(std::move(block));
                      }
                    });
    message.slot = next_slot(0);
    // The tool turn has no JSON of its own: its element is the assistant turn's, and
    // what looks at a record's JSON (secrets) must see the element once.
    Message tool = begin_contained(base, where, next_slot(1), nullptr);
    tool.source = nullptr;
    tool.role = Role::tool;
    tool.record_type = type;
    tool.timestamp = message.timestamp;
    out.push_back(std::move(message));
    if (!results.empty()) {
      tool.content.form = Content::Form::blocks;
      tool.content.blocks = std::move(results);
      out.push_back(std::move(tool));
    }
  }
};

}  // namespace

std::pair<std::string, std::string> split_gemini_thought(std::string_view text) {
  if (text.starts_with(k_thought_open)) {
    std::size_t end = text.find(k_thought_open, k_thought_open.size());
    if (end != std::string_view::npos) {
      std::string subject(text.substr(k_thought_open.size(), end - k_thought_open.size()));
      std::string_view rest = text.substr(end + k_thought_open.size());
      std::size_t start = rest.find_first_not_of(" \n");
      return {subject, std::string(start == std::string_view::npos ? "" : rest.substr(start))};
    }
  }
  return {"", std::string(text)};
}

std::optional<Block> decode_gemini_cli_result(const JsonValue& call, const std::string& path,
                                            const std::shared_ptr<const Source>& owner,
                                            const Block& use) {
  const JsonValue* result = find_member(call, "result");
  if (result == nullptr || result->IsNull()) {
    return std::nullopt;
  }
  Content parts;
  decode_part_list(result, member_path(path, "result"), owner, parts);
  Block block;
  block.type = BlockType::tool_result;
  block.type_name = "tool_result";
  block.json = &call;
  block.json_owner = owner;
  block.id = use.id;
  block.name = use.name;
  if (parts.is_string()) {
    block.result = std::move(parts);
  } else {
    // The functionResponse gives the content; other parts (a file's bytes) follow it.
    std::vector<Block> extra;
    bool answered = false;
    for (Block& part : parts.blocks) {
      if (part.type == BlockType::tool_result && !answered) {
        block.result = std::move(part.result);
        block.is_error = part.is_error;
        answered = true;
      } else {
        extra.push_back(std::move(part));
      }
    }
    if (!extra.empty()) {
      if (block.result.is_string() && block.result.text == "{}") {
        block.result = Content{};  // media alone: an empty response, the media after it
        block.result.form = Content::Form::blocks;
      }
      content_to_blocks(block.result);
      for (Block& part : extra) {
        block.result.blocks.push_back(std::move(part));
      }
    }
  }
  if (auto status = string_member(call, "status"); status && *status == "error") {
    block.is_error = true;
  }
  return block;
}

void gemini_cli_unmodelled(const Message& message,
                           const std::function<void(std::string_view)>& unheld) {
  // The session and `$set` lines of a `session-*.jsonl` chat are counted whole
  // ("session records").
  if (message.json == nullptr || !message.json->IsObject() || message.role == Role::tool ||
      message.kind == Kind::bookkeeping) {
    return;
  }
  const JsonValue& element = *message.json;
  if (find_member(element, "timestamp") != nullptr) {
    unheld("timestamps");
  }
  // Ids convo gave messages that had none ("convo-N") say nothing.
  if (auto id = string_member(element, "id"); id && !made_up_message_id(*id)) {
    unheld("message ids");
  }
  if (find_member(element, "model") != nullptr) {
    unheld("model names");
  }
  if (find_member(element, "tokens") != nullptr) {
    unheld("usage");
  }
  if (const JsonValue* thoughts = find_member(element, "thoughts");
      thoughts != nullptr && thoughts->IsArray()) {
    for (const JsonValue& thought : thoughts->GetArray()) {
      if (thought.IsObject() && find_member(thought, "timestamp") != nullptr) {
        unheld("thought timestamps");
      }
    }
  }
  if (const JsonValue* calls = find_member(element, "toolCalls"); calls != nullptr && calls->IsArray()) {
    for (const JsonValue& call : calls->GetArray()) {
      if (!call.IsObject()) {
        continue;
      }
      for (const auto& m : call.GetObject()) {
        std::string_view key = view_of(m.name);
        auto status = key == "status" ? string_member(call, "status") : std::nullopt;
        if (status && (*status == "success" || *status == "error")) {
          continue;  // the result's error flag says it
        }
        if (key != "id" && key != "name" && key != "args" && key != "result") {
          unheld(fmt::format("{} of tool calls", key));
        }
      }
    }
  }
  if (const JsonValue* tokens = find_member(element, "tokens"); tokens != nullptr && tokens->IsObject()) {
    if (find_member(*tokens, "tool") != nullptr) {
      unheld("tool token counts");
    }
  }
  for (const auto& m : element.GetObject()) {
    std::string_view key = view_of(m.name);
    if (key != "id" && key != "timestamp" && key != "type" && key != "content" &&
        key != "thoughts" && key != "toolCalls" && key != "tokens" && key != "model") {
      unheld(fmt::format("{} of messages", key));
    }
  }
}

int sniff_gemini_cli(const JsonValue& record) {
  if (!record.IsObject()) {
    return 0;
  }
  const JsonValue* messages = find_member(record, "messages");
  if (find_member(record, "sessionId") != nullptr && find_member(record, "projectHash") != nullptr &&
      messages != nullptr && messages->IsArray()) {
    return 20;
  }
  // The lines of a `session-*.jsonl` chat: its session line, messages, updates.
  if (is_session_line(record)) {
    return 20;
  }
  if (find_member(record, "$set") != nullptr || find_member(record, "$rewindTo") != nullptr) {
    return 10;
  }
  if (is_message_line(record) && find_member(record, "timestamp") != nullptr &&
      find_member(record, "content") != nullptr && find_member(record, "role") == nullptr) {
    auto type = string_member(record, "type");
    if (type && (*type == "user" || *type == "gemini" || *type == "info" || *type == "error" ||
                 *type == "warning")) {
      return 5;
    }
  }
  // A message of another format is no session.
  bool message = find_member(record, "role") != nullptr || find_member(record, "content") != nullptr ||
                 find_member(record, "message") != nullptr || find_member(record, "type") != nullptr;
  return message ? -1 : 0;
}

std::unique_ptr<Decoder> make_gemini_cli_decoder() { return std::make_unique<GeminiCliDecoder>(); }

}  // namespace convo
