// The gemini-cli writer: Gemini CLI chats from messages (see gemini_cli.h).
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "formats/fields.h"
#include "formats/gemini_cli.h"
#include "formats/gemini_parts.h"
#include "formats/json_out.h"
#include "formats/mapping.h"
#include "formats/object_writer.h"
#include "formats/responses_items.h"
#include "formats/session_ids.h"
#include "formats/tool_turns.h"
#include "io/output.h"

namespace convo {

namespace {

// The messages that make one element of `messages`: a head (a user turn, an
// assistant turn, or a record that is not a turn) and the turns whose tool results
// answer the head's calls.
struct Element {
  const Message* head = nullptr;
  std::vector<const Message*> more;  // assistant turns of the same response (see `group`)
  std::vector<const Message*> results;
  // Of `results`, those that also answer calls of other elements: only their results
  // for this element's calls are its.
  std::vector<const Message*> shared;
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

bool has_results(const Message& m) {
  return m.content.is_blocks() && m.has_tool_results();
}

// The assistant turns an element writes as one `gemini` record: its head and `more`.
std::vector<const Message*> turns_of(const Element& e) {
  std::vector<const Message*> turns{e.head};
  turns.insert(turns.end(), e.more.begin(), e.more.end());
  return turns;
}

// True when `m` is an assistant turn that continues the response `e` holds: formats
// of one item a message (Responses items: reasoning, message, function_call) split a
// response that Gemini CLI keeps as one record, up to the first tool result.
// A Gemini CLI record holds its thoughts, then its text, then its calls: the place
// of a block in that order (-1 for none of them).
int record_stage(const Block& block) {
  switch (block.type) {
    case BlockType::thinking:
      return 0;
    case BlockType::text:
      return 1;
    case BlockType::tool_use:
      return 2;
    default:
      return -1;
  }
}

// The stages of the first and last blocks of `m` that have one.
std::pair<int, int> record_stages(const Message& m) {
  if (m.content.is_string()) {
    return {1, 1};
  }
  int first = -1, last = -1;
  for (const Block& block : m.content.blocks) {
    int stage = record_stage(block);
    if (stage >= 0) {
      first = first < 0 ? stage : first;
      last = stage;
    }
  }
  return {first, last};
}

bool continues_response(const Element& e, const Message& m) {
  if (e.head == nullptr || e.head->role != Role::assistant || !e.head->is_turn() ||
      !e.results.empty() || !m.is_turn() || m.role != Role::assistant ||
      !holds_responses_items(m.origin) || !holds_responses_items(e.head->origin)) {
    return false;
  }
  // Only where the record keeps the items' order and bounds: after what it holds
  // (thoughts, text, calls), or one more thought or call. A second message item
  // (Responses' commentary phase, then the final answer) is a record of its own, or
  // its text would come back joined to the first one's as one message.
  int before = -1;
  for (const Message* turn : turns_of(e)) {
    before = std::max(before, record_stages(*turn).second);
  }
  int next = record_stages(m).first;
  return next > before || (next == before && next != 1);
}

// A UUID derived from `text` (session_ids.h): a session id that is the same for the
// same conversation.
std::string session_id_for(std::string_view text) {
  return derived_uuid({"gemini-cli-session:", text});
}

class GeminiCliEncoder final : public EncoderBase {
 public:
  explicit GeminiCliEncoder(LossReport& loss) : EncoderBase(Format::gemini_cli, loss) {}

 protected:
  // Messages from other formats are held until the input ends, then written as one
  // session document.
  void encode(const Message& message, Records& values) override {
    if (message.kind != Kind::turn || message.role == Role::none) {
      if (message.kind == Kind::bookkeeping && same_format(message) && !message.container) {
        values.add(to_json(*message.json));  // a `session-*.jsonl` chat's own line
      } else if (message.origin == Format::gemini_cli && message.json != nullptr) {
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

  void drain(Records& values) override {
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
    values.add(std::string(buffer.GetString(), buffer.GetSize()));
    m_pending.clear();
  }

  void write_changed_container(const Container& container, std::vector<Message>& held,
                               Output& out) override {
    const auto& session = container;
    std::vector<const Message*> messages;
    for (const Message& m : held) {
      messages.push_back(&m);
    }
    if (container.array_key.empty()) {
      // A message line of a `session-*.jsonl` chat: what its messages are now, one
      // line a message.
      for (const Element& element : group(messages, &session)) {
        rapidjson::StringBuffer buffer;
        JsonWriter w(buffer);
        if (element.original != nullptr) {
          element.original->Accept(w);
        } else {
          write_element(w, element, 1, &session);
        }
        if (buffer.GetSize() > 0) {
          out.write_line(std::string_view(buffer.GetString(), buffer.GetSize()));
        }
      }
      return;
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
      if (!elements.empty() && continues_response(elements.back(), *m)) {
        elements.back().more.push_back(m);
        continue;
      }
      bool joins = !elements.empty() && elements.back().head != nullptr &&
                   elements.back().head->role == Role::assistant && m->is_turn() && has_results(*m);
      if (joins) {
        // Each result goes with the turn that made its call: calls one per message
        // (OpenAI Responses items) are answered after the last of them.
        std::vector<Element*> owners;
        for (const Block* result : m->tool_results()) {
          for (auto e = elements.rbegin(); e != elements.rend(); ++e) {
            if (e->head == nullptr || e->head->role != Role::assistant) {
              break;
            }
            bool made = false;
            for (const Message* turn : turns_of(*e)) {
              auto calls = turn->tool_uses();
              made = made || std::any_of(calls.begin(), calls.end(),
                                         [&](const Block* call) { return call->id == result->id; });
            }
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
          if (owners.size() > 1) {
            owner->shared.push_back(m);
          }
          // Calls made in separate messages and answered after them all (Claude Code
          // records parallel calls one a record): a Gemini CLI record's results follow
          // its own calls, so each result comes before the calls made after its own.
          if (owner != &elements.back()) {
            drop("tool results after later calls", *m);
          }
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
      // (A message line of a `session-*.jsonl` chat is its one element.)
      const JsonValue& doc = session->source->doc;
      const JsonValue* array = session->array_key.empty() ? nullptr : find_member(doc, "messages");
      for (Element& element : elements) {
        std::vector<const Message*> all = turns_of(element);
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
        if (intact && index != SIZE_MAX) {
          std::size_t count = static_cast<std::size_t>(
              std::count(session->element_of_slot.begin(), session->element_of_slot.end(), index));
          if (count != all.size()) {
            continue;
          }
          if (session->array_key.empty()) {
            element.original = &doc;
          } else if (array != nullptr && index < array->Size()) {
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
      std::string_view text = m.content.is_string()
                                  ? m.content.text.view()
                                  : (blocks.empty() ? std::string_view() : blocks.front()->text.view());
      write_string(w, text);
      return;
    }
    const bool own = m.origin == Format::gemini_cli || m.origin == Format::gemini;
    GeminiPartWriter parts(own, [&](std::string_view what) { drop(what, m); });
    w.StartArray();
    for (const Block* block : blocks) {
      if (block->type == BlockType::thinking || block->type == BlockType::tool_use) {
        drop(fmt::format("{} in user messages", blocks_of(*block)), m);
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
    std::vector<std::string> texts;  // one a text block: several are written as parts
    std::vector<const Block*> thoughts;
    std::vector<const Block*> calls;
    // The thoughts, texts and calls in their order (a null block: a string content),
    // and whether that order is Gemini CLI's (thoughts, then text, then calls).
    std::vector<std::pair<const Block*, std::string>> pieces;
    bool in_order = true;
    int stage = 0;
    auto piece = [&](const Block* block, int at, std::string_view text) {
      if (at == 1 && text.empty()) {
        return;  // an empty text holds nothing (and the API refuses empty text parts)
      }
      in_order = in_order && at >= stage;
      stage = std::max(stage, at);
      pieces.emplace_back(block, text);
    };
    const Usage* usage = &*head.usage;
    const std::string* model = &head.meta->model;
    for (const Message* turn : turns_of(element)) {
      if (usage->empty()) {
        usage = &*turn->usage;
      }
      if (model->empty()) {
        model = &turn->meta->model;
      }
      if (turn->content.is_string()) {
        texts.push_back(turn->content.text.str());
        piece(nullptr, 1, turn->content.text);
      }
      if (!turn->content.is_blocks()) {
        continue;
      }
      for (const Block& block : turn->content.blocks) {
        switch (block.type) {
          case BlockType::text:
            texts.push_back(block.text.str());
            piece(&block, 1, block.text);
            break;
          case BlockType::thinking:
            thoughts.push_back(&block);
            piece(&block, 0, block.text);
            if (block.signature) {
              drop("thought signatures", *turn);
            }
            break;
          case BlockType::tool_use:
            calls.push_back(&block);
            piece(&block, 2, "");
            break;
          case BlockType::tool_result:
            break;
          default:
            drop(fmt::format("{} blocks in gemini messages",
                             block.type_name.empty() ? block_type_name(block.type)
                                                     : std::string_view(block.type_name)),
                 *turn);
            break;
        }
      }
    }
    // Several text blocks are a list of text parts (Gemini CLI's content is a
    // PartListUnion: it sends each part as it is), so they come back apart; one is
    // the string Gemini CLI itself records. Empty ones hold nothing (and the API
    // refuses empty text parts).
    std::erase_if(texts, [](const std::string& t) { return t.empty(); });
    if (!in_order) {
      // Thoughts, text and calls in another order (a thought after text, text between
      // calls): the content holds them all as parts in their order, which Gemini CLI
      // then sends as they are (thought parts and functionCall parts in a gemini
      // record's content stand for its `thoughts` and calls; `toolCalls` still hold
      // the calls' results).
      object.set("content", [pieces](JsonWriter& w) {
        w.StartArray();
        for (const auto& [block, text] : pieces) {
          w.StartObject();
          if (block != nullptr && block->type == BlockType::tool_use) {
            w.Key("functionCall");
            w.StartObject();
            w.Key("id");
            write_string(w, block->id);
            w.Key("name");
            write_string(w, block->name);
            w.Key("args");
            if (!write_tool_input(w, *block)) {
              w.StartObject();
              w.EndObject();
            }
            w.EndObject();
          } else {
            w.Key("text");
            write_string(w, text);
            if (block != nullptr && block->type == BlockType::thinking) {
              w.Key("thought");
              w.Bool(true);
            }
          }
          w.EndObject();
        }
        w.EndArray();
      });
      object.remove("thoughts");
      thoughts.clear();
    } else {
      object.set("content", [texts](JsonWriter& w) {
        if (texts.size() <= 1) {
          write_string(w, texts.empty() ? std::string() : texts.front());
          return;
        }
        w.StartArray();
        for (const std::string& t : texts) {
          w.StartObject();
          w.Key("text");
          write_string(w, t);
          w.EndObject();
        }
        w.EndArray();
      });
    }
    const bool own = head.origin == Format::gemini_cli;
    if (!thoughts.empty() || (in_order && original != nullptr && find_member(*original, "thoughts"))) {
      object.set("thoughts", [&](JsonWriter& w) {
        w.StartArray();
        for (const Block* thought : thoughts) {
          auto [subject, description] = split_gemini_thought(thought->text);
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
      bool shared = std::find(element.shared.begin(), element.shared.end(), m) != element.shared.end();
      for (const Block* r : m->tool_results()) {
        if (shared && std::none_of(calls.begin(), calls.end(),
                                   [&](const Block* call) { return call->id == r->id; })) {
          continue;  // another element's call's
        }
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
    if (!usage->empty()) {
      const JsonValue* tokens = original != nullptr ? find_member(*original, "tokens") : nullptr;
      object.set("tokens", [&, tokens, usage](JsonWriter& w) {
        ObjectWriter t(w, tokens != nullptr && tokens->IsObject() ? tokens : nullptr);
        const Usage& u = *usage;
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
    if (!model->empty()) {
      object.set_string("model", *model);
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
          // The text before the first file is the response; a file's bytes follow
          // the functionResponse, as Gemini CLI's read_file gives them, and so does
          // text after a file, as a text part of its own (the result's order kept).
          const auto& blocks = result->result.blocks;
          auto first_media = result->result.is_blocks()
                                 ? std::find_if(blocks.begin(), blocks.end(),
                                                [](const Block& b) { return is_media(b.type); })
                                 : blocks.end();
          // The response holds one text: the texts before the first file are joined.
          if (std::count_if(blocks.begin(), first_media, [](const Block& b) {
                return b.type == BlockType::text;
              }) > 1) {
            drop("text block boundaries in tool results", head);
          }
          if (first_media == blocks.end()) {
            GeminiPartWriter::write_response(rw, *result);
          } else if (first_media == blocks.begin()) {
            rw.StartObject();  // no text before the file: `{}`, as Gemini's media alone
            rw.EndObject();
          } else {
            Block lead = *result;
            lead.result.blocks.assign(blocks.begin(), first_media);
            GeminiPartWriter::write_response(rw, lead);
          }
          rw.EndObject();
          rw.EndObject();
          GeminiPartWriter media(false, [this, &head](std::string_view what) { drop(what, head); });
          for (auto inner = first_media; inner != blocks.end(); ++inner) {
            if (is_media(inner->type) && media.holds(*inner)) {
              media.write(rw, *inner, "");
            } else if (inner->type == BlockType::text) {
              rw.StartObject();
              rw.Key("text");
              write_string(rw, inner->text);
              rw.EndObject();
            }
          }
          rw.EndArray();
        });
        if (result->result.is_blocks()) {
          for (const Block& inner : result->result.blocks) {
            if (inner.type != BlockType::text && !is_media(inner.type)) {
              drop(fmt::format("{} in tool results", blocks_of(inner)), head);
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
    auto again = decode_gemini_cli_result(*result.json, "", result.json_owner, use);
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

std::unique_ptr<Encoder> make_gemini_cli_encoder(LossReport& loss) {
  return std::make_unique<GeminiCliEncoder>(loss);
}

}  // namespace convo
