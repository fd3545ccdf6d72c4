// OpenAI Chat Completions streams written from parts, as the API sends them
// (../shared/formats.md section 3.2): `data: ` lines of chat.completion.chunk
// objects, an empty line after each, `data: [DONE]` at the end. The first chunk
// gives the role (and content ""); text comes as `content` deltas; each tool call
// has an index of its own in `tool_calls`, its id, type and name (and arguments "")
// in its first delta and pieces of its arguments after; the finish_reason comes in
// a chunk with an empty delta, and, when asked, the usage in a last chunk with no
// choices. Thinking text goes out as `reasoning_content`, as DeepSeek and
// OpenRouter send it (its signature, which Chat has no place for, is counted lost).
// An error is a `data:` line holding an `error` object, as the API sends it.
#include <fmt/format.h>

#include <map>

#include "formats/openai_stream.h"
#include "json.h"

namespace convo {

namespace {

class OpenAIWriter final : public StreamWriter {
 public:
  explicit OpenAIWriter(const StreamWriterOptions& options) : m_options(options) {}

  void write(const StreamPart& part, std::string& out, LossReport& loss,
             const Location& where) override {
    switch (part.kind) {
      case StreamPart::Kind::begin:
        m_head = fmt::format(R"({{"id":{},"object":"chat.completion.chunk","created":{},"model":{},)",
                             json_quote(part.id), part.created, json_quote(part.model));
        chunk(out, R"({"role":"assistant","content":""})");
        return;
      case StreamPart::Kind::block_begin:
        block_begin(part, out, loss, where);
        return;
      case StreamPart::Kind::delta:
        delta(part, out, loss, where);
        return;
      case StreamPart::Kind::signature:
        if (!part.text.empty()) {
          loss.drop(Format::openai, "thinking signatures", where);
        }
        return;
      case StreamPart::Kind::block_end:
        return;
      case StreamPart::Kind::finish: {
        auto reason = stop_reason_spelled(Format::openai, part.stop);
        if (!reason.exact) {
          loss.drop(Format::openai, "stop reasons", where);
        }
        chunk(out, "{}", reason.name.empty() ? "null" : json_quote(reason.name));
        if (m_options.include_usage) {
          const Usage& u = part.usage;
          std::int64_t cached = u.cache_read.value_or(0);
          std::int64_t prompt = u.input.value_or(0) + cached + u.cache_write.value_or(0);
          std::int64_t completion = u.output.value_or(0);
          out += "data: ";
          out += m_head;
          out += fmt::format(
              R"("choices":[],"usage":{{"prompt_tokens":{},"completion_tokens":{},"total_tokens":{},"prompt_tokens_details":{{"cached_tokens":{}}},"completion_tokens_details":{{"reasoning_tokens":{}}}}}}})",
              prompt, completion, prompt + completion, cached, u.reasoning.value_or(0));
          out += "\n\n";
        }
        return;
      }
      case StreamPart::Kind::end:
        out += "data: [DONE]\n\n";
        return;
      case StreamPart::Kind::error:
        out += fmt::format(R"(data: {{"error":{{"message":{},"type":{},"param":null,"code":null}}}})",
                           json_quote(part.text),
                           json_quote(part.error_type.empty() ? "server_error" : part.error_type));
        out += "\n\n";
        return;
    }
  }

 private:
  // One chunk of choice 0 with `delta`, and `finish_reason` when given.
  void chunk(std::string& out, std::string_view delta, std::string_view finish_reason = "null") {
    out += "data: ";
    out += m_head;
    out += R"("choices":[{"index":0,"delta":)";
    out += delta;
    out += R"(,"finish_reason":)";
    out += finish_reason;
    out += "}]}\n\n";
  }

  void block_begin(const StreamPart& part, std::string& out, LossReport& loss, const Location& where) {
    switch (part.block) {
      case BlockType::text:
      case BlockType::thinking:
        m_type[part.index] = part.block;
        return;
      case BlockType::tool_use: {
        std::size_t call = m_calls++;
        m_type[part.index] = BlockType::tool_use;
        m_call[part.index] = call;
        chunk(out, fmt::format(
                       R"({{"tool_calls":[{{"index":{},"id":{},"type":"function","function":{{"name":{},"arguments":""}}}}]}})",
                       call, json_quote(part.id), json_quote(part.name)));
        return;
      }
      default:
        loss.drop(Format::openai, fmt::format("{} blocks", dropped_block_name(part)),
                  where);
        return;
    }
  }

  void delta(const StreamPart& part, std::string& out, LossReport& loss, const Location& where) {
    auto type = m_type.find(part.index);
    if (type == m_type.end()) {
      return;
    }
    if (!delta_has_text(part, Format::openai, loss, where)) {
      return;
    }
    if (type->second == BlockType::tool_use) {
      chunk(out, fmt::format(R"({{"tool_calls":[{{"index":{},"function":{{"arguments":{}}}}}]}})",
                             m_call[part.index], json_quote(part.text)));
    } else if (type->second == BlockType::thinking) {
      chunk(out, fmt::format(R"({{"reasoning_content":{}}})", json_quote(part.text)));
    } else {
      chunk(out, fmt::format(R"({{"content":{}}})", json_quote(part.text)));
    }
  }

  StreamWriterOptions m_options;
  std::string m_head;  // the members every chunk begins with: id, object, created, model
  std::map<std::size_t, BlockType> m_type;   // the parts' blocks it writes
  std::map<std::size_t, std::size_t> m_call;  // the tool-call index of each tool_use block
  std::size_t m_calls = 0;
};

}  // namespace

std::unique_ptr<StreamWriter> make_openai_stream_writer(const StreamWriterOptions& options) {
  return std::make_unique<OpenAIWriter>(options);
}

}  // namespace convo
