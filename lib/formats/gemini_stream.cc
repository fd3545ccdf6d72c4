#include "formats/gemini_stream.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>

#include "formats/fields.h"
#include "formats/gemini_parts.h"
#include "sse_reader.h"

namespace convo {

namespace {

// A GenerateContentResponse chunk: candidates, or a chunk of usage or prompt
// feedback alone; never another API's event (typed, or with choices).
bool is_gemini_chunk(const JsonValue& doc) {
  if (!doc.IsObject() || find_member(doc, "type") != nullptr || find_member(doc, "choices") != nullptr ||
      find_member(doc, "object") != nullptr) {
    return false;
  }
  if (const JsonValue* candidates = find_member(doc, "candidates")) {
    return candidates->IsArray();
  }
  return (find_member(doc, "usageMetadata") != nullptr || find_member(doc, "promptFeedback") != nullptr) &&
         (find_member(doc, "modelVersion") != nullptr || find_member(doc, "responseId") != nullptr);
}

// True when the chunk's candidates bring parts.
bool has_parts(const JsonValue& doc) {
  const JsonValue* candidates = find_member(doc, "candidates");
  if (candidates == nullptr || !candidates->IsArray()) {
    return false;
  }
  return std::any_of(candidates->GetArray().begin(), candidates->GetArray().end(), [](const JsonValue& c) {
    const JsonValue* content = c.IsObject() ? find_member(c, "content") : nullptr;
    const JsonValue* parts = content != nullptr && content->IsObject() ? find_member(*content, "parts") : nullptr;
    return parts != nullptr && parts->IsArray() && !parts->Empty();
  });
}

// A text part that is text alone: `text`, maybe `thought` and `thoughtSignature`.
bool is_plain_text(const JsonValue& part) {
  const JsonValue* text = find_member(part, "text");
  if (text == nullptr || !text->IsString()) {
    return false;
  }
  return std::all_of(part.MemberBegin(), part.MemberEnd(), [](const auto& m) {
    std::string_view key = view_of(m.name);
    return key == "text" || key == "thought" || key == "thoughtSignature";
  });
}

bool is_thought(const JsonValue& part) { return bool_member(part, "thought").value_or(false); }

// The member `key` of object `at` (made an object if it is not), added as null when absent.
JsonValue& object_slot(JsonValue& at, std::string_view key, JsonAllocator& alloc) {
  if (!at.IsObject()) {
    at.SetObject();
  }
  auto found = at.FindMember(JsonValue(rapidjson::StringRef(key.data(), key.size())));
  if (found != at.MemberEnd()) {
    return found->value;
  }
  at.AddMember(make_string(key, alloc), JsonValue(), alloc);
  return (at.MemberEnd() - 1)->value;
}

JsonValue& array_slot(JsonValue& at, std::size_t index, JsonAllocator& alloc) {
  if (!at.IsArray()) {
    at.SetArray();
  }
  while (at.Size() <= index) {
    at.PushBack(JsonValue(), alloc);
  }
  return at[static_cast<rapidjson::SizeType>(index)];
}

// Applies one of Vertex's streamed argument pieces (`{jsonPath: "$.a[0].b",
// stringValue | numberValue | boolValue | nullValue}`) to `args`: a string piece
// extends the string there, any other value replaces it. False when its path is
// not one convo reads.
bool apply_partial_arg(JsonValue& args, const JsonValue& partial, JsonAllocator& alloc) {
  std::optional<std::string_view> path = partial.IsObject() ? string_member(partial, "jsonPath") : std::nullopt;
  if (!path || path->empty() || path->front() != '$') {
    return false;
  }
  JsonValue* at = &args;
  std::string_view rest = path->substr(1);
  while (!rest.empty()) {
    if (rest.front() == '.') {
      rest.remove_prefix(1);
      std::size_t end = std::min(rest.find_first_of(".["), rest.size());
      at = &object_slot(*at, rest.substr(0, end), alloc);
      rest.remove_prefix(end);
    } else if (rest.front() == '[') {
      std::size_t close = rest.find(']');
      if (close == std::string_view::npos || close < 2) {
        return false;
      }
      std::string_view inside = rest.substr(1, close - 1);
      rest.remove_prefix(close + 1);
      if (inside.size() >= 2 && (inside.front() == '\'' || inside.front() == '"')) {
        at = &object_slot(*at, inside.substr(1, inside.size() - 2), alloc);
        continue;
      }
      std::size_t index = 0;
      auto [ptr, ec] = std::from_chars(inside.data(), inside.data() + inside.size(), index);
      if (ec != std::errc() || ptr != inside.data() + inside.size() || index > 100000) {
        return false;
      }
      at = &array_slot(*at, index, alloc);
    } else {
      return false;
    }
  }
  if (auto piece = string_member(partial, "stringValue")) {
    std::string joined(at->IsString() ? view_of(*at) : std::string_view());
    joined += *piece;
    *at = make_string(joined, alloc);
  } else if (const JsonValue* number = find_member(partial, "numberValue")) {
    *at = JsonValue(*number, alloc);
  } else if (const JsonValue* flag = find_member(partial, "boolValue")) {
    *at = JsonValue(*flag, alloc);
  } else if (find_member(partial, "nullValue") != nullptr) {
    at->SetNull();
  }
  return true;
}

// Applies a functionCall's `partialArgs` to `args`.
void apply_partial_args(JsonValue& args, const JsonValue& call, JsonAllocator& alloc) {
  if (const JsonValue* partials = find_member(call, "partialArgs"); partials != nullptr && partials->IsArray()) {
    for (const JsonValue& partial : partials->GetArray()) {
      apply_partial_arg(args, partial, alloc);
    }
  }
}

// --- Assembling ---

// One GenerateContentResponse put together from its chunks.
class GeminiResponse {
 public:
  explicit GeminiResponse(Location where) : m_where(std::move(where)) { m_top.SetObject(); }

  const Location& where() const { return m_where; }
  const std::string& id() const { return m_id; }

  // Whole: every candidate has its finishReason (or the prompt was blocked).
  bool complete() const {
    if (m_candidates.empty()) {
      const JsonValue* feedback = find_member(m_top, "promptFeedback");
      return feedback != nullptr && feedback->IsObject() && find_member(*feedback, "blockReason") != nullptr;
    }
    return std::all_of(m_candidates.begin(), m_candidates.end(), [](const Candidate& c) { return c.finished; });
  }

  void add(const JsonValue& chunk) {
    JsonAllocator& alloc = m_doc.GetAllocator();
    if (m_id.empty()) {
      m_id = std::string(string_member(chunk, "responseId").value_or(""));
    }
    for (const auto& member : chunk.GetObject()) {
      std::string_view key = view_of(member.name);
      if (key != "candidates" && !member.value.IsNull()) {
        set_member(m_top, key, JsonValue(member.value, alloc), alloc);  // the last one stands
      }
    }
    const JsonValue* candidates = find_member(chunk, "candidates");
    if (candidates == nullptr || !candidates->IsArray()) {
      return;
    }
    for (const JsonValue& candidate : candidates->GetArray()) {
      if (!candidate.IsObject()) {
        continue;
      }
      std::int64_t index = 0;
      if (const JsonValue* i = find_member(candidate, "index"); i != nullptr && i->IsInt64()) {
        index = i->GetInt64();
      }
      Candidate& c = candidate_at(index);
      for (const auto& member : candidate.GetObject()) {
        std::string_view key = view_of(member.name);
        if (key == "content" && member.value.IsObject()) {
          add_content(c, member.value);
        } else if (!member.value.IsNull()) {
          set_member(c.rest, key, JsonValue(member.value, alloc), alloc);
          c.finished = c.finished || key == "finishReason";
        }
      }
    }
  }

  // The response as the unstreamed API returns it.
  std::string json() {
    JsonDoc out;
    out.SetObject();
    JsonAllocator& alloc = out.GetAllocator();
    if (!m_candidates.empty()) {
      std::stable_sort(m_candidates.begin(), m_candidates.end(),
                       [](const Candidate& a, const Candidate& b) { return a.index < b.index; });
      JsonValue candidates(rapidjson::kArrayType);
      for (Candidate& c : m_candidates) {
        JsonValue candidate(rapidjson::kObjectType);
        if (c.has_content) {
          JsonValue content(rapidjson::kObjectType);
          JsonValue parts(rapidjson::kArrayType);
          for (Part& part : c.parts) {
            JsonValue value(part.value, alloc);
            if (part.is_text) {
              set_member(value, "text", make_string(part.text, alloc), alloc);
            }
            parts.PushBack(std::move(value), alloc);
          }
          content.AddMember("parts", std::move(parts), alloc);
          for (const auto& member : c.content.GetObject()) {
            set_member(content, view_of(member.name), JsonValue(member.value, alloc), alloc);
          }
          candidate.AddMember("content", std::move(content), alloc);
        }
        for (const auto& member : c.rest.GetObject()) {
          set_member(candidate, view_of(member.name), JsonValue(member.value, alloc), alloc);
        }
        candidates.PushBack(std::move(candidate), alloc);
      }
      out.AddMember("candidates", std::move(candidates), alloc);
    }
    for (const auto& member : m_top.GetObject()) {
      set_member(out, view_of(member.name), JsonValue(member.value, alloc), alloc);
    }
    return to_json(out);
  }

 private:
  struct Part {
    JsonValue value;  // the part; a text part's text is `text`
    bool is_text = false;
    bool thought = false;
    bool is_signed = false;
    std::string text;
    bool open_call = false;  // a streamed call whose arguments go on (`willContinue`)
  };
  struct Candidate {
    std::int64_t index = 0;
    bool has_content = false;
    std::vector<Part> parts;
    JsonValue content{rapidjson::kObjectType};  // the content's members but parts
    JsonValue rest{rapidjson::kObjectType};     // finishReason, index, safetyRatings, ...
    bool finished = false;
  };

  Candidate& candidate_at(std::int64_t index) {
    for (Candidate& c : m_candidates) {
      if (c.index == index) {
        return c;
      }
    }
    m_candidates.emplace_back();
    m_candidates.back().index = index;
    return m_candidates.back();
  }

  void add_content(Candidate& c, const JsonValue& content) {
    JsonAllocator& alloc = m_doc.GetAllocator();
    c.has_content = true;
    for (const auto& member : content.GetObject()) {
      std::string_view key = view_of(member.name);
      if (key == "parts" && member.value.IsArray()) {
        for (const JsonValue& part : member.value.GetArray()) {
          add_part(c, part);
        }
      } else if (key != "parts" && !member.value.IsNull()) {
        set_member(c.content, key, JsonValue(member.value, alloc), alloc);
      }
    }
  }

  void add_part(Candidate& c, const JsonValue& part) {
    JsonAllocator& alloc = m_doc.GetAllocator();
    Part* last = c.parts.empty() ? nullptr : &c.parts.back();
    if (!part.IsObject()) {
      c.parts.push_back(Part{JsonValue(part, alloc), false, false, false, {}, false});
      return;
    }
    const JsonValue* call = find_member(part, "functionCall");
    if (call != nullptr && call->IsObject()) {
      bool goes_on = bool_member(*call, "willContinue").value_or(false);
      if (last != nullptr && last->open_call && find_member(*call, "name") == nullptr) {
        // More of the open call's arguments.
        JsonValue& open = last->value["functionCall"];
        apply_partial_args(object_slot(open, "args", alloc), *call, alloc);
        if (const JsonValue* signature = find_member(part, "thoughtSignature")) {
          set_member(last->value, "thoughtSignature", JsonValue(*signature, alloc), alloc);
        }
        last->open_call = goes_on;
        return;
      }
      close_call(c);
      Part whole{JsonValue(part, alloc), false, false, false, {}, goes_on};
      if (goes_on || find_member(*call, "partialArgs") != nullptr) {
        JsonValue& fc = whole.value["functionCall"];
        JsonValue args(rapidjson::kObjectType);
        if (const JsonValue* given = find_member(*call, "args"); given != nullptr && given->IsObject()) {
          args.CopyFrom(*given, alloc);
        }
        apply_partial_args(args, *call, alloc);
        erase_member(fc, "willContinue");
        erase_member(fc, "partialArgs");
        set_member(fc, "args", std::move(args), alloc);
      }
      c.parts.push_back(std::move(whole));
      return;
    }
    close_call(c);
    if (is_plain_text(part)) {
      std::string_view text = view_of(part["text"]);
      bool thought = is_thought(part);
      const JsonValue* signature = find_member(part, "thoughtSignature");
      if (last != nullptr && last->is_text && !last->is_signed && last->thought == thought) {
        last->text += text;
        if (signature != nullptr) {
          set_member(last->value, "thoughtSignature", JsonValue(*signature, alloc), alloc);
          last->is_signed = true;
        }
        return;
      }
      if (text.empty() && signature == nullptr) {
        return;  // an empty piece of text adds nothing
      }
      c.parts.push_back(Part{JsonValue(part, alloc), true, thought, signature != nullptr, std::string(text), false});
      return;
    }
    c.parts.push_back(Part{JsonValue(part, alloc), false, false, false, {}, false});
  }

  // A streamed call that never said its arguments were done ends with the next part.
  static void close_call(Candidate& c) {
    if (!c.parts.empty()) {
      c.parts.back().open_call = false;
    }
  }

  Location m_where;
  JsonDoc m_doc;  // owns the merged values
  std::string m_id;
  JsonValue m_top;  // the members but candidates, the last of each
  std::vector<Candidate> m_candidates;
};

// --- Live reading ---

Usage usage_of(const JsonValue& metadata) {
  auto count = [&](std::string_view key) -> std::optional<std::int64_t> {
    if (const JsonValue* n = find_member(metadata, key); n != nullptr && n->IsInt64()) {
      return n->GetInt64();
    }
    return std::nullopt;
  };
  Usage usage;
  usage.cache_read = count("cachedContentTokenCount");
  if (auto prompt = count("promptTokenCount")) {
    usage.input = *prompt - usage.cache_read.value_or(0);  // the prompt counts its cached part
  }
  usage.output = count("candidatesTokenCount");
  usage.reasoning = count("thoughtsTokenCount");
  usage.total = count("totalTokenCount");
  return usage;
}

class GeminiReader final : public StreamReader {
 public:
  Format format() const override { return Format::gemini; }
  std::string_view name() const override { return "Gemini"; }
  std::string_view arrival() const override { return "a Gemini stream starts"; }

  bool claims(const StreamEvent& event, const JsonValue& doc) const override {
    (void)event;
    return is_gemini_chunk(doc);
  }

  std::string take(const StreamEvent& event, const JsonValue& doc,
                   std::vector<AssembledResponse>& out, Diagnostics& diagnostics) override {
    (void)diagnostics;
    if (m_response && m_response->complete() && starts_next(doc, m_response->id())) {
      out.push_back(end("", {}));
    }
    if (!m_response) {
      m_response = std::make_unique<GeminiResponse>(event.where);
    }
    m_response->add(doc);
    return "";
  }

  bool open() const override { return m_response != nullptr; }
  bool complete() const override { return m_response->complete(); }
  std::string cut_off() const override {
    const std::string& id = m_response->id();
    return fmt::format("stream ends here, before a finishReason: response {} is incomplete",
                       id.empty() ? "(no responseId)" : id);
  }

  AssembledResponse end(std::string problem, Location where) override {
    AssembledResponse response;
    response.format = Format::gemini;
    response.json = m_response->json();
    response.where = m_response->where();
    response.whole = problem.empty();
    response.problem = std::move(problem);
    response.problem_at = std::move(where);
    m_response.reset();
    return response;
  }

  bool reads_parts() const override { return true; }

  std::string read_parts(const StreamEvent& event, const JsonValue& doc,
                         std::vector<StreamPart>& out) override {
    (void)event;
    if (m_live.begun && m_live.finished && starts_next(doc, m_live.id)) {
      finish(out);
    }
    if (!m_live.begun) {
      m_live.begun = true;
      m_live.id = std::string(string_member(doc, "responseId").value_or(""));
      StreamPart part;
      part.kind = StreamPart::Kind::begin;
      part.from = Format::gemini;
      part.id = m_live.id;
      part.model = std::string(string_member(doc, "modelVersion").value_or(""));
      if (const JsonValue* usage = find_member(doc, "usageMetadata"); usage != nullptr && usage->IsObject()) {
        part.usage = usage_of(*usage);
        part.usage.output.reset();
        part.usage.reasoning.reset();
        part.usage.total.reset();
      }
      out.push_back(std::move(part));
    }
    if (const JsonValue* usage = find_member(doc, "usageMetadata"); usage != nullptr && usage->IsObject()) {
      m_live.usage = usage_of(*usage);  // a running total: the last one stands
    }
    const JsonValue* candidates = find_member(doc, "candidates");
    if (candidates == nullptr || !candidates->IsArray()) {
      return "";
    }
    for (const JsonValue& candidate : candidates->GetArray()) {
      if (!candidate.IsObject()) {
        continue;
      }
      if (const JsonValue* i = find_member(candidate, "index"); i != nullptr && i->IsInt64() && i->GetInt64() != 0) {
        continue;  // a stream gives one response: its first candidate
      }
      const JsonValue* content = find_member(candidate, "content");
      const JsonValue* parts = content != nullptr && content->IsObject() ? find_member(*content, "parts") : nullptr;
      if (parts != nullptr && parts->IsArray()) {
        for (const JsonValue& part : parts->GetArray()) {
          if (part.IsObject()) {
            read_part(part, out);
          }
        }
      }
      if (auto reason = string_member(candidate, "finishReason")) {
        close_block(out);
        m_live.finished = true;
        m_live.stop = stop_reason_named(*reason);
        if (*reason == "STOP" && m_live.calls) {
          m_live.stop = StopReason::tool_use;  // Gemini says STOP after calls too
        }
      }
    }
    return "";
  }

  bool parts_at_input_end(std::vector<StreamPart>& out) override {
    if (!m_live.begun || !m_live.finished) {
      return false;
    }
    finish(out);
    return true;
  }

 private:
  // The chunk after a finished response begins the next one: it has another
  // responseId or, without ids, parts of its own (a last chunk of usage does not).
  static bool starts_next(const JsonValue& doc, const std::string& id) {
    std::string_view next = string_member(doc, "responseId").value_or("");
    if (!next.empty() && !id.empty()) {
      return next != id;
    }
    return has_parts(doc);
  }

  // What the open response needs: its open block, and a streamed call's arguments
  // while they come (never the response's text).
  struct Live {
    bool begun = false;
    bool finished = false;
    bool calls = false;  // a functionCall came
    std::string id;
    std::size_t blocks = 0;
    std::optional<std::size_t> open;
    BlockType open_type = BlockType::text;
    bool open_signed = false;  // its signature came: more text is another part
    std::unique_ptr<JsonDoc> args;  // the open call's arguments, streamed (Vertex)
    StopReason stop = StopReason::none;
    Usage usage;
  };

  void read_part(const JsonValue& part, std::vector<StreamPart>& out) {
    const JsonValue* signature = find_member(part, "thoughtSignature");
    std::string_view signed_with = signature != nullptr && signature->IsString() ? view_of(*signature) : "";
    if (const JsonValue* call = find_member(part, "functionCall"); call != nullptr && call->IsObject()) {
      read_call(*call, signed_with, out);
      return;
    }
    if (m_live.args) {
      end_call(out);  // a streamed call that never said it was done
    }
    if (const JsonValue* text = find_member(part, "text"); text != nullptr && text->IsString()) {
      BlockType type = is_thought(part) ? BlockType::thinking : BlockType::text;
      std::string_view piece = view_of(*text);
      if (!m_live.open || m_live.open_type != type || m_live.open_signed) {
        if (piece.empty() && signed_with.empty()) {
          return;
        }
        open_block(type, out);
      }
      if (!piece.empty()) {
        StreamPart delta;
        delta.kind = StreamPart::Kind::delta;
        delta.index = *m_live.open;
        delta.text = std::string(piece);
        out.push_back(std::move(delta));
      }
      sign(signed_with, out);
      return;
    }
    // Code, its results, media: a block of Gemini's own, as it came.
    StreamPart begin;
    begin.from = Format::gemini;
    begin.raw_event = to_json(part);
    open_block(BlockType::unknown, out, std::move(begin));
    close_block(out);
  }

  void read_call(const JsonValue& call, std::string_view signed_with, std::vector<StreamPart>& out) {
    bool goes_on = bool_member(call, "willContinue").value_or(false);
    if (m_live.args && find_member(call, "name") == nullptr) {
      apply_partial_args(*m_live.args, call, m_live.args->GetAllocator());
      sign(signed_with, out);
      if (!goes_on) {
        end_call(out);
      }
      return;
    }
    if (m_live.args) {
      end_call(out);
    }
    m_live.calls = true;
    StreamPart begin;
    begin.id = std::string(string_member(call, "id").value_or(""));
    if (begin.id.empty()) {
      begin.id = made_up_call_id(++m_made_up);  // as convert gives one
    }
    begin.name = std::string(string_member(call, "name").value_or(""));
    open_block(BlockType::tool_use, out, std::move(begin));
    sign(signed_with, out);
    const JsonValue* args = find_member(call, "args");
    if (goes_on || find_member(call, "partialArgs") != nullptr) {
      m_live.args = std::make_unique<JsonDoc>();
      m_live.args->SetObject();
      if (args != nullptr && args->IsObject()) {
        m_live.args->CopyFrom(*args, m_live.args->GetAllocator());
      }
      apply_partial_args(*m_live.args, call, m_live.args->GetAllocator());
      if (!goes_on) {
        end_call(out);
      }
      return;
    }
    StreamPart delta;
    delta.kind = StreamPart::Kind::delta;
    delta.index = *m_live.open;
    delta.text = args != nullptr && !args->IsNull() ? to_json(*args) : "{}";
    out.push_back(std::move(delta));
    close_block(out);
  }

  // A streamed call's arguments are done: they go out whole, and the call ends.
  void end_call(std::vector<StreamPart>& out) {
    StreamPart delta;
    delta.kind = StreamPart::Kind::delta;
    delta.index = *m_live.open;
    delta.text = to_json(*m_live.args);
    out.push_back(std::move(delta));
    m_live.args.reset();
    close_block(out);
  }

  void sign(std::string_view signature, std::vector<StreamPart>& out) {
    if (signature.empty() || !m_live.open) {
      return;
    }
    StreamPart part;
    part.kind = StreamPart::Kind::signature;
    part.index = *m_live.open;
    part.text = std::string(signature);
    out.push_back(std::move(part));
    m_live.open_signed = true;
  }

  void open_block(BlockType type, std::vector<StreamPart>& out, StreamPart part = {}) {
    close_block(out);
    part.kind = StreamPart::Kind::block_begin;
    part.block = type;
    part.index = m_live.blocks++;
    m_live.open = part.index;
    m_live.open_type = type;
    m_live.open_signed = false;
    out.push_back(std::move(part));
  }

  void close_block(std::vector<StreamPart>& out) {
    if (m_live.args) {
      end_call(out);
      return;
    }
    if (m_live.open) {
      StreamPart part;
      part.kind = StreamPart::Kind::block_end;
      part.index = *m_live.open;
      out.push_back(std::move(part));
      m_live.open.reset();
    }
  }

  void finish(std::vector<StreamPart>& out) {
    close_block(out);
    StreamPart part;
    part.kind = StreamPart::Kind::finish;
    part.from = Format::gemini;
    part.stop = m_live.stop;
    part.usage = m_live.usage;
    out.push_back(std::move(part));
    StreamPart end;
    end.kind = StreamPart::Kind::end;
    out.push_back(std::move(end));
    m_live = Live{};
  }

  std::unique_ptr<GeminiResponse> m_response;
  Live m_live;
  std::size_t m_made_up = 0;  // ids made up for calls without one
};

}  // namespace

std::unique_ptr<StreamReader> make_gemini_stream_reader() {
  return std::make_unique<GeminiReader>();
}

}  // namespace convo
