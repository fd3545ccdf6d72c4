#include "formats/anthropic_stream.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "formats/fields.h"
#include "sse_reader.h"

namespace convo {

namespace {

JsonValue copy_of(const JsonValue& value, JsonAllocator& alloc) { return JsonValue(value, alloc); }

// One message put together from its events (../shared/formats.md section 2.3).
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

class AnthropicReader final : public StreamReader {
 public:
  Format format() const override { return Format::anthropic; }
  std::string_view name() const override { return "Anthropic"; }
  std::string_view arrival() const override { return "an Anthropic stream starts"; }

  bool claims(const StreamEvent& event, const JsonValue& doc) const override {
    return is_anthropic_event(string_member(doc, "type").value_or("")) ||
           is_anthropic_event(event.name);
  }

  std::string take(const StreamEvent& event, const JsonValue& doc,
                   std::vector<AssembledResponse>& out, Diagnostics& diagnostics) override {
    std::string_view type = string_member(doc, "type").value_or("");
    if (type == "ping") {
      return "";
    }
    if (type == "message_start") {
      const JsonValue* message = find_member(doc, "message");
      std::string id(message != nullptr ? string_member(*message, "id").value_or("") : "");
      if (m_response && m_response->id() == id) {
        return "";  // a repeated message_start of the same message
      }
      if (m_response) {
        // A new message begins before the open one stopped: that one was cut off,
        // which is worth a warning but not an error.
        std::string old = m_response->id();
        diagnostics.warning(
            event.where, fmt::format("message {} ends without message_stop: message {} starts here",
                                     old.empty() ? "(no id)" : old, id.empty() ? "(no id)" : id));
        out.push_back(end("", {}));
        out.back().whole = false;
      }
      m_response = std::make_unique<AnthropicResponse>(event.where);
      if (message == nullptr || !message->IsObject()) {
        return "message_start has no \"message\"";
      }
      m_response->start(*message);
      return "";
    }
    if (!m_response) {
      return fmt::format("{} before message_start", type);
    }
    if (type == "content_block_start") {
      return m_response->block_start(doc);
    }
    if (type == "content_block_delta") {
      return m_response->block_delta(doc);
    }
    if (type == "content_block_stop") {
      return m_response->block_stop(doc);
    }
    if (type == "message_delta") {
      m_response->message_delta(doc);
    } else if (type == "message_stop") {
      m_response->stop();
      out.push_back(end("", {}));
    }
    return "";
  }

  bool open() const override { return m_response != nullptr; }
  // Only message_stop ends a message whole, and it hands the message out at once.
  bool complete() const override { return false; }
  std::string cut_off() const override {
    std::string id = m_response->id();
    return fmt::format("stream ends here, before message_stop: message {} is incomplete",
                       id.empty() ? "(no id)" : id);
  }

  bool reads_parts() const override { return true; }

  std::string read_parts(const StreamEvent& event, const JsonValue& doc,
                         std::vector<StreamPart>& out) override {
    (void)event;
    std::string_view type = string_member(doc, "type").value_or("");
    if (type == "ping") {
      return "";
    }
    if (type == "message_start") {
      const JsonValue* message = find_member(doc, "message");
      if (message == nullptr || !message->IsObject()) {
        return "message_start has no \"message\"";
      }
      std::string id(string_member(*message, "id").value_or(""));
      if (m_live && id == m_live_id) {
        return "";  // a repeated message_start of the same message
      }
      m_live = true;
      m_live_id = id;
      m_usage = Usage{};
      m_raw_blocks.clear();
      StreamPart part;
      part.kind = StreamPart::Kind::begin;
      part.id = id;
      part.model = std::string(string_member(*message, "model").value_or(""));
      if (const JsonValue* usage = find_member(*message, "usage"); usage != nullptr && usage->IsObject()) {
        read_usage(*usage);
      }
      part.usage = m_usage;
      part.from = Format::anthropic;
      part.raw_event = to_json(doc);
      out.push_back(std::move(part));
      return "";
    }
    if (!m_live) {
      return fmt::format("{} before message_start", type);
    }
    const JsonValue* index = find_member(doc, "index");
    std::size_t at = index != nullptr && index->IsUint64() ? static_cast<std::size_t>(index->GetUint64()) : 0;
    if (type == "content_block_start") {
      const JsonValue* block = find_member(doc, "content_block");
      if (block == nullptr || !block->IsObject()) {
        return "content_block_start has no \"content_block\"";
      }
      std::string_view block_type = string_member(*block, "type").value_or("");
      StreamPart part;
      part.kind = StreamPart::Kind::block_begin;
      part.index = at;
      std::string_view first;  // text the block starts with
      if (block_type == "text") {
        part.block = BlockType::text;
        first = string_member(*block, "text").value_or("");
      } else if (block_type == "thinking") {
        part.block = BlockType::thinking;
        first = string_member(*block, "thinking").value_or("");
      } else if (block_type == "redacted_thinking") {
        part.block = BlockType::redacted_thinking;
        part.text = std::string(string_member(*block, "data").value_or(""));
      } else if (block_type == "tool_use") {
        part.block = BlockType::tool_use;
        part.id = std::string(string_member(*block, "id").value_or(""));
        part.name = std::string(string_member(*block, "name").value_or(""));
      } else {
        part.block = BlockType::unknown;
        part.name = std::string(block_type);
        part.raw = to_json(*block);
        m_raw_blocks.push_back(at);
      }
      part.from = Format::anthropic;
      part.raw_event = to_json(*block);  // the block as it came, for an Anthropic writer
      out.push_back(std::move(part));
      if (!first.empty()) {
        StreamPart delta;
        delta.kind = StreamPart::Kind::delta;
        delta.index = at;
        delta.text = std::string(first);
        out.push_back(std::move(delta));
      }
      return "";
    }
    if (type == "content_block_delta") {
      const JsonValue* delta = find_member(doc, "delta");
      if (delta == nullptr || !delta->IsObject()) {
        return "content_block_delta has no \"delta\"";
      }
      std::string_view delta_type = string_member(*delta, "type").value_or("");
      StreamPart part;
      part.kind = StreamPart::Kind::delta;
      part.index = at;
      if (std::find(m_raw_blocks.begin(), m_raw_blocks.end(), at) != m_raw_blocks.end()) {
        // A block of another kind (a server tool's input): its delta as it came.
        part.raw = to_json(*delta);
        part.text = std::string(string_member(*delta, "partial_json").value_or(""));
        out.push_back(std::move(part));
        return "";
      }
      if (delta_type == "text_delta") {
        part.text = std::string(string_member(*delta, "text").value_or(""));
      } else if (delta_type == "thinking_delta") {
        part.text = std::string(string_member(*delta, "thinking").value_or(""));
      } else if (delta_type == "input_json_delta") {
        part.text = std::string(string_member(*delta, "partial_json").value_or(""));
      } else if (delta_type == "signature_delta") {
        part.kind = StreamPart::Kind::signature;
        part.text = std::string(string_member(*delta, "signature").value_or(""));
      } else {
        part.raw = to_json(*delta);  // citations_delta and newer kinds: as they came
      }
      out.push_back(std::move(part));
      return "";
    }
    if (type == "content_block_stop") {
      StreamPart part;
      part.kind = StreamPart::Kind::block_end;
      part.index = at;
      out.push_back(std::move(part));
      return "";
    }
    if (type == "message_delta") {
      StreamPart part;
      part.kind = StreamPart::Kind::finish;
      if (const JsonValue* delta = find_member(doc, "delta"); delta != nullptr && delta->IsObject()) {
        part.stop = stop_reason_named(string_member(*delta, "stop_reason").value_or(""));
        part.stop_sequence = std::string(string_member(*delta, "stop_sequence").value_or(""));
      }
      if (const JsonValue* usage = find_member(doc, "usage"); usage != nullptr && usage->IsObject()) {
        read_usage(*usage);  // cumulative: replaces message_start's, key by key
      }
      part.usage = m_usage;
      part.from = Format::anthropic;
      part.raw_event = to_json(doc);
      out.push_back(std::move(part));
      return "";
    }
    if (type == "message_stop") {
      m_live = false;
      m_raw_blocks.clear();
      StreamPart part;
      part.kind = StreamPart::Kind::end;
      out.push_back(std::move(part));
    }
    return "";
  }

  AssembledResponse end(std::string problem, Location where) override {
    AssembledResponse response;
    response.format = Format::anthropic;
    response.json = m_response->json();
    response.where = m_response->where();
    response.whole = problem.empty();
    response.problem = std::move(problem);
    response.problem_at = std::move(where);
    m_response.reset();
    return response;
  }

 private:
  void read_usage(const JsonValue& usage) {
    auto count = [&](std::string_view key, std::optional<std::int64_t>& to) {
      if (const JsonValue* n = find_member(usage, key); n != nullptr && n->IsInt64()) {
        to = n->GetInt64();
      }
    };
    count("input_tokens", m_usage.input);
    count("output_tokens", m_usage.output);
    count("cache_read_input_tokens", m_usage.cache_read);
    count("cache_creation_input_tokens", m_usage.cache_write);
  }

  std::unique_ptr<AnthropicResponse> m_response;
  // Live reading: a message is open, and its usage so far.
  bool m_live = false;
  std::string m_live_id;
  Usage m_usage;
  std::vector<std::size_t> m_raw_blocks;  // blocks of other kinds, passed on as they came
};

}  // namespace

std::unique_ptr<StreamReader> make_anthropic_stream_reader() {
  return std::make_unique<AnthropicReader>();
}

}  // namespace convo
