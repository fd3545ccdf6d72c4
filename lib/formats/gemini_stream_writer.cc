// Gemini streams written from parts, as `streamGenerateContent?alt=sse` sends them:
// `data: ` lines of GenerateContentResponse chunks, compact JSON, an empty line
// after each, no end marker. Each chunk has one candidate (index 0) with one part
// and the response's `modelVersion` and `responseId`. A delta of text or thinking
// is a chunk of its own (`{"text": ...}`, with `"thought": true` for thinking); a
// signature is a chunk with an empty text part carrying `thoughtSignature` (a
// reader puts it on the text before); a tool call is one chunk, its `functionCall`
// whole (`name`, `args`, `id` unless convo made it up, its signature) when its
// input is done, as the API sends calls. The last chunk has an empty text part,
// the `finishReason` and the `usageMetadata`. An error is a `data:` line holding
// an `error` object (`code`, `message`, `status`), as the API sends it.
#include <fmt/format.h>

#include <map>

#include "formats/api_error.h"
#include "formats/gemini_parts.h"
#include "formats/gemini_stream.h"
#include "json.h"

namespace convo {

namespace {

class GeminiWriter final : public StreamWriter {
 public:
  void write(const StreamPart& part, std::string& out, LossReport& loss,
             const Location& where) override {
    switch (part.kind) {
      case StreamPart::Kind::begin:
        m_tail.clear();
        if (!part.model.empty()) {
          m_tail += fmt::format(R"(,"modelVersion":{})", json_quote(part.model));
        }
        if (!part.id.empty()) {
          m_tail += fmt::format(R"(,"responseId":{})", json_quote(part.id));
        }
        return;
      case StreamPart::Kind::block_begin:
        block_begin(part, out, loss, where);
        return;
      case StreamPart::Kind::delta:
        delta(part, out, loss, where);
        return;
      case StreamPart::Kind::signature: {
        auto block = m_blocks.find(part.index);
        if (block == m_blocks.end() || part.text.empty()) {
          return;
        }
        if (block->second.type == BlockType::tool_use) {
          block->second.signature += part.text;  // goes with the call
          return;
        }
        chunk(out, fmt::format(R"({{"text":""{},"thoughtSignature":{}}})",
                               block->second.type == BlockType::thinking ? R"(,"thought":true)" : "",
                               json_quote(part.text)));
        return;
      }
      case StreamPart::Kind::block_end:
        block_end(part, out, loss, where);
        return;
      case StreamPart::Kind::finish:
        finish(part, out, loss, where);
        return;
      case StreamPart::Kind::end:
        return;  // the last chunk was the end
      case StreamPart::Kind::error: {
        auto [code, status] = gemini_error_status(part.error_type);
        out += fmt::format(R"(data: {{"error":{{"code":{},"message":{},"status":"{}"}}}})", code,
                           json_quote(part.text), status);
        out += "\n\n";
        return;
      }
    }
  }

 private:
  struct Open {
    BlockType type = BlockType::text;
    std::string id;
    std::string name;
    std::string input;  // a call's input JSON, held until the call is done
    std::string signature;
  };

  // One chunk whose candidate has the part `part`.
  void chunk(std::string& out, std::string_view part) {
    out += R"(data: {"candidates":[{"content":{"parts":[)";
    out += part;
    out += R"(],"role":"model"},"index":0}])";
    out += m_tail;
    out += "}\n\n";
  }

  void block_begin(const StreamPart& part, std::string& out, LossReport& loss, const Location& where) {
    switch (part.block) {
      case BlockType::text:
      case BlockType::thinking:
      case BlockType::tool_use:
        m_blocks[part.index] = Open{part.block, part.id, part.name, {}, {}};
        return;
      default:
        if (part.from == Format::gemini && !part.raw_event.empty()) {
          chunk(out, part.raw_event);  // a part of Gemini's own, as it came
          return;
        }
        loss.drop(Format::gemini, fmt::format("{} blocks", block_type_name(part.block)), where);
        return;
    }
  }

  void delta(const StreamPart& part, std::string& out, LossReport& loss, const Location& where) {
    auto block = m_blocks.find(part.index);
    if (block == m_blocks.end()) {
      return;
    }
    if (!delta_has_text(part, Format::gemini, loss, where)) {
      return;
    }
    if (block->second.type == BlockType::tool_use) {
      block->second.input += part.text;
      return;
    }
    chunk(out, fmt::format(R"({{"text":{}{}}})", json_quote(part.text),
                           block->second.type == BlockType::thinking ? R"(,"thought":true)" : ""));
  }

  void block_end(const StreamPart& part, std::string& out, LossReport& loss, const Location& where) {
    auto block = m_blocks.find(part.index);
    if (block == m_blocks.end()) {
      return;
    }
    Open open = std::move(block->second);
    m_blocks.erase(block);
    if (open.type != BlockType::tool_use) {
      return;
    }
    std::string args = open.input.empty() ? "{}" : open.input;
    JsonDoc doc;
    if (parse_json(args, doc) || !doc.IsObject()) {
      loss.drop(Format::gemini, "tool inputs that are not JSON objects", where);
      args = "{}";
    } else {
      args = to_json(doc);
    }
    std::string call;
    if (!open.id.empty() && !is_made_up_call_id(open.id)) {
      call += fmt::format(R"("id":{},)", json_quote(open.id));
    }
    call += fmt::format(R"("name":{},"args":{})", json_quote(open.name), args);
    chunk(out, fmt::format(R"({{"functionCall":{{{}}}{}}})", call,
                           open.signature.empty() ? std::string()
                                                  : fmt::format(R"(,"thoughtSignature":{})", json_quote(open.signature))));
  }

  void finish(const StreamPart& part, std::string& out, LossReport& loss, const Location& where) {
    const Usage& u = part.usage;
    std::int64_t prompt = u.input.value_or(0) + u.cache_read.value_or(0) + u.cache_write.value_or(0);
    std::int64_t candidates = u.output.value_or(0);
    std::int64_t total = u.total.value_or(prompt + candidates + u.reasoning.value_or(0));
    std::string usage = fmt::format(R"("promptTokenCount":{},"candidatesTokenCount":{},"totalTokenCount":{})",
                                    prompt, candidates, total);
    if (u.cache_read) {
      usage += fmt::format(R"(,"cachedContentTokenCount":{})", *u.cache_read);
    }
    if (u.reasoning) {
      usage += fmt::format(R"(,"thoughtsTokenCount":{})", *u.reasoning);
    }
    out += R"(data: {"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":")";
    // The last chunk always says why; not said is STOP.
    auto reason = stop_reason_spelled(Format::gemini, part.stop);
    if (!reason.exact) {
      loss.drop(Format::gemini, "stop reasons", where);
    }
    out += reason.name.empty() ? "STOP" : reason.name;
    out += R"(","index":0}],"usageMetadata":{)";
    out += usage;
    out += "}";
    out += m_tail;
    out += "}\n\n";
  }

  std::string m_tail;                   // the members every chunk ends with: modelVersion, responseId
  std::map<std::size_t, Open> m_blocks;  // the parts' open blocks it writes
};

}  // namespace

std::unique_ptr<StreamWriter> make_gemini_stream_writer(const StreamWriterOptions& options) {
  (void)options;
  return std::make_unique<GeminiWriter>();
}

}  // namespace convo
