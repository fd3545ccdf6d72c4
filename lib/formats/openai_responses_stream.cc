#include "formats/openai_responses_stream.h"

#include <fmt/format.h>

#include <memory>

#include "sse_reader.h"

namespace convo {

namespace {

std::optional<std::int64_t> index_of(const JsonValue& event, std::string_view key) {
  const JsonValue* value = find_member(event, key);
  if (value == nullptr || !value->IsInt64() || value->GetInt64() < 0) {
    return std::nullopt;
  }
  return value->GetInt64();
}

// Appends `more` to the string member `key` of `object` (absent: made).
void append_member(JsonValue& object, std::string_view key, std::string_view more,
                   JsonAllocator& alloc) {
  std::string text;
  if (auto was = string_member(object, key)) {
    text = std::string(*was);
  }
  text += more;
  set_member(object, key, make_string(text, alloc), alloc);
}

// Element `index` of the array member `key` of `object`, the array grown with
// objects as needed.
JsonValue& element(JsonValue& object, std::string_view key, std::size_t index,
                   JsonAllocator& alloc) {
  JsonValue* list = const_cast<JsonValue*>(find_member(object, key));
  if (list == nullptr || !list->IsArray()) {
    set_member(object, key, JsonValue(rapidjson::kArrayType), alloc);
    list = const_cast<JsonValue*>(find_member(object, key));
  }
  while (list->Size() <= index) {
    list->PushBack(JsonValue(rapidjson::kObjectType), alloc);
  }
  return (*list)[static_cast<rapidjson::SizeType>(index)];
}

}  // namespace

bool is_responses_event(const JsonValue& event) {
  if (!event.IsObject()) {
    return false;
  }
  auto type = string_member(event, "type");
  return type && type->starts_with("response.");
}

ResponsesStreamAssembler::ResponsesStreamAssembler() : m_response(rapidjson::kNullType) {}

JsonValue* ResponsesStreamAssembler::item_at(const JsonValue& event) {
  auto index = index_of(event, "output_index");
  if (!index || static_cast<std::size_t>(*index) >= m_items.size() ||
      !m_items[static_cast<std::size_t>(*index)].IsObject()) {
    return nullptr;
  }
  return &m_items[static_cast<std::size_t>(*index)];
}

std::optional<std::string> ResponsesStreamAssembler::event(const JsonValue& event) {
  auto& alloc = m_doc.GetAllocator();
  m_started = true;
  std::string_view type = string_member(event, "type").value_or("");
  if (type == "error") {
    m_error = std::string(string_member(event, "message").value_or("an error event"));
    m_done = true;
    return std::nullopt;
  }
  if (type == "response.created" || type == "response.in_progress" ||
      type == "response.queued" || type == "response.completed" ||
      type == "response.incomplete" || type == "response.failed") {
    if (const JsonValue* response = find_member(event, "response");
        response != nullptr && response->IsObject()) {
      m_response.CopyFrom(*response, alloc);
    }
    if (type == "response.completed" || type == "response.incomplete" ||
        type == "response.failed") {
      m_done = true;
    }
    return std::nullopt;
  }
  if (type == "response.output_item.added" || type == "response.output_item.done") {
    auto index = index_of(event, "output_index");
    const JsonValue* item = find_member(event, "item");
    if (!index || item == nullptr || !item->IsObject()) {
      return fmt::format("{} without output_index or item", type);
    }
    auto at = static_cast<std::size_t>(*index);
    if (m_items.size() <= at) {
      m_items.resize(at + 1);
    }
    m_items[at].CopyFrom(*item, alloc);
    return std::nullopt;
  }
  auto delta = string_member(event, "delta");
  bool is_delta = type.ends_with(".delta");
  bool is_done = type.ends_with(".done");
  // Events about a part of an item: the item must have started.
  static constexpr std::string_view k_part_events[] = {
      "response.content_part.", "response.output_text.", "response.refusal.",
      "response.function_call_arguments.", "response.custom_tool_call_input.",
      "response.reasoning_summary_part.", "response.reasoning_summary_text.",
      "response.reasoning_text."};
  bool about_part = false;
  for (std::string_view prefix : k_part_events) {
    about_part |= type.starts_with(prefix);
  }
  if (!about_part) {
    return std::nullopt;  // progress of built-in tools, annotations, ...: the done item has them
  }
  JsonValue* item = item_at(event);
  if (item == nullptr) {
    return fmt::format("{} for an output item that never started", type);
  }
  auto content = static_cast<std::size_t>(index_of(event, "content_index").value_or(0));
  auto summary = static_cast<std::size_t>(index_of(event, "summary_index").value_or(0));
  if (type == "response.content_part.added" || type == "response.content_part.done") {
    if (const JsonValue* part = find_member(event, "part"); part != nullptr) {
      element(*item, "content", content, alloc).CopyFrom(*part, alloc);
    }
  } else if (type == "response.reasoning_summary_part.added" ||
             type == "response.reasoning_summary_part.done") {
    if (const JsonValue* part = find_member(event, "part"); part != nullptr) {
      element(*item, "summary", summary, alloc).CopyFrom(*part, alloc);
    }
  } else if (type.starts_with("response.output_text.") ||
             type.starts_with("response.reasoning_text.")) {
    JsonValue& part = element(*item, "content", content, alloc);
    if (is_delta && delta) {
      append_member(part, "text", *delta, alloc);
    } else if (is_done && string_member(event, "text")) {
      set_member(part, "text", JsonValue(*find_member(event, "text"), alloc), alloc);
    }
  } else if (type.starts_with("response.refusal.")) {
    JsonValue& part = element(*item, "content", content, alloc);
    if (is_delta && delta) {
      append_member(part, "refusal", *delta, alloc);
    } else if (is_done && string_member(event, "refusal")) {
      set_member(part, "refusal", JsonValue(*find_member(event, "refusal"), alloc), alloc);
    }
  } else if (type.starts_with("response.reasoning_summary_text.")) {
    JsonValue& part = element(*item, "summary", summary, alloc);
    if (is_delta && delta) {
      append_member(part, "text", *delta, alloc);
    } else if (is_done && string_member(event, "text")) {
      set_member(part, "text", JsonValue(*find_member(event, "text"), alloc), alloc);
    }
  } else {
    std::string_view key = type.starts_with("response.function_call_arguments.") ? "arguments"
                                                                                 : "input";
    if (is_delta && delta) {
      append_member(*item, key, *delta, alloc);
    } else if (is_done && string_member(event, key)) {
      set_member(*item, key, JsonValue(*find_member(event, key), alloc), alloc);
    }
  }
  return std::nullopt;
}

std::string ResponsesStreamAssembler::body(std::string& problem) const {
  JsonDoc out;
  auto& alloc = out.GetAllocator();
  if (m_response.IsObject()) {
    out.CopyFrom(m_response, alloc);
  } else {
    out.SetObject();
    out.AddMember("object", "response", alloc);
  }
  const JsonValue* output = find_member(out, "output");
  bool empty = output == nullptr || !output->IsArray() || output->Empty();
  if ((!m_done || empty) && !m_items.empty()) {
    JsonValue items(rapidjson::kArrayType);
    for (const JsonValue& item : m_items) {
      if (item.IsObject()) {
        items.PushBack(JsonValue(item, alloc), alloc);
      }
    }
    set_member(out, "output", std::move(items), alloc);
  }
  if (!m_error.empty()) {
    problem = fmt::format("the stream reported an error: {}", m_error);
  } else if (!m_done) {
    problem = "the stream ended before response.completed";
  } else if (auto status = string_member(out, "status"); status && *status == "failed") {
    const JsonValue* error = find_member(out, "error");
    auto message = error != nullptr && error->IsObject() ? string_member(*error, "message")
                                                         : std::nullopt;
    problem = fmt::format("the response failed: {}", message.value_or("no message"));
  }
  return to_json(out);
}

namespace {

// The openai-responses format's stream dialect: `response.*` events (and `error`
// events in the middle of one), put together by ResponsesStreamAssembler. A
// response ends with response.completed, .incomplete or .failed; a
// response.created after that starts the next one.
class ResponsesReader final : public StreamReader {
 public:
  Format format() const override { return Format::openai_responses; }
  std::string_view name() const override { return "OpenAI Responses"; }
  std::string_view arrival() const override { return "an OpenAI Responses stream starts"; }

  bool claims(const StreamEvent& event, const JsonValue& doc) const override {
    (void)event;
    if (is_responses_event(doc)) {
      return true;
    }
    // An `error` event belongs to the Responses stream it interrupts.
    auto type = string_member(doc, "type");
    return m_assembler != nullptr && type && *type == "error";
  }

  std::string take(const StreamEvent& event, const JsonValue& doc,
                   std::vector<AssembledResponse>& out, Diagnostics& diagnostics) override {
    (void)diagnostics;
    auto type = string_member(doc, "type").value_or("");
    if (m_assembler && m_assembler->done() && type == "response.created") {
      out.push_back(end("", {}));
    }
    if (!m_assembler) {
      m_assembler = std::make_unique<ResponsesStreamAssembler>();
      m_where = event.where;
    }
    if (auto problem = m_assembler->event(doc)) {
      return *problem;
    }
    return "";
  }

  bool open() const override { return m_assembler != nullptr; }
  bool complete() const override { return m_assembler->done(); }
  std::string cut_off() const override {
    return "stream ends here, before response.completed: the response is incomplete";
  }

  AssembledResponse end(std::string problem, Location where) override {
    AssembledResponse response;
    response.format = Format::openai_responses;
    std::string own_problem;
    response.json = m_assembler->body(own_problem);
    if (problem.empty() && !own_problem.empty() && m_assembler->done()) {
      problem = own_problem;  // the stream said the response failed
    }
    response.where = m_where;
    response.whole = problem.empty();
    response.problem = std::move(problem);
    response.problem_at = std::move(where);
    m_assembler.reset();
    return response;
  }

 private:
  std::unique_ptr<ResponsesStreamAssembler> m_assembler;
  Location m_where;
};

}  // namespace

std::unique_ptr<StreamReader> make_openai_responses_stream_reader() {
  return std::make_unique<ResponsesReader>();
}

}  // namespace convo
