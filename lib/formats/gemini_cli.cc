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
  return fmt::format("**{}**\n\n{}", subject, description);
}

// The subject and description of a thought text (`thought_text` backwards).
std::pair<std::string, std::string> split_thought(std::string_view text) {
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

// The tool_result block a tool call record's `result` makes, or nullopt when it
// has none.
std::optional<Block> decode_result(const JsonValue& call, const std::string& path,
                                   const std::shared_ptr<const Source>& owner, const Block& use) {
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

class GeminiCliDecoder final : public Decoder {
 public:
  void decode(Record&& record, std::vector<Message>& out) override {
    const JsonValue& doc = record.source->doc;
    if (!doc.IsObject()) {
      wrong_type("", "a Gemini CLI session (an object)", doc);
    }
    const JsonValue* messages = find_member(doc, "messages");
    if (messages == nullptr || !messages->IsArray()) {
      throw DecodeError("", "not a Gemini CLI session: it has no \"messages\" array");
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
  static void decode_element(const std::shared_ptr<Container>& container,
                             const Location& where, const JsonValue& element,
                             const std::string& path, std::vector<Message>& out) {
    std::shared_ptr<Container> base = container;
    Message message = begin_contained(base, where, container->element_of_slot.size(), &element);
    message.id = std::string(optional_string(element, "id", path).value_or(""));
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
    decode_tokens(element, path, message.usage);
    Content& content = message.content;
    content.form = Content::Form::blocks;
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
    Content text;
    decode_part_list(find_member(element, "content"), member_path(path, "content"),
                     message.source, text);
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
                      if (auto result = decode_result(call, call_path, message.source, block)) {
                        results.push_back(std::move(*result));
                      }
                      content.blocks.push_back(std::move(block));
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

// --- Encoding ---

// The messages that make one element of `messages`: a head (a user turn, an
// assistant turn, or a record that is not a turn) and the turns whose tool results
// answer the head's calls.
struct Element {
  const Message* head = nullptr;
  std::vector<const Message*> results;
  const JsonValue* original = nullptr;  // the element they came from, when unchanged in shape
};

bool only_results(const Message& m) {
  if (m.role == Role::tool) {
    return true;
  }
  if (m.role != Role::user || !m.content.is_blocks() || m.content.blocks.empty()) {
    return false;
  }
  return std::all_of(m.content.blocks.begin(), m.content.blocks.end(),
                     [](const Block& b) { return b.type == BlockType::tool_result; });
}

bool has_results(const Message& m) { return m.content.is_blocks() && m.has_tool_results(); }

// 128 bits of FNV-1a over `text`, as a UUID-shaped string: a session id that is the
// same for the same conversation.
std::string session_id_for(std::string_view text) {
  std::uint64_t a = 14695981039346656037ULL;
  std::uint64_t b = 1099511628211ULL ^ 0x9e3779b97f4a7c15ULL;
  for (unsigned char c : text) {
    a = (a ^ c) * 1099511628211ULL;
    b = (b ^ c) * 0x100000001b3ULL + 0x7f4a7c15ULL;
  }
  std::string hex = fmt::format("{:016x}{:016x}", a, b);
  return fmt::format("{}-{}-{}-{}-{}", hex.substr(0, 8), hex.substr(8, 4), hex.substr(12, 4),
                     hex.substr(16, 4), hex.substr(20, 12));
}

class GeminiCliEncoder final : public EncoderBase {
 public:
  explicit GeminiCliEncoder(LossReport& loss) : EncoderBase(Format::gemini_cli, loss) {}

 protected:
  // Messages from other formats are held until the input ends, then written as one
  // session document.
  void encode(const Message& message, std::vector<std::string>& values) override {
    (void)values;
    if (message.kind != Kind::turn || message.role == Role::none) {
      if (message.origin == Format::gemini_cli && message.json != nullptr) {
        m_pending.push_back(message);
      } else {
        drop(record_noun(message), message);
      }
      return;
    }
    if (message.role == Role::system || message.role == Role::developer) {
      drop("system messages", message);
      return;
    }
    if (message.role == Role::custom || message.role == Role::function) {
      drop(message.role == Role::custom ? "messages with custom roles" : "legacy function messages",
           message);
      return;
    }
    m_pending.push_back(message);
  }

  void drain(std::vector<std::string>& values) override {
    if (m_pending.empty()) {
      return;
    }
    std::vector<const Message*> messages;
    for (const Message& m : m_pending) {
      messages.push_back(&m);
    }
    std::string array = write_elements(group(messages, nullptr), nullptr);
    const Message& first = m_pending.front();
    std::string session = first.meta->session_id;
    if (session.empty()) {
      session = session_id_for(array);
    }
    std::string start, last;
    for (const Message& m : m_pending) {
      if (!m.timestamp.empty()) {
        start = start.empty() ? m.timestamp : start;
        last = m.timestamp;
      }
    }
    rapidjson::StringBuffer buffer;
    JsonWriter w(buffer);
    w.StartObject();
    w.Key("sessionId");
    write_string(w, session);
    w.Key("projectHash");
    w.String("");
    w.Key("startTime");
    write_string(w, start);
    w.Key("lastUpdated");
    write_string(w, last);
    w.Key("messages");
    write_raw(w, array);
    w.EndObject();
    values.push_back(std::string(buffer.GetString(), buffer.GetSize()));
    m_pending.clear();
  }

  void write_changed_container(const Container& container, std::vector<Message>& held,
                               Output& out) override {
    const auto& session = container;
    std::vector<const Message*> messages;
    for (const Message& m : held) {
      messages.push_back(&m);
    }
    std::string array = write_elements(group(messages, &session), &session);
    rapidjson::StringBuffer buffer;
    JsonWriter w(buffer);
    ObjectWriter object(w, &container.source->doc);
    object.set_raw("messages", array);
    object.write();
    out.write_line(std::string_view(buffer.GetString(), buffer.GetSize()));
  }

 private:
  // Groups messages into elements: tool results join the assistant turn before them.
  std::vector<Element> group(const std::vector<const Message*>& messages,
                             const Container* session) {
    std::vector<Element> elements;
    for (const Message* m : messages) {
      bool joins = !elements.empty() && elements.back().head != nullptr &&
                   elements.back().head->role == Role::assistant && m->is_turn() &&
                   has_results(*m);
      if (joins) {
        // Each result goes with the turn that made its call: calls one per message
        // (OpenAI Responses items) are answered after the last of them.
        std::vector<Element*> owners;
        for (const Block* result : m->tool_results()) {
          for (auto e = elements.rbegin(); e != elements.rend(); ++e) {
            if (e->head == nullptr || e->head->role != Role::assistant) {
              break;
            }
            auto calls = e->head->tool_uses();
            bool made = std::any_of(calls.begin(), calls.end(),
                                    [&](const Block* call) { return call->id == result->id; });
            if (made) {
              if (std::find(owners.begin(), owners.end(), &*e) == owners.end()) {
                owners.push_back(&*e);
              }
              break;
            }
          }
        }
        if (owners.empty()) {
          owners.push_back(&elements.back());
        }
        for (Element* owner : owners) {
          owner->results.push_back(m);
        }
        if (only_results(*m)) {
          continue;
        }
      } else if (m->is_turn() && only_results(*m)) {
        drop("tool results without calls", *m);
        continue;
      }
      Element element;
      element.head = m;
      elements.push_back(std::move(element));
    }
    if (session != nullptr) {
      // An element whose messages are all there, unchanged, is written as it was.
      const JsonValue* array = find_member(session->source->doc, "messages");
      for (Element& element : elements) {
        std::vector<const Message*> all{element.head};
        all.insert(all.end(), element.results.begin(), element.results.end());
        std::size_t index = SIZE_MAX;
        bool intact = true;
        for (const Message* m : all) {
          if (m->container.get() != session || m->modified || m->slot >= session->element_of_slot.size()) {
            intact = false;
            break;
          }
          std::size_t e = session->element_of_slot[m->slot];
          intact = intact && (index == SIZE_MAX || index == e);
          index = e;
        }
        if (intact && index != SIZE_MAX && array != nullptr && index < array->Size()) {
          std::size_t count = static_cast<std::size_t>(
              std::count(session->element_of_slot.begin(), session->element_of_slot.end(), index));
          if (count == all.size()) {
            element.original = &(*array)[static_cast<rapidjson::SizeType>(index)];
          }
        }
      }
    }
    return elements;
  }

  std::string write_elements(const std::vector<Element>& elements, const Container* session) {
    rapidjson::StringBuffer buffer;
    JsonWriter w(buffer);
    w.StartArray();
    std::size_t n = 0;
    for (const Element& element : elements) {
      ++n;
      if (element.original != nullptr) {
        element.original->Accept(w);
        continue;
      }
      write_element(w, element, n, session);
    }
    w.EndArray();
    return std::string(buffer.GetString(), buffer.GetSize());
  }

  void write_element(JsonWriter& w, const Element& element, std::size_t n,
                     const Container* session) {
    const Message& head = *element.head;
    const bool own = head.origin == Format::gemini_cli && head.json != nullptr &&
                     head.json->IsObject();
    const JsonValue* original = own ? head.json : nullptr;
    if (!head.is_turn() || head.role == Role::none) {
      if (original != nullptr) {
        original->Accept(w);
      }
      return;
    }
    (void)session;
    if (!head.name.empty()) {
      drop("names", head);
    }
    ObjectWriter object(w, original);
    std::string id = head.id.empty() ? fmt::format("convo-{}", n) : head.id;
    object.set_string("id", id);
    if (!head.timestamp.empty()) {
      object.set_string("timestamp", head.timestamp);
    }
    if (head.role == Role::assistant) {
      write_gemini(object, element, original);  // writes the object: its members use locals
      return;
    }
    object.set_string("type", "user");
    object.set("content", [&](JsonWriter& cw) { write_user_content(cw, head, original); });
    object.write();
  }

  void write_user_content(JsonWriter& w, const Message& m, const JsonValue* original) {
    const JsonValue* was = original != nullptr ? find_member(*original, "content") : nullptr;
    std::vector<const Block*> blocks;
    for (const Block& block : m.content.blocks) {
      if (m.content.is_blocks() && block.type != BlockType::tool_result) {
        blocks.push_back(&block);
      }
    }
    bool all_text = std::all_of(blocks.begin(), blocks.end(),
                                [](const Block* b) { return b->type == BlockType::text; });
    if (m.content.is_string() || (all_text && blocks.size() <= 1 && !(was && was->IsArray()))) {
      std::string text = m.content.is_string() ? m.content.text
                                               : (blocks.empty() ? "" : blocks.front()->text);
      write_string(w, text);
      return;
    }
    const bool own = m.origin == Format::gemini_cli || m.origin == Format::gemini;
    GeminiPartWriter parts(own, [&](std::string_view what) { drop(what, m); });
    w.StartArray();
    for (const Block* block : blocks) {
      if (block->type == BlockType::thinking || block->type == BlockType::tool_use) {
        drop(fmt::format("{} blocks in user messages", block_type_name(block->type)), m);
        continue;
      }
      if (parts.holds(*block)) {
        parts.write(w, *block, "");
      }
    }
    w.EndArray();
  }

  void write_gemini(ObjectWriter& object, const Element& element, const JsonValue* original) {
    const Message& head = *element.head;
    object.set_string("type", "gemini");
    std::string text;
    std::vector<const Block*> thoughts;
    std::vector<const Block*> calls;
    for (const Block& block : head.content.blocks) {
      if (!head.content.is_blocks()) {
        break;
      }
      switch (block.type) {
        case BlockType::text:
          text += block.text;
          break;
        case BlockType::thinking:
          thoughts.push_back(&block);
          if (block.signature) {
            drop("thought signatures", head);
          }
          break;
        case BlockType::tool_use:
          calls.push_back(&block);
          break;
        case BlockType::tool_result:
          break;
        default:
          drop(fmt::format("{} blocks in gemini messages",
                           block.type_name.empty() ? block_type_name(block.type)
                                                   : std::string_view(block.type_name)),
               head);
          break;
      }
    }
    if (head.content.is_string()) {
      text = head.content.text;
    }
    object.set("content", [text](JsonWriter& w) { write_string(w, text); });
    const bool own = head.origin == Format::gemini_cli;
    if (!thoughts.empty() || (original != nullptr && find_member(*original, "thoughts"))) {
      object.set("thoughts", [&](JsonWriter& w) {
        w.StartArray();
        for (const Block* thought : thoughts) {
          auto [subject, description] = split_thought(thought->text);
          ObjectWriter t(w, own && thought->json && thought->json->IsObject() ? thought->json : nullptr);
          t.set_string("subject", subject);
          t.set_string("description", description);
          if (!t.original_has("timestamp") && !head.timestamp.empty()) {
            t.set_string("timestamp", head.timestamp);
          }
          t.write();
        }
        w.EndArray();
      });
    }
    std::vector<const Block*> results;
    for (const Message* m : element.results) {
      for (const Block* r : m->tool_results()) {
        results.push_back(r);
      }
    }
    std::vector<std::pair<const Block*, const Block*>> answered;  // call, result or null
    for (const Block* call : calls) {
      auto answer = std::find_if(results.begin(), results.end(),
                                 [&](const Block* r) { return r->id == call->id; });
      answered.emplace_back(call, answer == results.end() ? nullptr : *answer);
      if (answer != results.end()) {
        results.erase(answer);
      }
    }
    if (!calls.empty() || (original != nullptr && find_member(*original, "toolCalls"))) {
      object.set("toolCalls", [&](JsonWriter& w) {
        w.StartArray();
        for (const auto& [call, result] : answered) {
          write_call(w, head, *call, result);
        }
        w.EndArray();
      });
    }
    for (const Block* orphan : results) {
      (void)orphan;
      drop("tool results without calls", head);
    }
    if (!head.usage.empty()) {
      const JsonValue* tokens = original != nullptr ? find_member(*original, "tokens") : nullptr;
      object.set("tokens", [&, tokens](JsonWriter& w) {
        ObjectWriter t(w, tokens != nullptr && tokens->IsObject() ? tokens : nullptr);
        const Usage& u = head.usage;
        auto put = [&](std::string_view key, const std::optional<std::int64_t>& v) {
          if (v) {
            t.set_int(key, *v);
          }
        };
        put("input", u.input);
        put("output", u.output);
        put("cached", u.cache_read);
        put("thoughts", u.reasoning);
        put("total", u.total);
        t.write();
      });
    }
    if (!head.meta->model.empty()) {
      object.set_string("model", head.meta->model);
    }
    object.write();
  }

  void write_call(JsonWriter& w, const Message& head, const Block& call, const Block* result) {
    const bool own = head.origin == Format::gemini_cli && call.json != nullptr && call.json->IsObject();
    ObjectWriter object(w, own ? call.json : nullptr);
    object.set_string("id", call.id);
    object.set_string("name", call.name);
    if (!(own && call.input.empty())) {
      object.set("args", [&](JsonWriter& aw) {
        if (!write_tool_input(aw, call)) {
          aw.StartObject();
          aw.EndObject();
        }
      });
    }
    if (result != nullptr) {
      bool kept = own && result->json == call.json && !result_changed(*result);
      if (!kept) {
        object.set("result", [&](JsonWriter& rw) {
          rw.StartArray();
          rw.StartObject();
          rw.Key("functionResponse");
          rw.StartObject();
          rw.Key("id");
          write_string(rw, call.id);
          rw.Key("name");
          write_string(rw, call.name);
          rw.Key("response");
          GeminiPartWriter::write_response(rw, *result);
          rw.EndObject();
          rw.EndObject();
          rw.EndArray();
        });
        if (result->result.is_blocks()) {
          for (const Block& inner : result->result.blocks) {
            if (inner.type != BlockType::text) {
              drop(fmt::format("{} blocks in tool results", block_type_name(inner.type)), head);
            }
          }
        }
      }
      if (!own) {
        object.set_string("status", result->is_error.value_or(false) ? "error" : "success");
      }
    } else if (!own) {
      object.set_string("status", "cancelled");
    }
    if (!own && !head.timestamp.empty()) {
      object.set_string("timestamp", head.timestamp);
    }
    object.write();
  }

  // True when a stage changed the content of a result decoded from a tool call record.
  static bool result_changed(const Block& result) {
    Block fresh;
    if (result.json == nullptr) {
      return true;
    }
    Block use;
    use.id = result.id;
    use.name = result.name;
    auto again = decode_result(*result.json, "", result.json_owner, use);
    if (!again) {
      return true;
    }
    auto text = [](const Content& c) {
      return c.is_string() ? c.text : c.joined_text();
    };
    return text(again->result) != text(result.result) ||
           again->result.form != result.result.form;
  }

  std::vector<Message> m_pending;
};

}  // namespace

void gemini_cli_unmodelled(const Message& message,
                           const std::function<void(std::string_view)>& unheld) {
  if (message.json == nullptr || !message.json->IsObject() || message.role == Role::tool) {
    return;
  }
  const JsonValue& element = *message.json;
  if (find_member(element, "timestamp") != nullptr) {
    unheld("timestamps");
  }
  // Ids convo gave messages that had none ("convo-N") say nothing.
  if (auto id = string_member(element, "id");
      id && !(id->starts_with("convo-") &&
              id->find_first_not_of("0123456789", 6) == std::string_view::npos)) {
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
  // A message of another format is no session.
  bool message = find_member(record, "role") != nullptr || find_member(record, "content") != nullptr ||
                 find_member(record, "message") != nullptr || find_member(record, "type") != nullptr;
  return message ? -1 : 0;
}

std::unique_ptr<Decoder> make_gemini_cli_decoder() { return std::make_unique<GeminiCliDecoder>(); }

std::unique_ptr<Encoder> make_gemini_cli_encoder(LossReport& loss) {
  return std::make_unique<GeminiCliEncoder>(loss);
}

}  // namespace convo
