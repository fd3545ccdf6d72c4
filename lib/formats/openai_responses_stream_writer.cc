// OpenAI Responses streams written from parts, as the API sends them (the event
// types of openai-node's ResponseStreamEvent): `event:` and `data:` lines, compact
// JSON with `type` and a `sequence_number` counting from 0, an empty line after
// each event.
//
//   response.created, response.in_progress      the response, status in_progress
//   response.output_item.added                  each item as it starts
//   text:      response.content_part.added, response.output_text.delta...,
//              response.output_text.done, response.content_part.done; text blocks
//              in a row are the parts (content_index 0, 1, ...) of one message item
//   thinking:  response.reasoning_summary_part.added, ...summary_text.delta...,
//              ...summary_text.done, ...summary_part.done: one summary part
//   tool_use:  response.function_call_arguments.delta..., ...arguments.done
//   response.output_item.done                   each item whole
//   response.completed                          the response whole: its output
//              and usage (input_tokens counting cached ones, cached_tokens,
//              reasoning_tokens); response.incomplete for max_tokens (reason
//              max_output_tokens) and refusal (content_filter)
//
// Items keep the ids and members (encrypted_content, status, ...) of the Responses
// item a part came from; others get ids made from the response's (`msg_`, `rs_`,
// `fc_` and the output index). An error, in a response, is response.failed (its
// `error`, the output so far) then an `error` event; outside one, the `error`
// event alone. response.completed repeats the output, as the API does, so a writer
// holds the items of its response until it ends.
#include <fmt/format.h>

#include <map>
#include <set>

#include "formats/openai_responses_stream.h"
#include "json.h"

namespace convo {

namespace {

std::string responses_usage_json(const Usage& usage) {
  std::int64_t cached = usage.cache_read.value_or(0);
  std::int64_t input = usage.input.value_or(0) + cached + usage.cache_write.value_or(0);
  std::int64_t output = usage.output.value_or(0);
  return fmt::format(
      R"({{"input_tokens":{},"input_tokens_details":{{"cached_tokens":{}}},"output_tokens":{},"output_tokens_details":{{"reasoning_tokens":{}}},"total_tokens":{}}})",
      input, cached, output, usage.reasoning.value_or(0), input + output);
}

// `item` (a JSON object's text) with the members of `extra` (another object's
// text) that it lacks; `item` alone when `extra` is not an object.
std::string with_members_of(const std::string& item, const std::string& extra) {
  if (extra.empty()) {
    return item;
  }
  JsonDoc built;
  JsonDoc more;
  if (parse_json(item, built) || parse_json(extra, more) || !built.IsObject() || !more.IsObject()) {
    return item;
  }
  auto& alloc = built.GetAllocator();
  for (const auto& member : more.GetObject()) {
    if (find_member(built, view_of(member.name)) == nullptr) {
      set_member(built, view_of(member.name), JsonValue(member.value, alloc), alloc);
    }
  }
  return to_json(built);
}

class ResponsesWriter final : public StreamWriter {
 public:
  void write(const StreamPart& part, std::string& out, LossReport& loss,
             const Location& where) override {
    switch (part.kind) {
      case StreamPart::Kind::begin:
        begin(part, out);
        return;
      case StreamPart::Kind::block_begin:
        block_begin(part, out, loss, where);
        return;
      case StreamPart::Kind::delta:
        delta(part, out, loss, where);
        return;
      case StreamPart::Kind::signature:
        if (!part.text.empty() && m_blocks.contains(part.index)) {
          loss.drop(Format::openai_responses, "thinking signatures", where);
        }
        return;
      case StreamPart::Kind::block_end:
        block_end(part, out);
        return;
      case StreamPart::Kind::finish:
        m_stop = part.stop;
        m_usage = part.usage;
        if (part.from == Format::openai_responses) {
          m_final = part.raw_event;  // its own final response, as it came
        }
        return;
      case StreamPart::Kind::end:
        end(out);
        return;
      case StreamPart::Kind::error:
        error(part, out);
        return;
    }
  }

 private:
  // An open block: where its text goes, and the text so far (the .done events
  // repeat it).
  struct Open {
    BlockType type = BlockType::text;
    std::size_t output_index = 0;
    std::size_t content_index = 0;
    std::string item_id;
    std::string call_id;
    std::string name;  // a tool's; a text block's content part as it came
    std::string text;
    bool summary_part = false;  // thinking: its summary part was added
  };

  void event(std::string& out, std::string_view type, std::string_view members) {
    out += "event: ";
    out += type;
    out += fmt::format("\ndata: {{\"type\":\"{}\",\"sequence_number\":{}", type, m_seq++);
    out += members;
    out += "}\n\n";
  }

  std::string response_json(std::string_view status, std::string_view output,
                            std::string_view usage, std::string_view details = "null",
                            std::string_view error = "null") const {
    return fmt::format(
        R"({{"id":{},"object":"response","created_at":{},"status":"{}","error":{},"incomplete_details":{},"model":{},"output":[{}],"usage":{}}})",
        json_quote(m_id), m_created, status, error, details, json_quote(m_model), output, usage);
  }

  void begin(const StreamPart& part, std::string& out) {
    m_id = part.id;
    m_model = part.model;
    m_created = part.created;
    m_begun = true;
    std::string response = part.from == Format::openai_responses && !part.raw_event.empty()
                               ? part.raw_event
                               : response_json("in_progress", "", "null");
    event(out, "response.created", ",\"response\":" + response);
    event(out, "response.in_progress", ",\"response\":" + response);
  }

  // An item id: the one the part's item had, else one made from the response's.
  std::string item_id(const StreamPart& part, std::string_view prefix, std::size_t index) {
    std::string id = part.item_id;
    if (id.empty() || m_ids.contains(id)) {
      std::string_view stem = m_id;
      if (auto underscore = stem.find('_'); underscore != std::string_view::npos) {
        stem.remove_prefix(underscore + 1);
      }
      id = fmt::format("{}_{}{}{}", prefix, stem, stem.empty() ? "" : "_", index);
    }
    m_ids.insert(id);
    return id;
  }

  void add_output(std::string item) {
    if (!m_output.empty()) {
      m_output += ',';
    }
    m_output += item;
  }

  // Ends the message item text blocks in a row were written to.
  void close_message(std::string& out) {
    if (!m_message) {
      return;
    }
    std::string item = with_members_of(
        fmt::format(R"({{"id":{},"type":"message","status":"completed","content":[{}],"role":"assistant"}})",
                    json_quote(m_message->item_id), m_message_parts),
        m_message_extra);
    event(out, "response.output_item.done",
          fmt::format(R"(,"output_index":{},"item":{})", m_message->output_index, item));
    add_output(std::move(item));
    m_message.reset();
    m_message_parts.clear();
    m_message_extra.clear();
  }

  void block_begin(const StreamPart& part, std::string& out, LossReport& loss, const Location& where) {
    if (part.block != BlockType::text) {
      close_message(out);
    }
    Open open;
    open.type = part.block;
    switch (part.block) {
      case BlockType::text: {
        if (!m_message) {
          Open message;
          message.output_index = m_next++;
          message.item_id = item_id(part, "msg", message.output_index);
          m_message = message;
          m_message_extra = part.item;
          event(out, "response.output_item.added",
                fmt::format(R"(,"output_index":{},"item":{{"id":{},"type":"message","status":"in_progress","content":[],"role":"assistant"}})",
                            message.output_index, json_quote(message.item_id)));
        }
        open.output_index = m_message->output_index;
        open.item_id = m_message->item_id;
        open.content_index = m_message->content_index++;
        if (part.from == Format::openai_responses) {
          open.name = part.raw;  // the content part as it came: its annotations stay
        }
        event(out, "response.content_part.added",
              fmt::format(R"(,"item_id":{},"output_index":{},"content_index":{},"part":{{"type":"output_text","annotations":[],"logprobs":[],"text":""}})",
                          json_quote(open.item_id), open.output_index, open.content_index));
        break;
      }
      case BlockType::thinking:
        open.output_index = m_next++;
        open.item_id = item_id(part, "rs", open.output_index);
        event(out, "response.output_item.added",
              fmt::format(R"(,"output_index":{},"item":{{"id":{},"type":"reasoning","summary":[]}})",
                          open.output_index, json_quote(open.item_id)));
        break;
      case BlockType::tool_use:
        open.output_index = m_next++;
        open.item_id = item_id(part, "fc", open.output_index);
        open.call_id = part.id;
        open.name = part.name;
        event(out, "response.output_item.added",
              fmt::format(R"(,"output_index":{},"item":{{"id":{},"type":"function_call","status":"in_progress","arguments":"","call_id":{},"name":{}}})",
                          open.output_index, json_quote(open.item_id), json_quote(open.call_id),
                          json_quote(open.name)));
        break;
      default:
        if (part.from == Format::openai_responses && !part.raw_event.empty()) {
          // An item of its own kind (web_search_call, reasoning with only
          // encrypted content, ...), as it came.
          std::size_t index = m_next++;
          event(out, "response.output_item.added",
                fmt::format(R"(,"output_index":{},"item":{})", index, part.raw_event));
          event(out, "response.output_item.done",
                fmt::format(R"(,"output_index":{},"item":{})", index, part.raw_event));
          add_output(part.raw_event);
          return;
        }
        loss.drop(Format::openai_responses,
                  fmt::format("{} blocks", part.name.empty() || part.block == BlockType::redacted_thinking
                                               ? block_type_name(part.block)
                                               : std::string_view(part.name)),
                  where);
        return;
    }
    if (part.block != BlockType::text) {
      m_extra[part.index] = part.item;
    }
    m_blocks[part.index] = std::move(open);
  }

  void delta(const StreamPart& part, std::string& out, LossReport& loss, const Location& where) {
    auto found = m_blocks.find(part.index);
    if (found == m_blocks.end()) {
      return;
    }
    if (!delta_has_text(part, Format::openai_responses, loss, where)) {
      return;
    }
    Open& open = found->second;
    open.text += part.text;
    if (open.type == BlockType::text) {
      event(out, "response.output_text.delta",
            fmt::format(R"(,"item_id":{},"output_index":{},"content_index":{},"delta":{},"logprobs":[])",
                        json_quote(open.item_id), open.output_index, open.content_index,
                        json_quote(part.text)));
    } else if (open.type == BlockType::thinking) {
      if (!open.summary_part) {
        open.summary_part = true;
        event(out, "response.reasoning_summary_part.added",
              fmt::format(R"(,"item_id":{},"output_index":{},"summary_index":0,"part":{{"type":"summary_text","text":""}})",
                          json_quote(open.item_id), open.output_index));
      }
      event(out, "response.reasoning_summary_text.delta",
            fmt::format(R"(,"item_id":{},"output_index":{},"summary_index":0,"delta":{})",
                        json_quote(open.item_id), open.output_index, json_quote(part.text)));
    } else {
      event(out, "response.function_call_arguments.delta",
            fmt::format(R"(,"item_id":{},"output_index":{},"delta":{})", json_quote(open.item_id),
                        open.output_index, json_quote(part.text)));
    }
  }

  void block_end(const StreamPart& part, std::string& out) {
    auto found = m_blocks.find(part.index);
    if (found == m_blocks.end()) {
      return;
    }
    Open open = std::move(found->second);
    m_blocks.erase(found);
    std::string extra = !part.item.empty() ? part.item : std::move(m_extra[part.index]);
    m_extra.erase(part.index);
    std::string text = json_quote(open.text);
    if (open.type == BlockType::text) {
      event(out, "response.output_text.done",
            fmt::format(R"(,"item_id":{},"output_index":{},"content_index":{},"text":{},"logprobs":[])",
                        json_quote(open.item_id), open.output_index, open.content_index, text));
      std::string content =
          open.name.empty()
              ? fmt::format(R"({{"type":"output_text","annotations":[],"logprobs":[],"text":{}}})", text)
              : with_members_of(fmt::format(R"({{"text":{}}})", text), open.name);
      event(out, "response.content_part.done",
            fmt::format(R"(,"item_id":{},"output_index":{},"content_index":{},"part":{})",
                        json_quote(open.item_id), open.output_index, open.content_index, content));
      m_message_parts += m_message_parts.empty() ? "" : ",";
      m_message_parts += content;
      if (!extra.empty()) {
        m_message_extra = extra;
      }
      return;
    }
    std::string item;
    if (open.type == BlockType::thinking) {
      std::string summary;
      if (open.summary_part) {
        event(out, "response.reasoning_summary_text.done",
              fmt::format(R"(,"item_id":{},"output_index":{},"summary_index":0,"text":{})",
                          json_quote(open.item_id), open.output_index, text));
        summary = fmt::format(R"({{"type":"summary_text","text":{}}})", text);
        event(out, "response.reasoning_summary_part.done",
              fmt::format(R"(,"item_id":{},"output_index":{},"summary_index":0,"part":{})",
                          json_quote(open.item_id), open.output_index, summary));
      }
      item = fmt::format(R"({{"id":{},"type":"reasoning","summary":[{}]}})", json_quote(open.item_id), summary);
    } else {
      event(out, "response.function_call_arguments.done",
            fmt::format(R"(,"item_id":{},"output_index":{},"arguments":{})", json_quote(open.item_id),
                        open.output_index, text));
      item = fmt::format(R"({{"id":{},"type":"function_call","status":"completed","arguments":{},"call_id":{},"name":{}}})",
                         json_quote(open.item_id), text, json_quote(open.call_id), json_quote(open.name));
    }
    item = with_members_of(item, extra);
    event(out, "response.output_item.done",
          fmt::format(R"(,"output_index":{},"item":{})", open.output_index, item));
    add_output(std::move(item));
  }

  void end(std::string& out) {
    close_message(out);
    std::string response = m_final;
    std::string_view type = "response.completed";
    if (response.empty()) {
      std::string_view status = "completed";
      std::string_view details = "null";
      if (m_stop == StopReason::max_tokens) {
        status = "incomplete";
        details = R"({"reason":"max_output_tokens"})";
      } else if (m_stop == StopReason::refusal) {
        status = "incomplete";
        details = R"({"reason":"content_filter"})";
      }
      response = response_json(status, m_output, responses_usage_json(m_usage), details);
      if (status == "incomplete") {
        type = "response.incomplete";
      }
    } else if (auto status = status_of(response); status == "incomplete" || status == "failed") {
      type = status == "failed" ? "response.failed" : "response.incomplete";
    }
    event(out, type, ",\"response\":" + response);
    m_begun = false;
  }

  static std::string status_of(const std::string& response) {
    JsonDoc doc;
    if (parse_json(response, doc) || !doc.IsObject()) {
      return "";
    }
    return std::string(string_member(doc, "status").value_or(""));
  }

  void error(const StreamPart& part, std::string& out) {
    std::string code = part.error_type.empty() ? "server_error" : part.error_type;
    if (m_begun) {
      // The message item in hand goes in the output as far as it came, incomplete.
      if (m_message) {
        std::string parts = m_message_parts;
        for (const auto& [index, open] : m_blocks) {
          if (open.type == BlockType::text) {
            parts += parts.empty() ? "" : ",";
            parts += fmt::format(R"({{"type":"output_text","annotations":[],"logprobs":[],"text":{}}})",
                                 json_quote(open.text));
          }
        }
        add_output(fmt::format(R"({{"id":{},"type":"message","status":"incomplete","content":[{}],"role":"assistant"}})",
                               json_quote(m_message->item_id), parts));
        m_message.reset();
      }
      std::string error = fmt::format(R"({{"code":{},"message":{}}})", json_quote(code), json_quote(part.text));
      event(out, "response.failed",
            ",\"response\":" + response_json("failed", m_output, "null", "null", error));
      m_begun = false;
    }
    event(out, "error",
          fmt::format(R"(,"code":{},"message":{},"param":null)", json_quote(code), json_quote(part.text)));
  }

  std::size_t m_seq = 0;
  bool m_begun = false;
  std::string m_id;
  std::string m_model;
  std::int64_t m_created = 0;
  std::size_t m_next = 0;          // the next output_index
  std::set<std::string> m_ids;     // item ids given
  std::map<std::size_t, Open> m_blocks;         // open blocks, by the parts' numbers
  std::map<std::size_t, std::string> m_extra;   // their items' members as they came
  std::optional<Open> m_message;   // the message item text blocks go to
  std::string m_message_parts;     // its content parts so far
  std::string m_message_extra;     // its members as they came
  std::string m_output;            // the items done, for response.completed
  StopReason m_stop = StopReason::none;
  Usage m_usage;
  std::string m_final;             // a Responses stream's own final response
};

}  // namespace

std::unique_ptr<StreamWriter> make_openai_responses_stream_writer(const StreamWriterOptions& options) {
  (void)options;
  return std::make_unique<ResponsesWriter>();
}

}  // namespace convo
