#include "formats/openai_responses_stream.h"

#include <fmt/format.h>

#include <map>
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

  // --- Live reading ---
  //
  // Each content part of a message item is a text block; a reasoning item is one
  // thinking block (its summary parts, or reasoning text, joined by blank lines, as
  // `convert` reads them), begun by its first part; a function_call item a tool_use
  // block; a custom_tool_call one whose input is {"input": TEXT}; any other item
  // (and reasoning with no text) a block of its own kind at output_item.done, passed
  // as it came to a Responses writer. Items are ended (block_end) at output_item.done,
  // which carries the item whole for a Responses writer.

  bool reads_parts() const override { return true; }

  std::string read_parts(const StreamEvent& event, const JsonValue& doc,
                         std::vector<StreamPart>& out) override {
    (void)event;
    std::string_view type = string_member(doc, "type").value_or("");
    if (type == "response.created") {
      const JsonValue* response = find_member(doc, "response");
      if (response == nullptr || !response->IsObject()) {
        return "response.created has no \"response\"";
      }
      m_live = Live{};
      m_live.begun = true;
      StreamPart part;
      part.kind = StreamPart::Kind::begin;
      part.id = std::string(string_member(*response, "id").value_or(""));
      part.model = std::string(string_member(*response, "model").value_or(""));
      if (auto created = index_of(*response, "created_at")) {
        part.created = *created;
      }
      part.from = Format::openai_responses;
      part.raw_event = to_json(*response);
      out.push_back(std::move(part));
      return "";
    }
    if (!m_live.begun) {
      return fmt::format("{} before response.created", type);
    }
    if (type == "response.completed" || type == "response.incomplete") {
      return finish(doc, out);
    }
    if (type == "response.failed") {
      const JsonValue* response = find_member(doc, "response");
      const JsonValue* error = response != nullptr ? find_member(*response, "error") : nullptr;
      auto message = error != nullptr && error->IsObject() ? string_member(*error, "message")
                                                           : std::nullopt;
      m_live = Live{};
      return fmt::format("the response failed: {}", message.value_or("no message"));
    }
    if (type == "response.output_item.added" || type == "response.output_item.done") {
      auto index = index_of(doc, "output_index");
      const JsonValue* item = find_member(doc, "item");
      if (!index || item == nullptr || !item->IsObject()) {
        return fmt::format("{} without output_index or item", type);
      }
      return type.ends_with(".added") ? item_added(static_cast<std::size_t>(*index), *item, out)
                                      : item_done(static_cast<std::size_t>(*index), *item, out);
    }
    auto index = index_of(doc, "output_index");
    auto found = index ? m_live.items.find(static_cast<std::size_t>(*index)) : m_live.items.end();
    bool about_item = type.starts_with("response.content_part.") ||
                      type.starts_with("response.output_text.") ||
                      type.starts_with("response.refusal.") ||
                      type.starts_with("response.function_call_arguments.") ||
                      type.starts_with("response.custom_tool_call_input.") ||
                      type.starts_with("response.reasoning_summary_") ||
                      type.starts_with("response.reasoning_text.");
    if (!about_item) {
      return "";  // progress of built-in tools, annotations, ...: output_item.done has them
    }
    if (found == m_live.items.end()) {
      return fmt::format("{} for an output item that never started", type);
    }
    LiveItem& item = found->second;
    std::string_view delta = string_member(doc, "delta").value_or("");
    auto content = static_cast<std::size_t>(index_of(doc, "content_index").value_or(0));
    if (type == "response.content_part.added") {
      const JsonValue* part = find_member(doc, "part");
      std::string_view part_type = part != nullptr ? string_member(*part, "type").value_or("") : "";
      if (part_type == "reasoning_text") {
        return thinking_part(item, "", out);
      }
      std::size_t block = begin_block(item, BlockType::text, out);
      item.parts[content] = block;
      item.sent = true;
      item.text.clear();
      if (part != nullptr) {
        std::string_view first = string_member(*part, part_type == "refusal" ? "refusal" : "text").value_or("");
        add_delta(block, first, out);
        item.text = first;
      }
      return "";
    }
    if (type == "response.content_part.done") {
      if (auto part = item.parts.find(content); part != item.parts.end()) {
        end_block(part->second, out);
        item.parts.erase(part);
        item.open.reset();
      }
      return "";
    }
    if (type == "response.output_text.delta" || type == "response.refusal.delta") {
      auto part = item.parts.find(content);
      if (part == item.parts.end()) {
        // Text with no content_part.added before it: a part of its own.
        std::size_t block = begin_block(item, BlockType::text, out);
        part = item.parts.emplace(content, block).first;
        item.sent = true;
        item.text.clear();
      }
      add_delta(part->second, delta, out);
      item.text += delta;
      return "";
    }
    // A .done event repeats the text whole: what the deltas left out (a recording
    // with deltas elided) is given now.
    if (type == "response.output_text.done" || type == "response.refusal.done") {
      if (auto part = item.parts.find(content); part != item.parts.end()) {
        rest_of(part->second, item, string_member(doc, type.starts_with("response.refusal") ? "refusal" : "text"), out);
      }
      return "";
    }
    if ((type == "response.reasoning_summary_text.done" || type == "response.reasoning_text.done") && item.open) {
      rest_of(*item.open, item, string_member(doc, "text"), out);
      return "";
    }
    if (type == "response.function_call_arguments.done" && item.open) {
      rest_of(*item.open, item, string_member(doc, "arguments"), out);
      return "";
    }
    if (type == "response.reasoning_summary_part.added") {
      const JsonValue* part = find_member(doc, "part");
      return thinking_part(item, part != nullptr ? string_member(*part, "text").value_or("") : "", out);
    }
    if (type == "response.reasoning_summary_text.delta" || type == "response.reasoning_text.delta") {
      if (!item.open) {
        thinking_part(item, "", out);
      }
      add_delta(*item.open, delta, out);
      item.text += delta;
      item.sent = true;
      return "";
    }
    if (type == "response.function_call_arguments.delta" && item.open) {
      add_delta(*item.open, delta, out);
      item.text += delta;
      item.sent = item.sent || !delta.empty();
      return "";
    }
    if (type == "response.custom_tool_call_input.delta" && item.open) {
      std::string quoted = json_quote(delta);
      add_delta(*item.open, std::string_view(quoted).substr(1, quoted.size() - 2), out);
      item.sent = item.sent || !delta.empty();
      return "";
    }
    return "";  // the .done events repeat what the deltas gave
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
  // An output item being read live.
  struct LiveItem {
    std::string type;
    std::string id;
    std::optional<std::size_t> open;          // its tool_use or thinking block
    std::map<std::size_t, std::size_t> parts;  // a message's content parts' open blocks
    bool sent = false;                         // text of its block was given
    std::size_t summary_parts = 0;             // reasoning: parts begun
    std::string text;                          // the open part's text so far
  };

  // `whole` (a .done event's text) extends what the deltas of `block` gave: the rest.
  static void rest_of(std::size_t block, LiveItem& item, std::optional<std::string_view> whole,
                      std::vector<StreamPart>& out) {
    if (whole && whole->size() > item.text.size() && whole->starts_with(item.text)) {
      add_delta(block, whole->substr(item.text.size()), out);
      item.text = *whole;
      item.sent = true;
    }
  }
  struct Live {
    bool begun = false;
    std::map<std::size_t, LiveItem> items;  // by output_index, while open
    std::size_t blocks = 0;                 // blocks begun
    bool calls = false;                     // a tool was called
  };

  std::size_t begin_block(const LiveItem& item, BlockType type, std::vector<StreamPart>& out,
                          std::string id = {}, std::string name = {}) {
    StreamPart part;
    part.kind = StreamPart::Kind::block_begin;
    part.block = type;
    part.index = m_live.blocks++;
    part.id = std::move(id);
    part.name = std::move(name);
    part.item_id = item.id;
    out.push_back(std::move(part));
    return out.back().index;
  }

  static void add_delta(std::size_t block, std::string_view text, std::vector<StreamPart>& out) {
    if (text.empty()) {
      return;
    }
    StreamPart part;
    part.kind = StreamPart::Kind::delta;
    part.index = block;
    part.text = std::string(text);
    out.push_back(std::move(part));
  }

  static void end_block(std::size_t block, std::vector<StreamPart>& out, std::string item = {}) {
    StreamPart part;
    part.kind = StreamPart::Kind::block_end;
    part.index = block;
    part.from = Format::openai_responses;
    part.item = std::move(item);
    out.push_back(std::move(part));
  }

  // A summary part (or reasoning text) of a reasoning item begins: the item's
  // thinking block begins with the first, later ones are set off by a blank line.
  std::string thinking_part(LiveItem& item, std::string_view text, std::vector<StreamPart>& out) {
    if (!item.open) {
      item.open = begin_block(item, BlockType::thinking, out);
    } else if (item.sent) {
      add_delta(*item.open, "\n\n", out);
    }
    ++item.summary_parts;
    add_delta(*item.open, text, out);
    item.text = text;
    item.sent = item.sent || !text.empty();
    return "";
  }

  std::string item_added(std::size_t index, const JsonValue& item, std::vector<StreamPart>& out) {
    LiveItem live;
    live.type = std::string(string_member(item, "type").value_or(""));
    live.id = std::string(string_member(item, "id").value_or(""));
    if (live.type == "function_call" || live.type == "custom_tool_call") {
      m_live.calls = true;
      live.open = begin_block(live, BlockType::tool_use, out,
                              std::string(string_member(item, "call_id").value_or("")),
                              std::string(string_member(item, "name").value_or("")));
      if (live.type == "custom_tool_call") {
        add_delta(*live.open, R"({"input":")", out);
      }
    }
    m_live.items[index] = std::move(live);
    return "";
  }

  std::string item_done(std::size_t index, const JsonValue& item, std::vector<StreamPart>& out) {
    auto found = m_live.items.find(index);
    if (found == m_live.items.end()) {
      item_added(index, item, out);
      found = m_live.items.find(index);
    }
    LiveItem& live = found->second;
    std::string whole = to_json(item);
    if (live.type == "message") {
      for (const auto& [content, block] : live.parts) {
        end_block(block, out, whole);  // a part that never said it was done
      }
      if (live.parts.empty() && !live.sent) {
        // A message whose parts came only whole (some providers): its text now.
        if (const JsonValue* parts = find_member(item, "content"); parts != nullptr && parts->IsArray()) {
          for (const JsonValue& part : parts->GetArray()) {
            auto text = part.IsObject() ? string_member(part, "text") : std::nullopt;
            if (!text) {
              text = part.IsObject() ? string_member(part, "refusal") : std::nullopt;
            }
            if (text) {
              std::size_t block = begin_block(live, BlockType::text, out);
              add_delta(block, *text, out);
              end_block(block, out, whole);
            }
          }
        }
      }
    } else if (live.type == "function_call" || live.type == "custom_tool_call") {
      bool custom = live.type == "custom_tool_call";
      if (!live.sent) {
        std::string_view text = string_member(item, custom ? "input" : "arguments").value_or("");
        std::string quoted = json_quote(text);
        add_delta(*live.open, custom ? std::string_view(quoted).substr(1, quoted.size() - 2) : text, out);
      }
      if (custom) {
        add_delta(*live.open, "\"}", out);
      }
      end_block(*live.open, out, whole);
    } else if (live.type == "reasoning" && (live.open || !reasoning_text(item).empty())) {
      if (!live.open) {
        live.open = begin_block(live, BlockType::thinking, out);
        add_delta(*live.open, reasoning_text(item), out);
      }
      end_block(*live.open, out, whole);
      if (find_member(item, "encrypted_content") != nullptr) {
        out.back().unheld = "encrypted reasoning";
      }
    } else {
      // An item of its own kind: whole, for a writer of this protocol.
      StreamPart part;
      part.kind = StreamPart::Kind::block_begin;
      part.block = BlockType::unknown;
      part.index = m_live.blocks++;
      part.name = live.type.empty() ? std::string("unknown") : live.type;
      part.item_id = live.id;
      part.from = Format::openai_responses;
      part.raw_event = whole;
      out.push_back(std::move(part));
      end_block(out.back().index, out);
    }
    m_live.items.erase(found);
    return "";
  }

  // A reasoning item's text as `convert` reads it: its summary parts, else its
  // reasoning text, joined by blank lines.
  static std::string reasoning_text(const JsonValue& item) {
    std::string text;
    for (std::string_view key : {"summary", "content"}) {
      if (const JsonValue* parts = find_member(item, key); parts != nullptr && parts->IsArray()) {
        for (const JsonValue& part : parts->GetArray()) {
          if (auto t = part.IsObject() ? string_member(part, "text") : std::nullopt) {
            text += text.empty() ? "" : "\n\n";
            text += *t;
          }
        }
      }
      if (!text.empty()) {
        break;
      }
    }
    return text;
  }

  std::string finish(const JsonValue& doc, std::vector<StreamPart>& out) {
    const JsonValue* response = find_member(doc, "response");
    if (response == nullptr || !response->IsObject()) {
      return "the response's last event has no \"response\"";
    }
    StreamPart part;
    part.kind = StreamPart::Kind::finish;
    part.stop = m_live.calls ? StopReason::tool_use : StopReason::end_turn;
    if (string_member(*response, "status").value_or("") == "incomplete") {
      const JsonValue* details = find_member(*response, "incomplete_details");
      std::string_view reason = details != nullptr && details->IsObject()
                                    ? string_member(*details, "reason").value_or("")
                                    : "";
      part.stop = reason == "content_filter" ? StopReason::refusal : StopReason::max_tokens;
    }
    if (const JsonValue* usage = find_member(*response, "usage"); usage != nullptr && usage->IsObject()) {
      auto count = [](const JsonValue* object, std::string_view key) -> std::optional<std::int64_t> {
        const JsonValue* n = object != nullptr && object->IsObject() ? find_member(*object, key) : nullptr;
        return n != nullptr && n->IsInt64() ? std::optional(n->GetInt64()) : std::nullopt;
      };
      auto cached = count(find_member(*usage, "input_tokens_details"), "cached_tokens");
      auto input = count(usage, "input_tokens");
      part.usage.input = input ? std::optional(*input - cached.value_or(0)) : std::nullopt;
      part.usage.cache_read = cached;
      part.usage.output = count(usage, "output_tokens");
      part.usage.reasoning = count(find_member(*usage, "output_tokens_details"), "reasoning_tokens");
    }
    part.from = Format::openai_responses;
    part.raw_event = to_json(*response);
    out.push_back(std::move(part));
    StreamPart end;
    end.kind = StreamPart::Kind::end;
    out.push_back(std::move(end));
    m_live = Live{};
    return "";
  }

  std::unique_ptr<ResponsesStreamAssembler> m_assembler;
  Location m_where;
  Live m_live;
};

}  // namespace

std::unique_ptr<StreamReader> make_openai_responses_stream_reader() {
  return std::make_unique<ResponsesReader>();
}

}  // namespace convo
