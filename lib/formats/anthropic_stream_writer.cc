// Anthropic Messages streams written from parts, as the API sends them
// (../shared/formats.md section 2.3): `event:` and `data:` lines, compact JSON, an
// empty line after each event. message_start carries the prompt's usage and
// output_tokens 0; message_delta the stop reason and the final usage, whole (as
// the API now sends it); a tool's input comes as input_json_delta pieces of its
// JSON text; a thinking block's signature as one signature_delta after its text.
#include <fmt/format.h>

#include <map>

#include "formats/anthropic_stream.h"
#include "json.h"

namespace convo {

namespace {

std::string usage_json(const Usage& usage) {
  return fmt::format(
      R"({{"input_tokens":{},"cache_creation_input_tokens":{},"cache_read_input_tokens":{},"output_tokens":{}}})",
      usage.input.value_or(0), usage.cache_write.value_or(0), usage.cache_read.value_or(0),
      usage.output.value_or(0));
}

class AnthropicWriter final : public StreamWriter {
 public:
  void write(const StreamPart& part, std::string& out, LossReport& loss,
             const Location& where) override {
    switch (part.kind) {
      case StreamPart::Kind::begin:
        if (part.from == Format::anthropic && !part.raw_event.empty()) {
          event(out, "message_start", part.raw_event);  // its own event, as it came
          return;
        }
        event(out, "message_start",
              fmt::format(R"({{"type":"message_start","message":{{"id":{},"type":"message","role":"assistant","model":{},"content":[],"stop_reason":null,"stop_sequence":null,"usage":{}}}}})",
                          json_quote(part.id), json_quote(part.model), usage_json(begin_usage(part.usage))));
        return;
      case StreamPart::Kind::block_begin:
        block_begin(part, out, loss, where);
        return;
      case StreamPart::Kind::delta:
        delta(part, out, loss, where);
        return;
      case StreamPart::Kind::signature:
        if (auto index = index_of(part.index); index && !part.text.empty() && m_type[*index] != BlockType::thinking) {
          loss.drop(Format::anthropic, "thought signatures of text and tool calls", where);  // Gemini's
        } else if (index && !part.text.empty()) {
          event(out, "content_block_delta",
                fmt::format(R"({{"type":"content_block_delta","index":{},"delta":{{"type":"signature_delta","signature":{}}}}})",
                            *index, json_quote(part.text)));
        }
        return;
      case StreamPart::Kind::block_end:
        if (auto index = index_of(part.index)) {
          event(out, "content_block_stop",
                fmt::format(R"({{"type":"content_block_stop","index":{}}})", *index));
        }
        return;
      case StreamPart::Kind::finish: {
        if (part.from == Format::anthropic && !part.raw_event.empty()) {
          event(out, "message_delta", part.raw_event);
          return;
        }
        std::string_view stop = stop_reason_spelled(Format::anthropic, part.stop).name;
        event(out, "message_delta",
              fmt::format(R"({{"type":"message_delta","delta":{{"stop_reason":{},"stop_sequence":{}}},"usage":{}}})",
                          stop.empty() ? "null" : json_quote(stop),
                          part.stop_sequence.empty() ? "null" : json_quote(part.stop_sequence),
                          usage_json(part.usage)));
        return;
      }
      case StreamPart::Kind::end:
        event(out, "message_stop", R"({"type":"message_stop"})");
        return;
      case StreamPart::Kind::error:
        event(out, "error",
              fmt::format(R"({{"type":"error","error":{{"type":{},"message":{}}}}})",
                          json_quote(part.error_type.empty() ? "api_error" : part.error_type),
                          json_quote(part.text)));
        return;
    }
  }

 private:
  // message_start reports the prompt; the output is counted by message_delta.
  static Usage begin_usage(Usage usage) {
    usage.output = 0;
    return usage;
  }

  static void event(std::string& out, std::string_view name, std::string_view data) {
    out += "event: ";
    out += name;
    out += "\ndata: ";
    out += data;
    out += "\n\n";
  }

  std::optional<std::size_t> index_of(std::size_t part_index) const {
    auto found = m_index.find(part_index);
    if (found == m_index.end()) {
      return std::nullopt;
    }
    return found->second;
  }

  void block_begin(const StreamPart& part, std::string& out, LossReport& loss, const Location& where) {
    std::string block;
    switch (part.block) {
      case BlockType::text:
        block = R"({"type":"text","text":""})";
        break;
      case BlockType::thinking:
        block = R"({"type":"thinking","thinking":"","signature":""})";
        break;
      case BlockType::redacted_thinking:
        block = fmt::format(R"({{"type":"redacted_thinking","data":{}}})", json_quote(part.text));
        break;
      case BlockType::tool_use:
        block = fmt::format(R"({{"type":"tool_use","id":{},"name":{},"input":{{}}}})",
                            json_quote(part.id), json_quote(part.name));
        break;
      default:
        if (part.raw.empty()) {
          loss.drop(Format::anthropic, fmt::format("{} blocks", dropped_block_name(part)), where);
          return;
        }
        block = part.raw;  // a block of its own kind (server tool use, ...), as it came
        break;
    }
    if (part.from == Format::anthropic && !part.raw_event.empty()) {
      block = part.raw_event;  // its own block, as it came
    }
    std::size_t index = m_next++;
    m_index[part.index] = index;
    m_type[index] = part.block;
    event(out, "content_block_start",
          fmt::format(R"({{"type":"content_block_start","index":{},"content_block":{}}})", index, block));
  }

  void delta(const StreamPart& part, std::string& out, LossReport& loss, const Location& where) {
    auto index = index_of(part.index);
    if (!index) {
      return;
    }
    if (!part.raw.empty()) {  // a delta of its own protocol, as it came
      event(out, "content_block_delta",
            fmt::format(R"({{"type":"content_block_delta","index":{},"delta":{}}})", *index, part.raw));
      return;
    }
    if (part.text.empty()) {
      return;
    }
    std::string_view type;
    std::string_view member;
    BlockType block = m_type[*index];
    if (block == BlockType::tool_use) {
      type = "input_json_delta";
      member = "partial_json";
    } else if (block == BlockType::thinking) {
      type = "thinking_delta";
      member = "thinking";
    } else if (block == BlockType::text) {
      type = "text_delta";
      member = "text";
    } else {
      loss.drop(Format::anthropic, fmt::format("deltas of {} blocks", block_type_name(block)), where);
      return;
    }
    event(out, "content_block_delta",
          fmt::format(R"({{"type":"content_block_delta","index":{},"delta":{{"type":"{}","{}":{}}}}})",
                      *index, type, member, json_quote(part.text)));
  }

  std::map<std::size_t, std::size_t> m_index;  // the parts' block numbers to its own
  std::map<std::size_t, BlockType> m_type;     // its blocks' types
  std::size_t m_next = 0;
};

}  // namespace

std::unique_ptr<StreamWriter> make_anthropic_stream_writer(const StreamWriterOptions& options) {
  (void)options;
  return std::make_unique<AnthropicWriter>();
}

}  // namespace convo
