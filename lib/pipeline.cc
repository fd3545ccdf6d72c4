#include "pipeline.h"

#include <fmt/format.h>

#include <algorithm>

#include "io/input.h"
#include "io/output.h"
#include "io/record_reader.h"

namespace convo {

namespace {

// Records read before deciding an input's format: enough to see past a few
// bookkeeping lines, few enough to keep memory flat.
constexpr std::size_t k_detect_records = 16;

// Turns an offset within a record's bytes into a location: records that span lines
// (pretty-printed documents) move the line on.
Location locate_offset(const Record& record, std::size_t offset) {
  Location where = record.where;
  offset = std::min(offset, record.raw.size());
  std::string_view before(record.raw.data(), offset);
  std::size_t newlines = static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
  std::size_t line_start = before.rfind('\n');
  line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
  where.line += newlines;
  where.column = offset - line_start + 1;
  return where;
}

// Decodes records of no known format: each one is kept whole, as a record of
// unknown kind, and written through unchanged.
class OpaqueDecoder final : public Decoder {
 public:
  void decode(Record&& record, std::vector<Message>& out) override {
    if (!record.source->doc.IsObject()) {
      throw DecodeError("", fmt::format("expected a JSON object, got {}",
                                        json_type_name(record.source->doc)));
    }
    Message message = begin_message(Format::none, record, &record.source->doc);
    message.kind = Kind::unknown;
    message.role = Role::none;
    message.raw = std::move(record.raw);
    out.push_back(std::move(message));
  }
};

class InputReader {
 public:
  InputReader(const ReadOptions& options, InputHandler& handler, Diagnostics& diagnostics,
              ReadStats& stats, const Opener& open)
      : m_options(options),
        m_handler(handler),
        m_diagnostics(diagnostics),
        m_stats(stats),
        m_open(open) {}

  void read(const std::string& path) {
    RecordReader reader(m_open(path), display_name(path));
    Format format = m_options.from.value_or(Format::none);
    std::vector<Record> pending;
    if (!m_options.from) {
      format = detect(reader, pending);
    }
    m_handler.begin_input(*reader.file(), format);
    std::unique_ptr<Decoder> decoder = format == Format::none
                                           ? std::make_unique<OpaqueDecoder>()
                                           : format_info(format).make_decoder();
    for (Record& record : pending) {
      handle(std::move(record), decoder.get(), format);
    }
    pending.clear();
    Record record;
    while (reader.next(record)) {
      handle(std::move(record), decoder.get(), format);
    }
    m_handler.end_input();
  }

 private:
  Format detect(RecordReader& reader, std::vector<Record>& pending) {
    std::vector<const JsonValue*> samples;
    Record record;
    while (samples.size() < k_detect_records && reader.next(record)) {
      if (record.ok()) {
        samples.push_back(&record.source->doc);
      }
      pending.push_back(std::move(record));
    }
    if (samples.empty()) {
      return Format::none;
    }
    if (auto format = detect_format(samples)) {
      return *format;
    }
    throw Error(Location{reader.file()},
                fmt::format("cannot tell the transcript format; name it with --from ({})",
                            format_names()));
  }

  void handle(Record&& record, Decoder* decoder, Format format) {
    if (!record.ok()) {
      bad(std::move(record), format, record.where, record.error);
      return;
    }
    m_decoded.clear();
    try {
      decoder->decode(std::move(record), m_decoded);
    } catch (const DecodeError& error) {
      std::optional<std::size_t> offset = locate_json_pointer(record.raw, error.path());
      Location where = offset ? locate_offset(record, *offset) : record.where;
      std::string what = error.path().empty()
                             ? error.message()
                             : fmt::format("{}: {}", readable_path(error.path()), error.message());
      bad(std::move(record), format, where, what);
      return;
    }
    ++m_stats.records;
    for (Message& message : m_decoded) {
      m_handler.message(std::move(message));
    }
  }

  void bad(Record&& record, Format format, const Location& where, const std::string& what) {
    switch (m_options.on_error) {
      case OnError::fail:
        throw Error(where, what);
      case OnError::skip:
        ++m_stats.bad;
        m_diagnostics.warning(where, fmt::format("skipped bad record: {}", what));
        return;
      case OnError::keep: {
        ++m_stats.bad;
        m_diagnostics.warning(where, fmt::format("kept bad record as is: {}", what));
        Message message;
        message.kind = Kind::invalid;
        message.role = Role::none;
        message.origin = format;
        message.where = record.where;
        message.content.text = what;  // why it is bad, for `convo check` to report
        message.raw = std::move(record.raw);
        m_handler.message(std::move(message));
        return;
      }
    }
  }

  const ReadOptions& m_options;
  InputHandler& m_handler;
  Diagnostics& m_diagnostics;
  ReadStats& m_stats;
  const Opener& m_open;
  std::vector<Message> m_decoded;
};

class StageHandler final : public InputHandler {
 public:
  StageHandler(const StageFactory& make_stage, const SinkFactory& make_sink, Output& out,
               LossReport& loss)
      : m_make_stage(make_stage), m_make_sink(make_sink), m_out(out), m_loss(loss) {}
  void begin_input(const std::string&, Format) override {
    m_stage = m_make_stage();
    m_sink = m_make_sink(m_out, m_loss);
  }
  void message(Message&& message) override { m_stage->push(std::move(message), *m_sink); }
  void end_input() override {
    m_stage->finish(*m_sink);
    m_stage.reset();
    m_sink->end_input();
    m_sink.reset();
  }

 private:
  const StageFactory& m_make_stage;
  const SinkFactory& m_make_sink;
  Output& m_out;
  LossReport& m_loss;
  std::unique_ptr<StreamStage> m_stage;
  std::unique_ptr<MessageSink> m_sink;
};

}  // namespace

ReadStats read_inputs(const std::vector<std::string>& paths, const ReadOptions& options,
                      InputHandler& handler, Diagnostics& diagnostics, const Opener& open) {
  ReadStats stats;
  InputReader reader(options, handler, diagnostics, stats, open);
  static const std::vector<std::string> k_stdin = {"-"};
  for (const std::string& path : paths.empty() ? k_stdin : paths) {
    ++stats.inputs;
    reader.read(path);
  }
  if (stats.bad > 0 && options.on_error != OnError::fail) {
    diagnostics.warning(Location{}, fmt::format("{} {} bad record{}", 
                                                options.on_error == OnError::skip ? "skipped" : "kept",
                                                stats.bad, stats.bad == 1 ? "" : "s"));
  }
  return stats;
}

FormatWriter::FormatWriter(Output& out, std::optional<Format> to, LossReport& loss)
    : m_out(out), m_to(to), m_loss(loss) {}

FormatWriter::~FormatWriter() = default;

Encoder& FormatWriter::encoder_for(Format format) {
  for (auto& [f, encoder] : m_encoders) {
    if (f == format) {
      return *encoder;
    }
  }
  m_encoders.emplace_back(format, format_info(format).make_encoder(m_loss));
  return *m_encoders.back().second;
}

void FormatWriter::put(Message&& message) {
  Format target = m_to.value_or(message.origin);
  if (target == Format::none) {
    // A bad line kept from an input whose format could not be told.
    end_input();
    m_out.write_line(message.raw);
    return;
  }
  encoder_for(target).write(std::move(message), m_out);
}

void FormatWriter::end_input() {
  for (auto& [format, encoder] : m_encoders) {
    encoder->finish(m_out);
  }
}

SinkFactory format_sink(std::optional<Format> to) {
  return [to](Output& out, LossReport& loss) -> std::unique_ptr<MessageSink> {
    return std::make_unique<FormatWriter>(out, to, loss);
  };
}

ReadStats run_stage(const std::vector<std::string>& paths, const ReadOptions& options,
                    const StageFactory& make_stage, const SinkFactory& make_sink, Output& out,
                    LossReport& loss, Diagnostics& diagnostics, const Opener& open) {
  StageHandler handler(make_stage, make_sink, out, loss);
  return read_inputs(paths, options, handler, diagnostics, open);
}

ReadStats run_stream(const StreamOptions& options, const StageFactory& make_stage, Output& out,
                     Diagnostics& diagnostics, const Opener& open) {
  return run_stream(options, make_stage, format_sink(options.to), out, diagnostics, open);
}

ReadStats run_stream(const StreamOptions& options, const StageFactory& make_stage,
                     const SinkFactory& make_sink, Output& out, Diagnostics& diagnostics,
                     const Opener& open) {
  LossReport loss(options.strict);
  ReadStats stats =
      run_stage(options.inputs, options.read, make_stage, make_sink, out, loss, diagnostics, open);
  out.flush();
  if (!loss.empty()) {
    diagnostics.warning(Location{}, fmt::format("dropped what the output format cannot hold: "
                                                "{} (--strict makes this an error)",
                                                loss.summary()));
  }
  return stats;
}

}  // namespace convo
