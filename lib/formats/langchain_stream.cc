#include "formats/langchain_stream.h"

#include <fmt/format.h>

#include "formats/fields.h"
#include "sse_reader.h"

namespace convo {

namespace {

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

// One AIMessage joined from its chunks.
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

class LangChainReader final : public StreamReader {
 public:
  Format format() const override { return Format::langchain; }
  std::string_view name() const override { return "LangChain"; }
  std::string_view arrival() const override { return "a LangChain chunk comes"; }

  bool claims(const StreamEvent& event, const JsonValue& doc) const override {
    (void)event;
    return langchain_chunk(doc) != nullptr;
  }

  std::string take(const StreamEvent& event, const JsonValue& doc,
                   std::vector<AssembledResponse>& out, Diagnostics& diagnostics) override {
    (void)diagnostics;
    const JsonValue& chunk = *langchain_chunk(doc);
    // Chunks of another message (a new id) start the next one; LangChain streams
    // mark no end, so a message is whole when the next begins or the input ends.
    std::string_view id = string_member(chunk, "id").value_or("");
    if (m_chunks && !id.empty() && !m_chunks->id().empty() && id != m_chunks->id()) {
      out.push_back(end("", {}));
    }
    if (!m_chunks) {
      m_chunks = std::make_unique<LangChainChunks>(event.where);
    }
    m_chunks->add(chunk);
    if (auto position = string_member(chunk, "chunk_position"); position && *position == "last") {
      out.push_back(end("", {}));
    }
    return "";
  }

  bool open() const override { return m_chunks != nullptr; }
  // No event marks the end: whatever has arrived is the message.
  bool complete() const override { return true; }
  std::string cut_off() const override { return ""; }

  AssembledResponse end(std::string problem, Location where) override {
    AssembledResponse response;
    response.format = Format::langchain;
    response.json = m_chunks->json();
    response.where = m_chunks->where();
    response.whole = problem.empty();
    response.problem = std::move(problem);
    response.problem_at = std::move(where);
    m_chunks.reset();
    return response;
  }

 private:
  std::unique_ptr<LangChainChunks> m_chunks;
};

}  // namespace

std::unique_ptr<StreamReader> make_langchain_stream_reader() {
  return std::make_unique<LangChainReader>();
}

}  // namespace convo
