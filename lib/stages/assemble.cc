#include "stages/assemble.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <future>
#include <map>
#include <optional>

#include "formats/fields.h"
#include "io/compression.h"
#include "io/input_list.h"
#include "io/output.h"
#include "sse_reader.h"
#include "utf8.h"

namespace convo {

namespace {

JsonValue copy_of(const JsonValue& value, JsonAllocator& alloc) { return JsonValue(value, alloc); }

std::string error_text(const JsonValue& event) {
  const JsonValue* error = find_member(event, "error");
  if (error == nullptr || !error->IsObject()) {
    return "stream error";
  }
  auto type = string_member(*error, "type");
  auto message = string_member(*error, "message");
  if (type && message) {
    return fmt::format("stream error: {}: {}", *type, *message);
  }
  if (message || type) {
    return fmt::format("stream error: {}", message ? *message : *type);
  }
  return fmt::format("stream error: {}", to_json(*error));
}

// --- Anthropic Messages streams (../shared/formats.md section 2.3) ---

class AnthropicResponse {
 public:
  explicit AnthropicResponse(Location where) : m_where(std::move(where)) { m_doc.SetObject(); }

  const Location& where() const { return m_where; }
  std::string id() const { return std::string(string_member(m_doc, "id").value_or("")); }
  bool stopped() const { return m_stopped; }

  void start(const JsonValue& message) {
    m_doc.CopyFrom(message, m_doc.GetAllocator());
    // Content given up front (a prefilled response) is where the blocks start.
    if (const JsonValue* content = find_member(m_doc, "content"); content != nullptr && content->IsArray()) {
      for (const JsonValue& block : content->GetArray()) {
        m_blocks.emplace_back(Block(copy_of(block, m_doc.GetAllocator())));
      }
    }
  }

  // Each returns why the event cannot be applied, or "".
  std::string block_start(const JsonValue& event) {
    auto index = block_index(event);
    if (!index) {
      return "content_block_start has no \"index\"";
    }
    const JsonValue* block = find_member(event, "content_block");
    if (block == nullptr || !block->IsObject()) {
      return "content_block_start has no \"content_block\"";
    }
    if (m_blocks.size() <= *index) {
      m_blocks.resize(*index + 1);
    }
    m_blocks[*index] = Block(copy_of(*block, m_doc.GetAllocator()));
    return "";
  }

  std::string block_delta(const JsonValue& event) {
    auto index = block_index(event);
    if (!index || *index >= m_blocks.size() || !m_blocks[*index]) {
      return fmt::format("content_block_delta for block {}, which has not started",
                         index ? std::to_string(*index) : std::string("(no index)"));
    }
    Block& block = *m_blocks[*index];
    const JsonValue* delta = find_member(event, "delta");
    if (delta == nullptr || !delta->IsObject()) {
      return "content_block_delta has no \"delta\"";
    }
    std::string_view type = string_member(*delta, "type").value_or("");
    if (type == "input_json_delta") {
      block.partial_json += string_member(*delta, "partial_json").value_or("");
      block.has_partial = true;
    } else if (type == "citations_delta") {
      if (const JsonValue* citation = find_member(*delta, "citation")) {
        block.citations.push_back(copy_of(*citation, m_doc.GetAllocator()));
      }
    } else {
      // text_delta{text}, thinking_delta{thinking}, signature_delta{signature},
      // compaction_delta{content}, and newer deltas of the same kind: each string
      // member extends the block's member of that name.
      for (const auto& member : delta->GetObject()) {
        std::string_view key = view_of(member.name);
        if (key != "type" && member.value.IsString()) {
          block.appended[std::string(key)] += view_of(member.value);
        }
      }
    }
    return "";
  }

  std::string block_stop(const JsonValue& event) {
    auto index = block_index(event);
    if (!index || *index >= m_blocks.size() || !m_blocks[*index]) {
      return "content_block_stop for a block that has not started";
    }
    return "";
  }

  void message_delta(const JsonValue& event) {
    JsonAllocator& alloc = m_doc.GetAllocator();
    for (const auto& member : event.GetObject()) {
      std::string_view key = view_of(member.name);
      if (key == "type") {
        continue;
      }
      if (key == "delta" && member.value.IsObject()) {
        for (const auto& field : member.value.GetObject()) {
          set_member(m_doc, view_of(field.name), copy_of(field.value, alloc), alloc);
        }
      } else if (key == "usage" && member.value.IsObject()) {
        // Cumulative counts: each replaces the one message_start gave.
        JsonValue* usage = const_cast<JsonValue*>(find_member(m_doc, "usage"));
        if (usage == nullptr || !usage->IsObject()) {
          set_member(m_doc, "usage", JsonValue(rapidjson::kObjectType), alloc);
          usage = const_cast<JsonValue*>(find_member(m_doc, "usage"));
        }
        for (const auto& field : member.value.GetObject()) {
          set_member(*usage, view_of(field.name), copy_of(field.value, alloc), alloc);
        }
      } else {
        set_member(m_doc, key, copy_of(member.value, alloc), alloc);  // context_management, ...
      }
    }
  }

  void stop() { m_stopped = true; }

  // The message as the unstreamed API returns it.
  std::string json() {
    JsonDoc out;
    out.CopyFrom(m_doc, out.GetAllocator());
    JsonAllocator& alloc = out.GetAllocator();
    JsonValue content(rapidjson::kArrayType);
    for (const std::optional<Block>& state : m_blocks) {
      if (!state) {
        continue;
      }
      JsonValue block(state->json, alloc);
      for (const auto& [key, text] : state->appended) {
        std::string value;
        if (const JsonValue* was = find_member(block, key); was != nullptr && was->IsString()) {
          value = std::string(view_of(*was));
        }
        value += text;
        set_member(block, key, make_string(value, alloc), alloc);
      }
      if (state->has_partial && !state->partial_json.empty()) {
        // The input is the concatenated JSON text; the `{}` of content_block_start
        // was a placeholder. Text cut off mid-way stays text: what arrived.
        JsonDoc input;
        if (!parse_json(state->partial_json, input)) {
          set_member(block, "input", copy_of(input, alloc), alloc);
        } else {
          set_member(block, "input", make_string(state->partial_json, alloc), alloc);
        }
      }
      if (!state->citations.empty()) {
        const JsonValue* was = find_member(block, "citations");
        JsonValue citations(rapidjson::kArrayType);
        if (was != nullptr && was->IsArray()) {
          citations.CopyFrom(*was, alloc);
        }
        for (const JsonValue& citation : state->citations) {
          citations.PushBack(JsonValue(citation, alloc), alloc);
        }
        set_member(block, "citations", std::move(citations), alloc);
      }
      content.PushBack(std::move(block), alloc);
    }
    set_member(out, "content", std::move(content), alloc);
    return to_json(out);
  }

 private:
  struct Block {
    Block() = default;
    explicit Block(JsonValue value) : json(std::move(value)) {}
    JsonValue json;
    std::map<std::string, std::string> appended;
    std::string partial_json;
    bool has_partial = false;
    std::vector<JsonValue> citations;
  };

  static std::optional<std::size_t> block_index(const JsonValue& event) {
    const JsonValue* index = find_member(event, "index");
    if (index == nullptr || !index->IsUint64() || index->GetUint64() > 100000) {
      return std::nullopt;
    }
    return static_cast<std::size_t>(index->GetUint64());
  }

  Location m_where;
  JsonDoc m_doc;
  std::vector<std::optional<Block>> m_blocks;
  bool m_stopped = false;
};

bool is_anthropic_event(std::string_view type) {
  return type == "message_start" || type == "content_block_start" ||
         type == "content_block_delta" || type == "content_block_stop" ||
         type == "message_delta" || type == "message_stop" || type == "ping";
}

// --- OpenAI chat completion chunks (../shared/formats.md section 3.2) ---

// Members of a delta whose string pieces concatenate.
bool is_text_member(std::string_view key) {
  return key == "content" || key == "refusal" || key == "reasoning" || key == "reasoning_content";
}

// Merges the members of successive objects: text members concatenate, arrays
// extend, objects merge (later members replace), other values keep the first that
// is not null. Remembers the order members first appeared in.
class Merger {
 public:
  void merge(const JsonValue& object, JsonAllocator& alloc,
             std::initializer_list<std::string_view> skip = {}) {
    for (const auto& member : object.GetObject()) {
      std::string_view key = view_of(member.name);
      if (std::find(skip.begin(), skip.end(), key) != skip.end()) {
        continue;
      }
      Entry& entry = find(key);
      const JsonValue& value = member.value;
      if (value.IsNull()) {
        continue;
      }
      if (is_text_member(key) && (value.IsString() || value.IsArray())) {
        append_text(entry, value, alloc);
      } else if (value.IsArray()) {
        if (!entry.value.IsArray()) {
          entry.value.SetArray();
        }
        for (const JsonValue& element : value.GetArray()) {
          entry.value.PushBack(JsonValue(element, alloc), alloc);
        }
      } else if (value.IsObject()) {
        if (!entry.value.IsObject()) {
          entry.value.SetObject();
        }
        for (const auto& field : value.GetObject()) {
          set_member(entry.value, view_of(field.name), JsonValue(field.value, alloc), alloc);
        }
      } else if (entry.value.IsNull()) {
        entry.value = JsonValue(value, alloc);
      }
    }
  }

  // Writes the merged members (those of `first` first, in that order) into `out`.
  void write(JsonValue& out, JsonAllocator& alloc, std::initializer_list<std::string_view> first = {}) {
    for (std::string_view key : first) {
      for (Entry& entry : m_entries) {
        if (entry.key == key) {
          put(out, entry, alloc);
        }
      }
    }
    for (Entry& entry : m_entries) {
      if (std::find(first.begin(), first.end(), entry.key) == first.end()) {
        put(out, entry, alloc);
      }
    }
  }

  bool has(std::string_view key) const {
    return std::any_of(m_entries.begin(), m_entries.end(), [&](const Entry& e) { return e.key == key; });
  }

 private:
  struct Entry {
    std::string key;
    bool is_text = false;
    std::string text;
    JsonValue value;  // null until a value comes
  };

  Entry& find(std::string_view key) {
    for (Entry& entry : m_entries) {
      if (entry.key == key) {
        return entry;
      }
    }
    m_entries.push_back(Entry{std::string(key), false, {}, JsonValue()});
    return m_entries.back();
  }

  static void put(JsonValue& out, const Entry& entry, JsonAllocator& alloc) {
    set_member(out, entry.key,
               entry.is_text && !entry.value.IsArray() ? make_string(entry.text, alloc)
                                                       : JsonValue(entry.value, alloc),
               alloc);
  }

  // Text streams as strings, or (Mistral) as lists of parts: then the content is a
  // list in which a part extends the last one when it is of the same type.
  static void append_text(Entry& entry, const JsonValue& value, JsonAllocator& alloc) {
    entry.is_text = true;
    if (value.IsString() && !entry.value.IsArray()) {
      entry.text += view_of(value);
      return;
    }
    if (!entry.value.IsArray()) {
      entry.value.SetArray();
      if (!entry.text.empty()) {
        entry.value.PushBack(text_part(entry.text, alloc), alloc);
      }
    }
    if (value.IsString()) {
      if (value.GetStringLength() > 0) {
        append_part(entry.value, text_part(view_of(value), alloc), alloc);
      }
      return;
    }
    for (const JsonValue& part : value.GetArray()) {
      append_part(entry.value, JsonValue(part, alloc), alloc);
    }
  }

  static JsonValue text_part(std::string_view text, JsonAllocator& alloc) {
    JsonValue part(rapidjson::kObjectType);
    part.AddMember("type", "text", alloc);
    part.AddMember("text", make_string(text, alloc), alloc);
    return part;
  }

  // Appends `part` to `parts`, merging it into the last part when both are of one
  // type: their strings concatenate, their lists merge the same way.
  static void append_part(JsonValue& parts, JsonValue part, JsonAllocator& alloc) {
    if (!parts.Empty() && part.IsObject() && parts[parts.Size() - 1].IsObject()) {
      JsonValue& last = parts[parts.Size() - 1];
      auto type = string_member(part, "type");
      auto last_type = string_member(last, "type");
      if (type && last_type && *type == *last_type) {
        for (auto& member : part.GetObject()) {
          std::string_view key = view_of(member.name);
          auto found = last.FindMember(member.name);
          if (key == "type" || found == last.MemberEnd()) {
            if (found == last.MemberEnd()) {
              last.AddMember(JsonValue(member.name, alloc), JsonValue(member.value, alloc), alloc);
            }
            continue;
          }
          JsonValue& was = found->value;
          if (was.IsString() && member.value.IsString()) {
            std::string joined(view_of(was));
            joined += view_of(member.value);
            was = make_string(joined, alloc);
          } else if (was.IsArray() && member.value.IsArray()) {
            for (auto& inner : member.value.GetArray()) {
              append_part(was, JsonValue(inner, alloc), alloc);
            }
          }
        }
        return;
      }
    }
    parts.PushBack(std::move(part), alloc);
  }

  std::vector<Entry> m_entries;
};

class OpenAIResponse {
 public:
  explicit OpenAIResponse(Location where) : m_where(std::move(where)) {}

  const Location& where() const { return m_where; }
  const std::string& id() const { return m_id; }
  void done() { m_done = true; }
  // Whole: [DONE] came, or every choice has its finish_reason.
  bool complete() const {
    return m_done || (!m_choices.empty() &&
                      std::all_of(m_choices.begin(), m_choices.end(),
                                  [](const Choice& c) { return !c.finish_reason.empty(); }));
  }

  void add(const JsonValue& chunk) {
    JsonAllocator& alloc = m_doc.GetAllocator();
    if (m_id.empty()) {
      m_id = std::string(string_member(chunk, "id").value_or(""));
    }
    m_top.merge(chunk, alloc, {"choices", "usage", "object", "obfuscation"});
    if (const JsonValue* usage = find_member(chunk, "usage"); usage != nullptr && usage->IsObject()) {
      m_usage = JsonValue(*usage, alloc);  // a running total: the last one stands
    }
    const JsonValue* choices = find_member(chunk, "choices");
    if (choices == nullptr || !choices->IsArray()) {
      return;
    }
    for (const JsonValue& choice : choices->GetArray()) {
      if (!choice.IsObject()) {
        continue;
      }
      std::int64_t index = 0;
      if (const JsonValue* i = find_member(choice, "index"); i != nullptr && i->IsInt64()) {
        index = i->GetInt64();
      }
      Choice& c = choice_at(index);
      if (const JsonValue* delta = find_member(choice, "delta"); delta != nullptr && delta->IsObject()) {
        // `index` and `token_id` in a delta number the chunk, not the message.
        c.message.merge(*delta, alloc, {"tool_calls", "index", "token_id"});
        if (const JsonValue* calls = find_member(*delta, "tool_calls");
            calls != nullptr && calls->IsArray()) {
          for (const JsonValue& call : calls->GetArray()) {
            if (call.IsObject()) {
              add_call(c, call);
            }
          }
        }
      }
      if (auto reason = string_member(choice, "finish_reason")) {
        c.finish_reason = std::string(*reason);
      }
      c.rest.merge(choice, alloc, {"index", "delta", "finish_reason"});
    }
  }

  // The response as the unstreamed API returns it.
  std::string json() {
    JsonDoc out;
    out.SetObject();
    JsonAllocator& alloc = out.GetAllocator();
    JsonValue top(rapidjson::kObjectType);
    m_top.write(top, alloc, {"id"});
    set_member(out, "id", make_string(m_id, alloc), alloc);
    set_member(out, "object", make_string("chat.completion", alloc), alloc);
    for (std::string_view key : {std::string_view("created"), std::string_view("model")}) {
      if (const JsonValue* value = find_member(top, key)) {
        set_member(out, key, JsonValue(*value, alloc), alloc);
      }
    }
    JsonValue choices(rapidjson::kArrayType);
    std::sort(m_choices.begin(), m_choices.end(),
              [](const Choice& a, const Choice& b) { return a.index < b.index; });
    for (Choice& c : m_choices) {
      JsonValue choice(rapidjson::kObjectType);
      set_member(choice, "index", JsonValue(static_cast<int64_t>(c.index)), alloc);
      JsonValue message(rapidjson::kObjectType);
      set_member(message, "role", make_string("assistant", alloc), alloc);
      set_member(message, "content", JsonValue(), alloc);
      c.message.write(message, alloc, {"role", "content"});
      if (!c.calls.empty()) {
        JsonValue calls(rapidjson::kArrayType);
        for (Call& call : c.calls) {
          JsonValue object(rapidjson::kObjectType);
          set_member(object, "id", make_string(call.id, alloc), alloc);
          set_member(object, "type", make_string(call.type.empty() ? "function" : call.type, alloc), alloc);
          JsonValue function(rapidjson::kObjectType);
          set_member(function, "name", make_string(call.name, alloc), alloc);
          set_member(function, "arguments", make_string(call.arguments, alloc), alloc);
          set_member(object, "function", std::move(function), alloc);
          call.rest.write(object, alloc);
          calls.PushBack(std::move(object), alloc);
        }
        set_member(message, "tool_calls", std::move(calls), alloc);
      }
      set_member(choice, "message", std::move(message), alloc);
      c.rest.write(choice, alloc);
      set_member(choice, "finish_reason",
                 c.finish_reason.empty() ? JsonValue() : make_string(c.finish_reason, alloc), alloc);
      choices.PushBack(std::move(choice), alloc);
    }
    set_member(out, "choices", std::move(choices), alloc);
    if (!m_usage.IsNull()) {
      set_member(out, "usage", JsonValue(m_usage, alloc), alloc);
    }
    for (const auto& member : top.GetObject()) {
      std::string_view key = view_of(member.name);
      if (key != "id" && key != "created" && key != "model") {
        set_member(out, key, JsonValue(member.value, alloc), alloc);
      }
    }
    return to_json(out);
  }

 private:
  struct Call {
    std::int64_t index = -1;
    std::string id;
    std::string type;
    std::string name;
    std::string arguments;
    Merger rest;  // members convo does not model
  };
  struct Choice {
    std::int64_t index = 0;
    Merger message;
    std::vector<Call> calls;
    std::string finish_reason;
    Merger rest;  // logprobs, native_finish_reason, ...
  };

  Choice& choice_at(std::int64_t index) {
    for (Choice& c : m_choices) {
      if (c.index == index) {
        return c;
      }
    }
    m_choices.push_back(Choice{index, {}, {}, {}, {}});
    return m_choices.back();
  }

  // A tool-call fragment extends the call of its index (one provider sends no
  // index: then the call with its id, else a new call).
  void add_call(Choice& c, const JsonValue& fragment) {
    JsonAllocator& alloc = m_doc.GetAllocator();
    std::optional<std::int64_t> index;
    if (const JsonValue* i = find_member(fragment, "index"); i != nullptr && i->IsInt64()) {
      index = i->GetInt64();
    }
    std::string_view id = string_member(fragment, "id").value_or("");
    Call* call = nullptr;
    for (Call& existing : c.calls) {
      if ((index && existing.index == *index) || (!index && !id.empty() && existing.id == id)) {
        call = &existing;
      }
    }
    if (call == nullptr) {
      c.calls.push_back(Call{index.value_or(static_cast<std::int64_t>(c.calls.size())), {}, {}, {}, {}, {}});
      call = &c.calls.back();
    }
    if (call->id.empty()) {
      call->id = std::string(id);  // the first id wins
    }
    if (call->type.empty()) {
      call->type = std::string(string_member(fragment, "type").value_or(""));
    }
    if (const JsonValue* function = find_member(fragment, "function"); function != nullptr && function->IsObject()) {
      if (call->name.empty()) {
        call->name = std::string(string_member(*function, "name").value_or(""));
      }
      call->arguments += string_member(*function, "arguments").value_or("");
    }
    call->rest.merge(fragment, alloc, {"index", "id", "type", "function"});
  }

  Location m_where;
  JsonDoc m_doc;  // owns the merged values
  std::string m_id;
  Merger m_top;
  JsonValue m_usage;
  std::vector<Choice> m_choices;
  bool m_done = false;
};

bool is_openai_chunk(const JsonValue& event) {
  auto object = string_member(event, "object");
  const JsonValue* choices = find_member(event, "choices");
  return (object && *object == "chat.completion.chunk") || (choices != nullptr && choices->IsArray());
}


// --- LangChain AIMessageChunk records (messages_to_dict of streamed chunks) ---

// The message object of a LangChain chunk record (`data` of a stored record,
// `kwargs` of a constructor, or the dict itself), or nullptr when `event` is none.
const JsonValue* langchain_chunk(const JsonValue& event) {
  auto type = string_member(event, "type");
  const JsonValue* inner = &event;
  std::string_view name = type.value_or("");
  if (type && *type == "constructor") {
    const JsonValue* id = find_member(event, "id");
    if (id == nullptr || !id->IsArray() || id->Empty() || !(*id)[id->Size() - 1].IsString()) {
      return nullptr;
    }
    name = view_of((*id)[id->Size() - 1]);
    inner = find_member(event, "kwargs");
  } else if (const JsonValue* data = find_member(event, "data"); data != nullptr && data->IsObject()) {
    inner = data;
  }
  if (inner == nullptr || !inner->IsObject() || find_member(*inner, "content") == nullptr) {
    return nullptr;
  }
  // LangChain.js writes a chunk's type as "ai"; its tool_call_chunks tell it apart.
  bool chunk = name == "AIMessageChunk" || (name == "ai" && find_member(*inner, "tool_call_chunks") != nullptr);
  return chunk ? inner : nullptr;
}

// Adds the counts of `more` to `sum` (usage_metadata, LangChain's add_usage): every
// number, at any depth, is added; anything else is kept from the first.
void add_counts(JsonValue& sum, const JsonValue& more, JsonAllocator& alloc) {
  for (const auto& member : more.GetObject()) {
    auto found = sum.FindMember(member.name);
    if (found == sum.MemberEnd()) {
      sum.AddMember(JsonValue(member.name, alloc), JsonValue(member.value, alloc), alloc);
    } else if (found->value.IsInt64() && member.value.IsInt64()) {
      found->value.SetInt64(found->value.GetInt64() + member.value.GetInt64());
    } else if (found->value.IsNumber() && member.value.IsNumber()) {
      found->value.SetDouble(found->value.GetDouble() + member.value.GetDouble());
    } else if (found->value.IsObject() && member.value.IsObject()) {
      add_counts(found->value, member.value, alloc);
    }
  }
}

// Merges `more` into `into` as LangChain's merge_dicts does: strings concatenate
// (identical ones, such as ids, are kept once), objects merge, lists merge element
// by `index`, other values keep the first.
void merge_dicts(JsonValue& into, const JsonValue& more, JsonAllocator& alloc);

void merge_lists(JsonValue& into, const JsonValue& more, JsonAllocator& alloc) {
  for (const JsonValue& element : more.GetArray()) {
    const JsonValue* index = element.IsObject() ? find_member(element, "index") : nullptr;
    JsonValue* same = nullptr;
    if (index != nullptr) {
      for (JsonValue& existing : into.GetArray()) {
        const JsonValue* other = existing.IsObject() ? find_member(existing, "index") : nullptr;
        if (other != nullptr && *other == *index) {
          same = &existing;
        }
      }
    }
    if (same != nullptr) {
      merge_dicts(*same, element, alloc);
    } else {
      into.PushBack(JsonValue(element, alloc), alloc);
    }
  }
}

void merge_dicts(JsonValue& into, const JsonValue& more, JsonAllocator& alloc) {
  for (const auto& member : more.GetObject()) {
    auto found = into.FindMember(member.name);
    if (found == into.MemberEnd() || found->value.IsNull()) {
      set_member(into, view_of(member.name), JsonValue(member.value, alloc), alloc);
      continue;
    }
    JsonValue& was = found->value;
    const JsonValue& value = member.value;
    std::string_view key = view_of(member.name);
    if (was.IsString() && value.IsString()) {
      if (key != "type" && key != "index" && view_of(was) != view_of(value)) {
        std::string joined(view_of(was));
        joined += view_of(value);
        was = make_string(joined, alloc);
      }
    } else if (was.IsObject() && value.IsObject()) {
      merge_dicts(was, value, alloc);
    } else if (was.IsArray() && value.IsArray()) {
      merge_lists(was, value, alloc);
    }
  }
}

class LangChainChunks {
 public:
  explicit LangChainChunks(Location where) : m_where(std::move(where)) {
    m_data.SetObject();
  }

  const Location& where() const { return m_where; }
  const std::string& id() const { return m_id; }

  void add(const JsonValue& chunk) {
    JsonAllocator& alloc = m_data.GetAllocator();
    if (m_id.empty()) {
      m_id = std::string(string_member(chunk, "id").value_or(""));
    }
    for (const auto& member : chunk.GetObject()) {
      std::string_view key = view_of(member.name);
      const JsonValue& value = member.value;
      if (key == "tool_calls" && value.IsArray()) {
        // Whole calls: what the message has when no chunk carries fragments
        // (LangChain's AIMessageChunk.__add__ concatenates them then).
        if (!m_whole_calls.IsArray()) {
          m_whole_calls.SetArray();
        }
        for (const JsonValue& call : value.GetArray()) {
          m_whole_calls.PushBack(JsonValue(call, alloc), alloc);
        }
        continue;
      }
      if (key == "type" || key == "id" || key == "tool_calls" || key == "invalid_tool_calls" ||
          value.IsNull()) {
        continue;  // the calls are parsed again from the joined chunks
      }
      if (key == "content") {
        add_content(value, alloc);
      } else if (key == "usage_metadata" && value.IsObject()) {
        // Each chunk counts its own tokens: they add up (LangChain's add_usage).
        if (!m_usage.IsObject()) {
          m_usage.SetObject();
        }
        add_counts(m_usage, value, alloc);
      } else if (key == "tool_call_chunks" && value.IsArray()) {
        if (!m_calls.IsArray()) {
          m_calls.SetArray();
        }
        merge_lists(m_calls, value, alloc);
      } else {
        JsonValue piece(rapidjson::kObjectType);
        piece.AddMember(JsonValue(member.name, alloc), JsonValue(value, alloc), alloc);
        merge_dicts(m_data, piece, alloc);
      }
    }
  }

  // The joined message as LangChain's messages_to_dict writes an AIMessage.
  std::string json() {
    JsonDoc out;
    out.SetObject();
    JsonAllocator& alloc = out.GetAllocator();
    JsonValue data(rapidjson::kObjectType);
    set_member(data, "content", m_has_text ? make_string(m_text, alloc) : JsonValue(m_content, alloc), alloc);
    if (!m_has_text && !m_content.IsArray()) {
      set_member(data, "content", make_string("", alloc), alloc);
    }
    for (std::string_view key : {std::string_view("additional_kwargs"), std::string_view("response_metadata")}) {
      const JsonValue* value = find_member(m_data, key);
      set_member(data, key, value != nullptr ? JsonValue(*value, alloc) : JsonValue(rapidjson::kObjectType), alloc);
    }
    set_member(data, "type", make_string("ai", alloc), alloc);
    const JsonValue* name = find_member(m_data, "name");
    set_member(data, "name", name != nullptr ? JsonValue(*name, alloc) : JsonValue(), alloc);
    set_member(data, "id", m_id.empty() ? JsonValue() : make_string(m_id, alloc), alloc);
    // Tool calls from the joined fragments: args that parse are a call, the others
    // an invalid call, as LangChain's AIMessageChunk makes them.
    JsonValue calls(rapidjson::kArrayType);
    JsonValue invalid(rapidjson::kArrayType);
    if (m_calls.IsArray()) {
      for (const JsonValue& fragment : m_calls.GetArray()) {
        std::string args(string_member(fragment, "args").value_or(""));
        auto field = [&](std::string_view key) {
          auto text = string_member(fragment, key);
          return text ? make_string(*text, alloc) : JsonValue();
        };
        JsonDoc parsed;
        bool ok = args.empty() || (!parse_json(args, parsed) && parsed.IsObject());
        JsonValue call(rapidjson::kObjectType);
        set_member(call, "name", field("name"), alloc);
        if (ok) {
          set_member(call, "args", args.empty() ? JsonValue(rapidjson::kObjectType) : JsonValue(parsed, alloc), alloc);
          set_member(call, "id", field("id"), alloc);
          set_member(call, "type", make_string("tool_call", alloc), alloc);
          calls.PushBack(std::move(call), alloc);
        } else {
          set_member(call, "args", make_string(args, alloc), alloc);
          set_member(call, "id", field("id"), alloc);
          set_member(call, "error", make_string("Malformed args.", alloc), alloc);
          set_member(call, "type", make_string("invalid_tool_call", alloc), alloc);
          invalid.PushBack(std::move(call), alloc);
        }
      }
    }
    if ((!m_calls.IsArray() || m_calls.Empty()) && m_whole_calls.IsArray()) {
      for (const JsonValue& call : m_whole_calls.GetArray()) {
        calls.PushBack(JsonValue(call, alloc), alloc);
      }
    }
    set_member(data, "tool_calls", std::move(calls), alloc);
    set_member(data, "invalid_tool_calls", std::move(invalid), alloc);
    set_member(data, "usage_metadata", m_usage.IsObject() ? JsonValue(m_usage, alloc) : JsonValue(), alloc);
    set_member(out, "type", make_string("ai", alloc), alloc);
    set_member(out, "data", std::move(data), alloc);
    return to_json(out);
  }

 private:
  // Strings concatenate; lists merge by `index` (LangChain's merge_content). A
  // string meeting a list becomes a text block in it.
  void add_content(const JsonValue& value, JsonAllocator& alloc) {
    if (value.IsString() && !m_content.IsArray()) {
      m_text += view_of(value);
      m_has_text = true;
      return;
    }
    if (!m_content.IsArray()) {
      m_content.SetArray();
      if (!m_text.empty()) {
        JsonValue text(rapidjson::kObjectType);
        text.AddMember("type", "text", alloc);
        text.AddMember("text", make_string(m_text, alloc), alloc);
        m_content.PushBack(std::move(text), alloc);
      }
      m_text.clear();
      m_has_text = false;
    }
    if (value.IsArray()) {
      merge_lists(m_content, value, alloc);
    } else if (value.IsString() && value.GetStringLength() > 0) {
      JsonValue text(rapidjson::kObjectType);
      text.AddMember("type", "text", alloc);
      text.AddMember("text", JsonValue(value, alloc), alloc);
      m_content.PushBack(std::move(text), alloc);
    }
  }

  Location m_where;
  JsonDoc m_data;  // owns everything below
  std::string m_id;
  std::string m_text;
  bool m_has_text = false;
  JsonValue m_content;  // a list, once any chunk gave one
  JsonValue m_calls;    // tool_call_chunks, joined by index
  JsonValue m_whole_calls;  // tool_calls of chunks, in order (used when no fragments)
  JsonValue m_usage;
};

// --- The driver ---

class StreamAssembler {
 public:
  StreamAssembler(StreamEventReader& reader, Diagnostics& diagnostics)
      : m_reader(reader), m_diagnostics(diagnostics) {}

  std::vector<AssembledResponse> run() {
    StreamEvent event;
    Location last = Location{m_reader.file()};
    while (m_reader.next(event)) {
      handle(event);
      last = event.where;
    }
    // A stream cut off ends after its last event: that is the place to name.
    if (m_anthropic) {
      std::string id = m_anthropic->id();
      emit_anthropic(fmt::format("stream ends here, before message_stop: message {} is incomplete",
                                 id.empty() ? "(no id)" : id),
                     last);
    }
    if (m_langchain) {
      emit_langchain();
    }
    if (m_openai) {
      if (m_openai->complete()) {
        emit_openai("", {});
      } else {
        std::string id = m_openai->id();
        emit_openai(fmt::format("stream ends here, before [DONE] or a finish_reason: response {} is "
                                "incomplete",
                                id.empty() ? "(no id)" : id),
                    last);
      }
    }
    return std::move(m_out);
  }

 private:
  void handle(const StreamEvent& event) {
    if (event.data.empty()) {
      return;
    }
    if (event.data == "[DONE]") {
      if (m_openai) {
        m_openai->done();
        emit_openai("", {});
      }
      return;
    }
    JsonDoc doc;
    if (auto error = parse_json(event.data, doc)) {
      Location where = event.where;
      where.column = event.data_column + error->offset;
      fail_current(fmt::format("event data is not JSON: {}", error->message), where);
      return;
    }
    if (!doc.IsObject()) {
      fail_current(fmt::format("event data is {}, not an object", json_type_name(doc)), event.where);
      return;
    }
    std::string_view type = string_member(doc, "type").value_or("");
    if (event.name == "error" || type == "error" ||
        (find_member(doc, "error") != nullptr && !is_openai_chunk(doc) && type.empty())) {
      fail_current(error_text(doc), event.where);
      return;
    }
    if (is_anthropic_event(type) || is_anthropic_event(event.name)) {
      anthropic(doc, type, event);
    } else if (is_openai_chunk(doc)) {
      openai(doc, event);
    } else if (const JsonValue* chunk = langchain_chunk(doc)) {
      langchain(*chunk, event);
    } else {
      m_diagnostics.warning(event.where, fmt::format("ignored an event of unknown type{}",
                                                     type.empty() ? std::string()
                                                                  : fmt::format(" \"{}\"", type)));
    }
  }

  void anthropic(const JsonValue& doc, std::string_view type, const StreamEvent& event) {
    if (m_langchain) {
      emit_langchain();
    }
    if (m_openai) {
      emit_openai(m_openai->complete() ? "" : "an Anthropic stream starts before the OpenAI one ends",
                  event.where);
    }
    if (type == "ping") {
      return;
    }
    if (type == "message_start") {
      const JsonValue* message = find_member(doc, "message");
      std::string id(message != nullptr ? string_member(*message, "id").value_or("") : "");
      if (m_anthropic && m_anthropic->id() == id) {
        return;  // a repeated message_start of the same message
      }
      if (m_anthropic) {
        // A new message begins before the open one stopped: that one was cut off.
        std::string old = m_anthropic->id();
        emit_anthropic(fmt::format("message {} ends without message_stop: message {} starts here",
                                   old.empty() ? "(no id)" : old, id.empty() ? "(no id)" : id),
                       event.where, /*warning_only=*/true);
      }
      m_anthropic = std::make_unique<AnthropicResponse>(event.where);
      if (message == nullptr || !message->IsObject()) {
        fail_current("message_start has no \"message\"", event.where);
        return;
      }
      m_anthropic->start(*message);
      return;
    }
    if (!m_anthropic) {
      fail_current(fmt::format("{} before message_start", type), event.where);
      return;
    }
    std::string problem;
    if (type == "content_block_start") {
      problem = m_anthropic->block_start(doc);
    } else if (type == "content_block_delta") {
      problem = m_anthropic->block_delta(doc);
    } else if (type == "content_block_stop") {
      problem = m_anthropic->block_stop(doc);
    } else if (type == "message_delta") {
      m_anthropic->message_delta(doc);
    } else if (type == "message_stop") {
      m_anthropic->stop();
      emit_anthropic("", {});
      return;
    }
    if (!problem.empty()) {
      fail_current(problem, event.where);
    }
  }

  void openai(const JsonValue& doc, const StreamEvent& event) {
    if (m_langchain) {
      emit_langchain();
    }
    if (m_anthropic) {
      emit_anthropic("an OpenAI stream starts before the Anthropic one ends", event.where);
    }
    // The next response of the file starts with a new id once this one is complete
    // (some providers give every chunk of one response an id of its own).
    std::string_view id = string_member(doc, "id").value_or("");
    if (m_openai && m_openai->complete() && !id.empty() && id != m_openai->id()) {
      emit_openai("", {});
    }
    if (!m_openai) {
      m_openai = std::make_unique<OpenAIResponse>(event.where);
    }
    m_openai->add(doc);
  }

  void langchain(const JsonValue& chunk, const StreamEvent& event) {
    if (m_anthropic) {
      emit_anthropic("a LangChain chunk comes before the Anthropic stream ends", event.where);
    }
    if (m_openai) {
      emit_openai(m_openai->complete() ? "" : "a LangChain chunk comes before the OpenAI stream ends",
                  event.where);
    }
    // Chunks of another message (a new id) start the next one; LangChain streams
    // mark no end, so a message is whole when the next begins or the input ends.
    std::string_view id = string_member(chunk, "id").value_or("");
    if (m_langchain && !id.empty() && !m_langchain->id().empty() && id != m_langchain->id()) {
      emit_langchain();
    }
    if (!m_langchain) {
      m_langchain = std::make_unique<LangChainChunks>(event.where);
    }
    m_langchain->add(chunk);
    if (auto position = string_member(chunk, "chunk_position"); position && *position == "last") {
      emit_langchain();
    }
  }

  void emit_langchain() {
    AssembledResponse response;
    response.format = Format::langchain;
    response.json = m_langchain->json();
    response.where = m_langchain->where();
    m_out.push_back(std::move(response));
    m_langchain.reset();
  }

  // The open response ends here with `problem`; with none open, the problem alone.
  void fail_current(const std::string& problem, const Location& where) {
    if (m_langchain) {
      emit_langchain();
      m_out.back().problem = problem;
      m_out.back().problem_at = where;
      m_out.back().whole = false;
    } else if (m_anthropic) {
      emit_anthropic(problem, where);
    } else if (m_openai) {
      emit_openai(problem, where);
    } else {
      AssembledResponse response;
      response.problem = problem;
      response.problem_at = where;
      m_out.push_back(std::move(response));
    }
  }

  void emit_anthropic(const std::string& problem, const Location& where, bool warning_only = false) {
    AssembledResponse response;
    response.format = Format::anthropic;
    response.json = m_anthropic->json();
    response.where = m_anthropic->where();
    if (warning_only) {
      m_diagnostics.warning(where, problem);
    } else {
      response.problem = problem;
      response.problem_at = where;
    }
    response.whole = problem.empty();
    m_out.push_back(std::move(response));
    m_anthropic.reset();
  }

  void emit_openai(const std::string& problem, const Location& where) {
    AssembledResponse response;
    response.format = Format::openai;
    response.json = m_openai->json();
    response.where = m_openai->where();
    response.problem = problem;
    response.problem_at = where;
    response.whole = problem.empty();
    m_out.push_back(std::move(response));
    m_openai.reset();
  }

  StreamEventReader& m_reader;
  Diagnostics& m_diagnostics;
  std::unique_ptr<AnthropicResponse> m_anthropic;
  std::unique_ptr<OpenAIResponse> m_openai;
  std::unique_ptr<LangChainChunks> m_langchain;
  std::vector<AssembledResponse> m_out;
};

}  // namespace

std::vector<AssembledResponse> assemble_stream(StreamEventReader& reader, Diagnostics& diagnostics) {
  return StreamAssembler(reader, diagnostics).run();
}

namespace {

// The warnings of one stream, held until its turn to be written comes (with -j).
class HeldDiagnostics final : public Diagnostics {
 public:
  void warning(const Location& where, std::string_view what) override {
    m_held.emplace_back(where, std::string(what));
  }
  void replay(Diagnostics& to) const {
    for (const auto& [where, what] : m_held) {
      to.warning(where, what);
    }
  }

 private:
  std::vector<std::pair<Location, std::string>> m_held;
};

struct AssembledInput {
  std::vector<AssembledResponse> responses;
  HeldDiagnostics warnings;
};

AssembledInput assemble_input(const std::string& path, const AssembleOptions& options,
                              const Opener& open) {
  AssembledInput input;
  std::string name = display_name(path);
  StreamEventReader reader(decompressing(counted(open(path), options.progress), name), name);
  input.responses = assemble_stream(reader, input.warnings);
  if (options.progress != nullptr) {
    options.progress->records.fetch_add(input.responses.size(), std::memory_order_relaxed);
    options.progress->inputs_done.fetch_add(1, std::memory_order_relaxed);
  }
  return input;
}

}  // namespace

AssembleStats assemble(const AssembleOptions& options, Output& out, Diagnostics& diagnostics,
                       const Opener& open) {
  AssembleStats stats;
  std::uint64_t stray = 0;  // events with a problem that belong to no response
  LossReport loss(options.strict);
  // As every subcommand reads: compressed streams decompressed, a directory as
  // the transcript files below it.
  std::vector<std::string> inputs =
      options.inputs.empty() ? std::vector<std::string>{"-"} : expand_inputs(options.inputs, &diagnostics);
  if (options.progress != nullptr) {
    count_inputs(inputs, *options.progress);
  }
  // Up to `jobs` streams are assembled ahead on threads of their own; they are
  // written, and their warnings and errors given, in input order.
  unsigned jobs = std::max(1u, options.jobs);
  std::deque<std::future<AssembledInput>> pending;
  std::size_t next = 0;
  auto launch = [&] {
    pending.push_back(std::async(jobs > 1 ? std::launch::async : std::launch::deferred,
                                 assemble_input, std::cref(inputs[next]), std::cref(options),
                                 std::cref(open)));
    ++next;
  };
  while (next < inputs.size() && pending.size() < jobs) {
    launch();
  }
  while (!pending.empty()) {
    AssembledInput input = pending.front().get();
    pending.pop_front();
    if (next < inputs.size()) {
      launch();
    }
    input.warnings.replay(diagnostics);
    std::vector<AssembledResponse>& responses = input.responses;
    FormatWriter writer(out, options.to, loss);
    for (AssembledResponse& response : responses) {
      if (!response.json.empty() && options.from && response.format != *options.from) {
        throw Error(response.where,
                    fmt::format("the stream is {}, not {} as --from says",
                                format_name(response.format), format_name(*options.from)));
      }
      if (!response.json.empty()) {
        // The events' strings are copied as they came; JSON (and the APIs) take
        // only UTF-8, so a stream with bytes that are not is not written out.
        if (std::optional<std::size_t> bad = find_invalid_utf8(response.json)) {
          std::string problem = fmt::format(
              "the response's text is not valid UTF-8 (byte 0x{:02X}); it is not written",
              static_cast<unsigned char>(response.json[*bad]));
          response.json.clear();
          if (response.problem.empty()) {
            response.problem = std::move(problem);
            response.problem_at = response.where;
          } else {
            diagnostics.warning(response.where, problem);
          }
        }
      }
      if (!response.json.empty()) {
        ++stats.responses;
        Record record;
        record.raw = std::move(response.json);
        record.where = response.where;
        record.source = std::make_shared<Source>();
        if (parse_json(record.raw, record.source->doc)) {
          throw std::logic_error("internal error: an assembled response is not JSON");
        }
        std::vector<Message> messages;
        try {
          format_info(response.format).make_decoder()->decode(std::move(record), messages);
        } catch (const DecodeError& error) {
          throw Error(response.where,
                      fmt::format("the assembled response does not read as {}: {}: {}",
                                  format_name(response.format), readable_path(error.path()),
                                  error.message()));
        }
        for (Message& message : messages) {
          writer.put(std::move(message));
        }
        writer.end_input();
      }
      if (!response.problem.empty()) {
        // An event outside any response (after a garbled one) is not a response.
        if (response.format != Format::none) {
          ++stats.incomplete;
        } else {
          ++stray;
        }
        if (options.on_error == OnError::fail) {
          out.flush();  // what arrived, then the error
          throw Error(response.problem_at, response.problem);
        }
        diagnostics.warning(response.problem_at, response.problem);
      }
    }
    writer.end_input();
  }
  out.flush();
  if (!loss.empty()) {
    diagnostics.warning(Location{}, fmt::format("dropped what the output format cannot hold: "
                                                "{} (--strict makes this an error)",
                                                loss.summary()));
  }
  if (stats.incomplete > 0 && options.on_error != OnError::fail) {
    diagnostics.warning(Location{}, fmt::format("{} incomplete response{}", stats.incomplete,
                                                stats.incomplete == 1 ? "" : "s"));
  }
  if (stray > 0 && options.on_error != OnError::fail) {
    diagnostics.warning(Location{}, fmt::format("{} event{} outside any response ignored", stray,
                                                stray == 1 ? "" : "s"));
  }
  return stats;
}

}  // namespace convo
