#include "formats/openai_stream.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>

#include "formats/fields.h"
#include "sse_reader.h"

namespace convo {

namespace {

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

// One chat.completion put together from its chunks (../shared/formats.md section 3.2).
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

class OpenAIReader final : public StreamReader {
 public:
  Format format() const override { return Format::openai; }
  std::string_view name() const override { return "OpenAI"; }
  std::string_view arrival() const override { return "an OpenAI stream starts"; }

  bool claims(const StreamEvent& event, const JsonValue& doc) const override {
    (void)event;
    return is_openai_chunk(doc);
  }
  bool owns_error_member(const JsonValue& doc) const override { return is_openai_chunk(doc); }

  bool end_marker(std::string_view data, std::vector<AssembledResponse>& out) override {
    if (data != "[DONE]") {
      return false;
    }
    if (m_response) {
      m_response->done();
      out.push_back(end("", {}));
    }
    return true;
  }

  std::string take(const StreamEvent& event, const JsonValue& doc,
                   std::vector<AssembledResponse>& out, Diagnostics& diagnostics) override {
    (void)diagnostics;
    // The next response of the file starts with a new id once this one is complete
    // (some providers give every chunk of one response an id of its own).
    std::string_view id = string_member(doc, "id").value_or("");
    if (m_response && m_response->complete() && !id.empty() && id != m_response->id()) {
      out.push_back(end("", {}));
    }
    if (!m_response) {
      m_response = std::make_unique<OpenAIResponse>(event.where);
    }
    m_response->add(doc);
    return "";
  }

  bool open() const override { return m_response != nullptr; }
  bool complete() const override { return m_response->complete(); }
  std::string cut_off() const override {
    const std::string& id = m_response->id();
    return fmt::format(
        "stream ends here, before [DONE] or a finish_reason: response {} is incomplete",
        id.empty() ? "(no id)" : id);
  }

  bool reads_parts() const override { return true; }

  // A chat.completion body has choices too, with a `message` where a chunk's have
  // a `delta`.
  bool is_event(const JsonValue& doc) const override {
    if (!is_openai_chunk(doc) || string_member(doc, "object").value_or("") == "chat.completion") {
      return false;
    }
    const JsonValue* choices = find_member(doc, "choices");
    return choices == nullptr || !choices->IsArray() ||
           std::none_of(choices->GetArray().begin(), choices->GetArray().end(), [](const JsonValue& choice) {
             return choice.IsObject() && find_member(choice, "message") != nullptr;
           });
  }

  std::string read_parts(const StreamEvent& event, const JsonValue& doc,
                         std::vector<StreamPart>& out) override {
    (void)event;
    std::string_view id = string_member(doc, "id").value_or("");
    if (m_live.begun && m_live.finished && !id.empty() && id != m_live.id) {
      finish(out);  // the next response starts, the last one having finished without [DONE]
    }
    if (!m_live.begun) {
      m_live = Live{};
      m_live.begun = true;
      m_live.id = std::string(id);
      StreamPart part;
      part.kind = StreamPart::Kind::begin;
      part.id = m_live.id;
      part.model = std::string(string_member(doc, "model").value_or(""));
      if (const JsonValue* created = find_member(doc, "created"); created != nullptr && created->IsInt64()) {
        part.created = created->GetInt64();
      }
      out.push_back(std::move(part));
    }
    if (const JsonValue* usage = find_member(doc, "usage"); usage != nullptr && usage->IsObject()) {
      read_usage(*usage);
    }
    const JsonValue* choices = find_member(doc, "choices");
    if (choices == nullptr || !choices->IsArray()) {
      return "";
    }
    for (const JsonValue& choice : choices->GetArray()) {
      if (!choice.IsObject()) {
        continue;
      }
      if (const JsonValue* i = find_member(choice, "index"); i != nullptr && i->IsInt64() && i->GetInt64() != 0) {
        continue;  // a stream gives one response: its first choice
      }
      if (const JsonValue* delta = find_member(choice, "delta"); delta != nullptr && delta->IsObject()) {
        for (std::string_view key : {std::string_view("reasoning_content"), std::string_view("reasoning")}) {
          if (auto text = string_member(*delta, key); text && !text->empty()) {
            text_delta(BlockType::thinking, *text, out);
          }
        }
        for (std::string_view key : {std::string_view("content"), std::string_view("refusal")}) {
          if (auto text = string_member(*delta, key); text && !text->empty()) {
            text_delta(BlockType::text, *text, out);
          }
        }
        if (const JsonValue* calls = find_member(*delta, "tool_calls"); calls != nullptr && calls->IsArray()) {
          for (const JsonValue& call : calls->GetArray()) {
            if (!call.IsObject()) {
              continue;
            }
            if (std::string problem = call_delta(call, out); !problem.empty()) {
              return problem;
            }
          }
        }
      }
      if (auto reason = string_member(choice, "finish_reason")) {
        close_block(out);
        m_live.finished = true;
        m_live.stop = stop_reason_named(*reason);
      }
    }
    return "";
  }

  bool parts_end_marker(std::string_view data, std::vector<StreamPart>& out) override {
    if (data != "[DONE]") {
      return false;
    }
    if (m_live.begun) {
      finish(out);
    }
    return true;
  }

  bool parts_at_input_end(std::vector<StreamPart>& out) override {
    if (!m_live.begun || !m_live.finished) {
      return false;
    }
    finish(out);
    return true;
  }

  AssembledResponse end(std::string problem, Location where) override {
    AssembledResponse response;
    response.format = Format::openai;
    response.json = m_response->json();
    response.where = m_response->where();
    response.whole = problem.empty();
    response.problem = std::move(problem);
    response.problem_at = std::move(where);
    m_response.reset();
    return response;
  }

 private:
  // Live reading: what the open response needs, its open block and its tool calls'
  // numbers (a few bytes each), never its text.
  struct Waiting {
    std::int64_t index = 0;
    std::string id;
    std::string name;
    std::string arguments;  // held until the call begins
  };
  struct Live {
    bool begun = false;
    bool finished = false;  // a finish_reason came
    std::string id;
    std::size_t blocks = 0;  // blocks begun
    std::optional<std::size_t> open;  // the open block
    BlockType open_type = BlockType::text;
    std::optional<std::int64_t> open_call;  // the tool call index of the open block
    std::vector<std::int64_t> calls;        // tool call indexes seen
    std::vector<Waiting> waiting;           // calls named while another is open
    StopReason stop = StopReason::none;
    Usage usage;
  };

  // Ends the open block, after beginning (and ending) every waiting call in turn.
  void close_block(std::vector<StreamPart>& out) {
    if (!m_live.waiting.empty()) {
      begin_waiting(m_live.waiting.back().index, out);
    }
    end_open_block(out);
  }

  void end_open_block(std::vector<StreamPart>& out) {
    if (m_live.open) {
      StreamPart part;
      part.kind = StreamPart::Kind::block_end;
      part.index = *m_live.open;
      out.push_back(std::move(part));
      m_live.open.reset();
      m_live.open_call.reset();
    }
  }

  std::size_t open_block(BlockType type, std::vector<StreamPart>& out, StreamPart part = {}) {
    end_open_block(out);
    part.kind = StreamPart::Kind::block_begin;
    part.block = type;
    part.index = m_live.blocks++;
    m_live.open = part.index;
    m_live.open_type = type;
    out.push_back(std::move(part));
    return *m_live.open;
  }

  void text_delta(BlockType type, std::string_view text, std::vector<StreamPart>& out) {
    if (!m_live.open || m_live.open_type != type) {
      close_block(out);
      open_block(type, out);
    }
    StreamPart part;
    part.kind = StreamPart::Kind::delta;
    part.index = *m_live.open;
    part.text = std::string(text);
    out.push_back(std::move(part));
  }

  // A tool-call fragment. Calls are blocks one after another; OpenAI may name a
  // call before the last one's arguments are done (parallel calls named first, then
  // their arguments in turn). So a call named while another is open waits, its
  // arguments held, until a fragment of it brings arguments: then the open call is
  // taken as done. Only a call that goes on after it was taken as done cannot be said.
  std::string call_delta(const JsonValue& call, std::vector<StreamPart>& out) {
    std::int64_t index = static_cast<std::int64_t>(m_live.calls.size());
    if (const JsonValue* i = find_member(call, "index"); i != nullptr && i->IsInt64()) {
      index = i->GetInt64();
    } else if (m_live.open_call && string_member(call, "id").value_or("").empty()) {
      index = *m_live.open_call;  // no index and no id: more of the open call
    }
    const JsonValue* function = find_member(call, "function");
    std::string_view arguments;
    if (function != nullptr && function->IsObject()) {
      arguments = string_member(*function, "arguments").value_or("");
    }
    if (m_live.open_call == index) {
      call_arguments(arguments, out);
      return "";
    }
    auto waiting = std::find_if(m_live.waiting.begin(), m_live.waiting.end(),
                                [&](const Waiting& w) { return w.index == index; });
    if (waiting == m_live.waiting.end()) {
      if (std::find(m_live.calls.begin(), m_live.calls.end(), index) != m_live.calls.end()) {
        return fmt::format("tool call {} goes on after the next call's arguments began; "
                           "a stream of blocks one after another cannot say that",
                           index);
      }
      m_live.calls.push_back(index);
      Waiting w;
      w.index = index;
      w.id = std::string(string_member(call, "id").value_or(""));
      if (function != nullptr && function->IsObject()) {
        w.name = std::string(string_member(*function, "name").value_or(""));
      }
      m_live.waiting.push_back(std::move(w));
      waiting = m_live.waiting.end() - 1;
      if (!m_live.open_call) {
        begin_waiting(index, out);  // no call open: it begins at once
        call_arguments(arguments, out);
        return "";
      }
    }
    waiting->arguments += arguments;
    if (!arguments.empty()) {
      begin_waiting(index, out);
    }
    return "";
  }

  void call_arguments(std::string_view arguments, std::vector<StreamPart>& out) {
    if (!arguments.empty()) {
      StreamPart part;
      part.kind = StreamPart::Kind::delta;
      part.index = *m_live.open;
      part.text = std::string(arguments);
      out.push_back(std::move(part));
    }
  }

  // Begins the waiting calls up to call `index` in the order they were named, the
  // open block and all but the last ending; call `index` stays open.
  void begin_waiting(std::int64_t index, std::vector<StreamPart>& out) {
    while (!m_live.waiting.empty()) {
      Waiting w = std::move(m_live.waiting.front());
      m_live.waiting.erase(m_live.waiting.begin());
      StreamPart part;
      part.id = std::move(w.id);
      part.name = std::move(w.name);
      open_block(BlockType::tool_use, out, std::move(part));
      m_live.open_call = w.index;
      call_arguments(w.arguments, out);
      if (w.index == index) {
        return;
      }
    }
  }

  void read_usage(const JsonValue& usage) {
    auto count = [&](const JsonValue& object, std::string_view key) -> std::optional<std::int64_t> {
      if (const JsonValue* n = find_member(object, key); n != nullptr && n->IsInt64()) {
        return n->GetInt64();
      }
      return std::nullopt;
    };
    Usage u;
    std::optional<std::int64_t> prompt = count(usage, "prompt_tokens");
    if (const JsonValue* details = find_member(usage, "prompt_tokens_details");
        details != nullptr && details->IsObject()) {
      u.cache_read = count(*details, "cached_tokens");
    }
    if (prompt) {
      u.input = *prompt - u.cache_read.value_or(0);
    }
    u.output = count(usage, "completion_tokens");
    if (const JsonValue* details = find_member(usage, "completion_tokens_details");
        details != nullptr && details->IsObject()) {
      u.reasoning = count(*details, "reasoning_tokens");
    }
    m_live.usage = u;  // a running total with some providers: the last one stands
  }

  // The response ends whole: its open block, its stop reason and usage, its end.
  void finish(std::vector<StreamPart>& out) {
    close_block(out);
    StreamPart part;
    part.kind = StreamPart::Kind::finish;
    part.stop = m_live.stop;
    part.usage = m_live.usage;
    out.push_back(std::move(part));
    StreamPart end;
    end.kind = StreamPart::Kind::end;
    out.push_back(std::move(end));
    m_live = Live{};
  }

  std::unique_ptr<OpenAIResponse> m_response;
  Live m_live;
};

}  // namespace

std::unique_ptr<StreamReader> make_openai_stream_reader() {
  return std::make_unique<OpenAIReader>();
}

}  // namespace convo
