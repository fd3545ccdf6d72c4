#include "stages/stream.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <span>

#include "formats/fields.h"
#include "formats/responses_items.h"
#include "io/compression.h"
#include "io/input_list.h"
#include "io/output.h"
#include "message.h"
#include "sse_reader.h"

namespace convo {

namespace {

// --- Telling a stream from messages ---

// Hands back the bytes read ahead (`head`) before the rest of `rest`.
class HeadSource final : public ByteSource {
 public:
  HeadSource(std::string head, std::unique_ptr<ByteSource> rest)
      : m_head(std::move(head)), m_rest(std::move(rest)) {}

  std::size_t read(char* buffer, std::size_t size) override {
    if (m_pos < m_head.size()) {
      std::size_t n = std::min(size, m_head.size() - m_pos);
      std::memcpy(buffer, m_head.data() + m_pos, n);
      m_pos += n;
      return n;
    }
    return m_rest->read(buffer, size);
  }

 private:
  std::string m_head;
  std::size_t m_pos = 0;
  std::unique_ptr<ByteSource> m_rest;
};

// Reads from `source` and keeps a copy of every byte it hands out in `copy`, so that
// what a look ahead read can be read again (through a HeadSource).
class TeeSource final : public ByteSource {
 public:
  TeeSource(ByteSource& source, std::string& copy) : m_source(source), m_copy(copy) {}

  std::size_t read(char* buffer, std::size_t size) override {
    std::size_t n = m_source.read(buffer, size);
    m_copy.append(buffer, n);
    return n;
  }

 private:
  ByteSource& m_source;
  std::string& m_copy;
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// Reads `input` up to the end of its first line that is not blank (no further: a
// live stream's next event may be minutes away) and returns that line; `head` gets
// every byte read.
std::string first_line(ByteSource& input, std::string& head) {
  char buffer[4096];
  std::size_t from = 0;
  for (;;) {
    std::size_t newline;
    while ((newline = head.find('\n', from)) != std::string::npos) {
      std::string_view line(head.data() + from, newline - from);
      if (std::any_of(line.begin(), line.end(), [](char c) { return !is_space(c); })) {
        return std::string(line);
      }
      from = newline + 1;
    }
    // One byte at a time would be slow; a read of a pipe returns what is there.
    std::size_t n = input.read(buffer, sizeof buffer);
    if (n == 0) {
      return head.substr(from);
    }
    head.append(buffer, n);
  }
}

// True when `line`, the first of an input, begins a stream: an SSE field, or a
// JSON event one of `readers` claims.
bool begins_stream(std::string_view line, const std::vector<std::unique_ptr<StreamReader>>& readers) {
  while (!line.empty() && is_space(line.front())) {
    line.remove_prefix(1);
  }
  if (line.empty()) {
    return false;
  }
  if (line.front() == ':') {
    return true;
  }
  for (std::string_view field : {"event:", "data:", "id:", "retry:"}) {
    if (line.substr(0, field.size()) == field) {
      return true;
    }
  }
  if (line.front() != '{') {
    return false;
  }
  JsonDoc doc;
  std::string text(line);
  if (parse_json(text, doc) || !doc.IsObject()) {
    return false;
  }
  if (string_member(doc, "type").value_or("") == "error") {
    return true;
  }
  return std::any_of(readers.begin(), readers.end(),
                     [&](const auto& reader) { return reader->reads_parts() && reader->is_event(doc); });
}

// True when the input, whose first line is `line` and whose bytes read so far are
// `head`, is a JSON array whose first element is an event one of `readers` claims
// (Gemini's streamGenerateContent without `alt=sse`: `[{...},\n{...}]`). A JSON array
// of messages is not. Reads the first element whole; what it reads is added to
// `head`.
bool begins_event_array(std::string_view line, ByteSource& input, std::string& head,
                        const std::vector<std::unique_ptr<StreamReader>>& readers) {
  std::size_t first = line.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || line[first] != '[') {
    return false;
  }
  // The element is read by the reader that will read the stream, from the bytes
  // read so far and then the input, each new byte kept in `head`.
  std::string more;
  StreamEventReader look(
      std::make_unique<HeadSource>(head, std::make_unique<TeeSource>(input, more)), "");
  StreamEvent element;
  bool read = look.next(element);
  head += more;
  if (!read) {
    return false;
  }
  JsonDoc doc;
  if (parse_json(element.data, doc) || !doc.IsObject()) {
    return false;
  }
  return std::any_of(readers.begin(), readers.end(),
                     [&](const auto& reader) { return reader->reads_parts() && reader->is_event(doc); });
}

std::vector<std::unique_ptr<StreamReader>> part_readers() {
  std::vector<std::unique_ptr<StreamReader>> readers;
  for (const FormatInfo& info : all_formats()) {
    if (info.make_stream_reader != nullptr) {
      readers.push_back(info.make_stream_reader());
    }
  }
  return readers;
}

// --- Translating a stream ---

class Translator {
 public:
  Translator(const StreamCommandOptions& options, Output& out, LossReport& loss,
             StreamCommandStats& stats, Diagnostics& diagnostics)
      : m_options(options), m_out(out), m_loss(loss), m_stats(stats), m_diagnostics(diagnostics),
        m_readers(part_readers()) {}

  void run(StreamEventReader& reader) {
    StreamEvent event;
    Location last{reader.file()};
    while (reader.next(event)) {
      ++m_stats.events;
      handle(event);
      last = event.where;
      if (!m_bytes.empty()) {
        m_out.write(m_bytes);
        m_bytes.clear();
      }
      if (!reader.has_buffered_event()) {
        // The client sees each event as soon as it is translated; when more of the
        // input has arrived already, it comes with the next one, a moment later.
        m_out.flush();
      }
    }
    if (m_open) {
      std::vector<StreamPart> parts;
      if (m_reader != nullptr && m_reader->parts_at_input_end(parts)) {
        write(parts, last);
      } else {
        fail("stream ends here, before the response ends: it is incomplete", "api_error", last);
      }
    }
    m_out.write(m_bytes);
    m_out.flush();
  }

 private:
  void handle(const StreamEvent& event) {
    if (event.data.empty()) {
      return;
    }
    std::vector<StreamPart> parts;
    for (auto& reader : m_readers) {
      if (reader->reads_parts() && reader->parts_end_marker(event.data, parts)) {
        write(parts, event.where);
        return;
      }
    }
    JsonDoc doc;
    if (auto error = parse_json(event.data, doc)) {
      Location where = event.at(error->offset);
      fail(fmt::format("event data is not JSON: {}", error->message), "api_error", where);
    }
    if (!doc.IsObject()) {
      fail(fmt::format("event data is {}, not an object", json_type_name(doc)), "api_error",
           event.where);
    }
    std::string_view type = string_member(doc, "type").value_or("");
    auto claimer = std::find_if(m_readers.begin(), m_readers.end(),
                                [&](const auto& reader) { return reader->claims(event, doc); });
    const JsonValue* error = find_member(doc, "error");
    if (event.name == "error" || type == "error" ||
        (error != nullptr && type.empty() &&
         (claimer == m_readers.end() || !(*claimer)->owns_error_member(doc)))) {
      // A Responses error event has its code and message at the top.
      stream_error(error != nullptr ? error : &doc, event.where);
    }
    if (claimer == m_readers.end()) {
      m_diagnostics.warning(event.where, "ignored an event of no protocol convo reads");
      return;
    }
    StreamReader& reader = **claimer;
    if (!reader.reads_parts()) {
      fail(fmt::format("{} events cannot be translated", reader.name()), "api_error", event.where);
    }
    if (m_options.from && reader.format() != *m_options.from) {
      fail(fmt::format("the stream is {}, not {} as --from says", format_name(reader.format()),
                       format_name(*m_options.from)),
           "invalid_request_error", event.where);
    }
    if (m_reader != nullptr && m_reader != &reader && m_open) {
      fail(fmt::format("{} before the {} one ends", reader.arrival(), m_reader->name()),
           "api_error", event.where);
    }
    m_reader = &reader;
    if (std::string problem = reader.read_parts(event, doc, parts); !problem.empty()) {
      write(parts, event.where);
      fail(problem, "api_error", event.where);
    }
    write(parts, event.where);
  }

  void write(const std::vector<StreamPart>& parts, const Location& where) {
    for (const StreamPart& part : parts) {
      if (part.kind == StreamPart::Kind::begin) {
        if (m_open) {
          fail("a response starts before the last one ends", "api_error", where);
        }
        m_writer = format_info(m_options.to).make_stream_writer(m_options.writer);
        m_open = true;
        ++m_stats.responses;
      }
      if (m_writer == nullptr) {
        fail("an event comes before the response starts", "api_error", where);
      }
      if (!part.unheld.empty() && part.from != m_options.to) {
        m_loss.drop(m_options.to, part.unheld, where);
      }
      m_writer->write(part, m_bytes, m_loss, where);
      if (part.kind == StreamPart::Kind::end) {
        m_open = false;
      }
    }
  }

  // The stream reported an error: the target's error event, then the error.
  [[noreturn]] void stream_error(const JsonValue* error, const Location& where) {
    std::string type;
    std::string message;
    if (error != nullptr && error->IsObject()) {
      type = std::string(string_member(*error, "type").value_or(""));
      if (type.empty() || type == "error") {
        type = std::string(string_member(*error, "code").value_or(""));
      }
      message = std::string(string_member(*error, "message").value_or(""));
    }
    std::string said = type.empty() && message.empty() ? "stream error"
                       : type.empty() || message.empty()
                           ? fmt::format("stream error: {}", type.empty() ? message : type)
                           : fmt::format("stream error: {}: {}", type, message);
    fail_with(said, type.empty() ? "api_error" : type, message.empty() ? said : message, where);
  }

  [[noreturn]] void fail(const std::string& problem, std::string_view type, const Location& where) {
    fail_with(problem, type, problem, where);
  }

  [[noreturn]] void fail_with(const std::string& problem, std::string_view type,
                              const std::string& message, const Location& where) {
    StreamPart part;
    part.kind = StreamPart::Kind::error;
    part.error_type = std::string(type);
    part.text = message;
    std::unique_ptr<StreamWriter> writer =
        m_writer != nullptr ? std::move(m_writer) : format_info(m_options.to).make_stream_writer(m_options.writer);
    writer->write(part, m_bytes, m_loss, where);
    m_out.write(m_bytes);
    m_bytes.clear();
    m_out.flush();
    throw Error(where, problem);
  }

  const StreamCommandOptions& m_options;
  Output& m_out;
  LossReport& m_loss;
  StreamCommandStats& m_stats;
  Diagnostics& m_diagnostics;
  std::vector<std::unique_ptr<StreamReader>> m_readers;
  StreamReader* m_reader = nullptr;  // the reader of the open response
  std::unique_ptr<StreamWriter> m_writer;
  bool m_open = false;  // a response has begun and not ended
  std::string m_bytes;  // the translation of the event in hand
};

// --- Writing messages as streams ---

// Appends pieces of `text` of at most `size` code points as deltas of block `index`.
void add_deltas(std::vector<StreamPart>& parts, std::size_t index, std::string_view text,
                std::size_t size, StreamPart::Kind kind = StreamPart::Kind::delta) {
  while (!text.empty()) {
    std::size_t end = text.size();
    if (size > 0) {
      std::size_t chars = 0;
      end = 0;
      while (end < text.size() && chars < size) {
        ++end;
        while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) {
          ++end;  // a continuation byte stays with its code point
        }
        ++chars;
      }
    }
    StreamPart part;
    part.kind = kind;
    part.index = index;
    part.text = std::string(text.substr(0, end));
    parts.push_back(std::move(part));
    text.remove_prefix(end);
  }
}

class MessageStreams final : public InputHandler {
 public:
  MessageStreams(const StreamCommandOptions& options, Output& out, LossReport& loss,
                 StreamCommandStats& stats)
      : m_options(options), m_out(out), m_loss(loss), m_stats(stats) {}

  void message(Message&& message) override {
    // The items of one response body (a Responses body's output, a built-in tool's
    // output item among them) are one response.
    if (!m_pending.empty() && same_response(m_pending.back(), message)) {
      m_pending.push_back(std::move(message));
      return;
    }
    write_pending();
    if (!message.is_turn() || message.role != Role::assistant) {
      ++m_stats.skipped;
      return;
    }
    m_pending.push_back(std::move(message));
  }

  void end_input() override { write_pending(); }

 private:
  static bool same_response(const Message& a, const Message& b) {
    return a.source != nullptr && a.source == b.source && !a.meta->message_id.empty() &&
           a.meta->message_id == b.meta->message_id;
  }

  void write_pending() {
    if (m_pending.empty()) {
      return;
    }
    std::unique_ptr<StreamWriter> writer = format_info(m_options.to).make_stream_writer(m_options.writer);
    std::string bytes;
    for (const StreamPart& part : parts_of_messages(m_pending, m_options.chunk_size, m_options.to, m_loss)) {
      writer->write(part, bytes, m_loss, m_pending.front().where);
    }
    m_out.write(bytes);
    m_out.flush();
    ++m_stats.responses;
    m_pending.clear();
  }

  const StreamCommandOptions& m_options;
  Output& m_out;
  LossReport& m_loss;
  StreamCommandStats& m_stats;
  std::vector<Message> m_pending;  // the messages of the response in hand
};

}  // namespace

std::vector<StreamPart> parts_of_message(const Message& message, std::size_t chunk_size,
                                         Format to, LossReport& loss) {
  return parts_of_messages(std::span(&message, 1), chunk_size, to, loss);
}

std::vector<StreamPart> parts_of_messages(std::span<const Message> messages, std::size_t chunk_size,
                                          Format to, LossReport& loss) {
  std::vector<StreamPart> parts;
  const Message& message = messages.front();
  Usage usage = message.usage;
  for (const Message& m : messages) {
    if (!m.usage->empty()) {
      usage = m.usage;  // a response's usage is on one of its messages (a Responses body's last)
    }
  }
  if (format_traits(message.origin).usage_input_includes_cache && usage.input) {
    usage.input = *usage.input - usage.cache_read.value_or(0);
  }
  StreamPart begin;
  begin.kind = StreamPart::Kind::begin;
  begin.id = !message.meta->message_id.empty() ? message.meta->message_id : message.id;
  begin.model = message.meta->model;
  if (message.source != nullptr && message.source->doc.IsObject()) {
    for (std::string_view key : {"created", "created_at"}) {  // Chat's, Responses'
      if (const JsonValue* created = find_member(message.source->doc, key);
          created != nullptr && created->IsInt64()) {
        begin.created = created->GetInt64();
      }
    }
  }
  begin.usage = usage;
  begin.usage.output.reset();
  parts.push_back(std::move(begin));

  std::size_t index = 0;
  // A message of the Responses family is an item: its id and JSON go with its blocks.
  const Message* of = &message;
  std::size_t current = 0;  // the block of `of` in hand
  auto item_of = [&](StreamPart& part) {
    if (holds_responses_items(of->origin) && of->json != nullptr) {
      part.item_id = of->id;
      part.item = to_json(*of->json);
    }
  };
  auto block = [&](BlockType type, std::string_view text, std::string id = {}, std::string name = {}) {
    StreamPart part;
    part.kind = StreamPart::Kind::block_begin;
    part.block = type;
    part.index = index;
    part.id = std::move(id);
    part.name = std::move(name);
    item_of(part);
    if (type == BlockType::text && !part.item.empty() && of->content.form == Content::Form::blocks) {
      // A Responses message's content part, whose members (annotations) its writer keeps.
      const Block& b = of->content.blocks[current];
      if (b.json != nullptr && b.json != of->json) {
        part.from = Format::openai_responses;
        part.raw = to_json(*b.json);
      }
    }
    if (type == BlockType::redacted_thinking) {
      part.text = std::string(text);
    }
    parts.push_back(std::move(part));
    if (type != BlockType::redacted_thinking) {
      add_deltas(parts, index, text, chunk_size);
    }
  };
  auto block_end = [&] {
    StreamPart part;
    part.kind = StreamPart::Kind::block_end;
    part.index = index++;
    parts.push_back(std::move(part));
  };
  for (const Message& m : messages) {
    of = &m;
    if (holds_responses_items(m.origin) && !holds_responses_items(to)) {
      responses_item_unmodelled(m, [&](std::string_view what) { loss.drop(to, what, m.where); });
    }
    if (m.content.form == Content::Form::string) {
      if (!m.content.text.empty()) {
        block(BlockType::text, m.content.text);
        block_end();
      }
      continue;
    }
    if (m.content.form != Content::Form::blocks) {
      continue;
    }
    for (const Block& b : m.content.blocks) {
      current = static_cast<std::size_t>(&b - m.content.blocks.data());
      switch (b.type) {
        case BlockType::text:
        case BlockType::redacted_thinking:
          block(b.type, b.text);
          if (b.signature && b.type == BlockType::text) {  // Gemini signs text too
            add_deltas(parts, index, *b.signature, 0, StreamPart::Kind::signature);
          }
          block_end();
          break;
        case BlockType::thinking:
          block(b.type, b.text);
          if (b.signature) {
            add_deltas(parts, index, *b.signature, 0, StreamPart::Kind::signature);
          }
          block_end();
          break;
        case BlockType::tool_use:
          block(b.type, b.input_json(), b.id, b.name);
          if (b.signature) {  // Gemini signs calls too
            add_deltas(parts, index, *b.signature, 0, StreamPart::Kind::signature);
          }
          block_end();
          break;
        default:
          if (b.type == BlockType::unknown && holds_responses_items(m.origin) &&
              holds_responses_items(to) && b.json != nullptr && b.json == m.json) {
            // An item of its own kind (web_search_call, encrypted reasoning), whole.
            StreamPart part;
            part.kind = StreamPart::Kind::block_begin;
            part.block = BlockType::unknown;
            part.index = index;
            part.name = b.type_name;
            part.item_id = m.id;
            part.from = Format::openai_responses;
            part.raw_event = to_json(*b.json);
            parts.push_back(std::move(part));
            block_end();
            break;
          }
          loss.drop(to, fmt::format("{} blocks", b.type_name.empty() ? block_type_name(b.type) : b.type_name),
                    m.where);
          break;
      }
    }
  }
  StreamPart finish;
  finish.kind = StreamPart::Kind::finish;
  finish.stop = stop_reason_named(message.meta->stop_reason);
  if (message.meta->stop_reason == "STOP" && message.content.is_blocks() &&
      std::any_of(message.content.blocks.begin(), message.content.blocks.end(),
                  [](const Block& b) { return b.type == BlockType::tool_use; })) {
    finish.stop = StopReason::tool_use;  // Gemini says STOP after calls too
  }
  if (message.json != nullptr && message.json->IsObject()) {
    finish.stop_sequence = std::string(string_member(*message.json, "stop_sequence").value_or(""));
  }
  finish.usage = usage;
  parts.push_back(std::move(finish));
  StreamPart end;
  end.kind = StreamPart::Kind::end;
  parts.push_back(std::move(end));
  return parts;
}

StreamCommandStats write_streams(const StreamCommandOptions& options, Output& out,
                                 Diagnostics& diagnostics, const Opener& open) {
  if (format_info(options.to).make_stream_writer == nullptr) {
    throw Error(fmt::format("convo writes no {} streams", format_name(options.to)), ExitCode::usage);
  }
  StreamCommandStats stats;
  LossReport loss(options.strict);
  std::vector<std::string> inputs =
      options.inputs.empty() ? std::vector<std::string>{"-"} : expand_inputs(options.inputs, &diagnostics);
  for (const std::string& path : inputs) {
    std::string name = display_name(path);
    std::unique_ptr<ByteSource> input = decompressing(open(path), name);
    std::string head;
    std::string line = first_line(*input, head);
    std::vector<std::unique_ptr<StreamReader>> readers = part_readers();
    bool stream = !line.empty() && (begins_stream(line, readers) ||
                                    begins_event_array(line, *input, head, readers));
    auto source = std::make_unique<HeadSource>(std::move(head), std::move(input));
    if (stream) {
      Translator translator(options, out, loss, stats, diagnostics);
      StreamEventReader reader(std::move(source), name);
      translator.run(reader);
      continue;
    }
    // Messages: read as every subcommand reads them (formats detected, --from).
    ReadOptions read;
    read.from = options.from;
    MessageStreams streams(options, out, loss, stats);
    std::shared_ptr<ByteSource> held(std::move(source));
    read_inputs({path}, read, streams, diagnostics, [&](const std::string&) {
      struct Lent final : ByteSource {
        explicit Lent(std::shared_ptr<ByteSource> s) : source(std::move(s)) {}
        std::size_t read(char* buffer, std::size_t size) override { return source->read(buffer, size); }
        std::shared_ptr<ByteSource> source;
      };
      return std::make_unique<Lent>(held);
    });
  }
  out.flush();
  if (stats.skipped > 0) {
    diagnostics.warning(Location{}, fmt::format("{} message{} that {} not an assistant response skipped",
                                                stats.skipped, stats.skipped == 1 ? "" : "s",
                                                stats.skipped == 1 ? "is" : "are"));
  }
  if (!loss.empty()) {
    diagnostics.warning(Location{}, fmt::format("dropped what the stream cannot hold: {} "
                                                "(--strict makes this an error)",
                                                loss.summary()));
  }
  return stats;
}

}  // namespace convo
