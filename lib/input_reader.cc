#include "input_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "io/compression.h"
#include "io/input.h"
#include "io/input_list.h"
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

// Counts the bytes read from an input for the progress display.
class CountingSource final : public ByteSource {
 public:
  CountingSource(std::unique_ptr<ByteSource> input, std::atomic<std::uint64_t>& bytes)
      : m_input(std::move(input)), m_bytes(bytes) {}
  std::size_t read(char* buffer, std::size_t size) override {
    std::size_t n = m_input->read(buffer, size);
    m_bytes.fetch_add(n, std::memory_order_relaxed);
    return n;
  }
  int file_descriptor() const override { return m_input->file_descriptor(); }
  void mapped(std::size_t n) override {
    m_input->mapped(n);
    m_bytes.fetch_add(n, std::memory_order_relaxed);
  }

 private:
  std::unique_ptr<ByteSource> m_input;
  std::atomic<std::uint64_t>& m_bytes;
};
}  // namespace

void count_inputs(const std::vector<std::string>& inputs, Progress& progress) {
  std::uint64_t total = 0;
  for (const std::string& path : inputs) {
    std::error_code error;
    if (path == "-" || !std::filesystem::is_regular_file(path, error)) {
      total = 0;
      break;
    }
    total += std::filesystem::file_size(path, error);
  }
  progress.inputs_total.fetch_add(inputs.size(), std::memory_order_relaxed);
  progress.bytes_total.fetch_add(total, std::memory_order_relaxed);
}

std::unique_ptr<ByteSource> counted(std::unique_ptr<ByteSource> input, Progress* progress) {
  if (progress == nullptr) {
    return input;
  }
  return std::make_unique<CountingSource>(std::move(input), progress->bytes);
}

namespace {

// Bad records of one input warned about one by one; past this, one more warning
// says the rest are only counted (the closing count has them all). A broken input
// may hold millions, and their warnings would bury everything else.
constexpr std::uint64_t k_warnings_per_input = 100;

}  // namespace

bool bad_record(OnError policy, const Location& where, const std::string& what,
                Diagnostics& diagnostics, ReadStats& stats, std::uint64_t& warned) {
  if (policy == OnError::fail) {
    throw Error(where, what);
  }
  ++stats.bad;
  ++warned;
  const bool skip = policy == OnError::skip;
  if (warned <= k_warnings_per_input) {
    diagnostics.warning(where, fmt::format("{} bad record{}: {}", skip ? "skipped" : "kept",
                                           skip ? "" : " as is", what));
  } else if (warned == k_warnings_per_input + 1) {
    diagnostics.warning(Location{where.file},
                        fmt::format("more bad records in this input are {} without a warning "
                                    "each (the count at the end has them all)",
                                    skip ? "skipped" : "kept"));
  }
  return !skip;
}

namespace {

// Reads one input at a time: detects its format, decodes its records and applies the
// --on-error policy.
class InputReader {
 public:
  InputReader(const ReadOptions& options, InputHandler& handler, Diagnostics& diagnostics,
              ReadStats& stats, const Opener& open, const std::atomic<bool>* cancel = nullptr)
      : m_options(options),
        m_handler(handler),
        m_diagnostics(diagnostics),
        m_stats(stats),
        m_open(open),
        m_cancel(cancel) {}

  void read(const std::string& path) {
    m_warned = 0;
    std::string name = display_name(path);
    std::unique_ptr<ByteSource> input = m_open(path);
    input = counted(std::move(input), m_options.progress);
    RecordReader reader(decompressing(std::move(input), name), name, m_options.max_record_size,
                        m_options.map_files);
    try {
      read_records(reader);
    } catch (const std::bad_alloc&) {
      // Say where: the record being read, or the end of the input when a whole
      // conversation was being worked on. What was freed on the way here pays for
      // the message.
      m_decoded = {};
      throw Error(Location{reader.file(), reader.line()},
                  "out of memory (a conversation or record too large for the memory "
                  "convo may use)",
                  ExitCode::internal);
    }
    publish_progress();
    if (m_options.progress != nullptr) {
      m_options.progress->inputs_done.fetch_add(1, std::memory_order_relaxed);
    }
  }

 private:
  void read_records(RecordReader& reader) {
    Format format = m_options.from.value_or(Format::none);
    std::vector<Record> pending;
    m_refusal.clear();
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
    if (!m_refusal.empty() && m_refused > 1) {
      m_diagnostics.warning(Location{reader.file()},
                            fmt::format("{} {} more record{} of this file", 
                                        m_options.on_error == OnError::skip ? "skipped" : "kept",
                                        m_refused - 1, m_refused == 2 ? "" : "s"));
    }
    m_handler.end_input();
  }

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
    Detection detection = detect_input_format(samples);
    if (detection.format) {
      return *detection.format;
    }
    if (detection.record >= samples.size()) {
      throw Error(Location{reader.file()}, detection.why);
    }
    // Refused: under --on-error fail that is the end of it; skip and keep warn once,
    // at the record that shows why, and count every record of the file.
    const JsonValue* shown = samples[detection.record];
    auto shown_at = std::find_if(pending.begin(), pending.end(), [&](const Record& r) {
      return r.ok() && &r.source->doc == shown;
    });
    Location where = shown_at != pending.end() ? shown_at->where : Location{reader.file()};
    where.column = std::max<std::uint64_t>(where.column, 1);
    if (m_options.on_error == OnError::fail) {
      throw Error(where, detection.why);
    }
    m_refusal = detection.why;
    m_refused = 0;
    return Format::none;
  }

  void handle(Record&& record, Decoder* decoder, Format format) {
    if ((++m_unpublished & 1023) == 0) {
      publish_progress();
      if (m_cancel != nullptr && m_cancel->load(std::memory_order_relaxed)) {
        throw Cancelled{};
      }
    }
    if (!record.ok()) {
      bad(std::move(record), format, record.where, record.error);
      return;
    }
    m_stats.lone_surrogates += record.lone_surrogates;
    if (!m_refusal.empty()) {
      // A file no format claims: the first record says why, the rest are counted.
      if (m_refused++ == 0) {
        Location where = record.where;
        where.column = std::max<std::uint64_t>(where.column, 1);
        bad(std::move(record), format, where, m_refusal);
      } else {
        ++m_stats.bad;
        if (m_options.on_error == OnError::keep) {
          pass_bad(std::move(record), format, m_refusal);
        }
      }
      return;
    }
    m_decoded.clear();
    try {
      decoder->decode(std::move(record), m_decoded);
    } catch (const DecodeError& error) {
      std::optional<std::size_t> offset = locate_json_pointer(record.raw.str(), error.path());
      Location where = offset ? locate_offset(record, *offset) : record.where;
      std::string what = error.path().empty()
                             ? error.message()
                             : fmt::format("{}: {}", readable_path(error.path()), error.message());
      bad(std::move(record), format, where, what);
      return;
    }
    for (const Message& message : m_decoded) {
      // A record the format has no kind for: refused when it is no record of the
      // format (decoded messages point into the record, which is still whole).
      if (message.kind == Kind::unknown && message.json != nullptr) {
        if (auto why = refuse_unknown_record(format, *message.json, m_options.from.has_value())) {
          Record whole;
          whole.where = message.where;
          whole.where.column = std::max<std::uint64_t>(whole.where.column, 1);
          whole.raw = message.container ? std::string_view(message.container->raw)
                                        : message.raw.view();
          m_decoded.clear();
          bad(std::move(whole), format, whole.where, *why);
          return;
        }
      }
    }
    ++m_stats.records;
    for (Message& message : m_decoded) {
      m_handler.message(std::move(message));
    }
  }

  void publish_progress() {
    if (m_options.progress != nullptr) {
      m_options.progress->records.fetch_add(m_unpublished, std::memory_order_relaxed);
    }
    m_unpublished = 0;
  }

  void bad(Record&& record, Format format, const Location& where, const std::string& what) {
    if (bad_record(m_options.on_error, where, what, m_diagnostics, m_stats, m_warned)) {
      pass_bad(std::move(record), format, what);
    }
  }

  // Hands a bad record on to be written through (--on-error keep).
  void pass_bad(Record&& record, Format format, const std::string& what) {
    {
      Message message;
      message.kind = Kind::invalid;
      message.role = Role::none;
      message.origin = format;
      message.where = record.where;
      message.content.text = what;  // why it is bad, for `convo check` to report
      message.raw = std::move(record.raw);
      m_handler.message(std::move(message));
    }
  }

  const ReadOptions& m_options;
  InputHandler& m_handler;
  Diagnostics& m_diagnostics;
  ReadStats& m_stats;
  const Opener& m_open;
  const std::atomic<bool>* m_cancel;
  std::vector<Message> m_decoded;
  std::string m_refusal;      // why no format claims this input, when none does
  std::uint64_t m_refused = 0;  // its records seen so far
  std::uint64_t m_unpublished = 0;  // records not yet added to the progress counters
  std::uint64_t m_warned = 0;       // bad records warned about in this input
};

}  // namespace

void read_input(const std::string& path, const ReadOptions& options, InputHandler& handler,
                Diagnostics& diagnostics, ReadStats& stats, const Opener& open,
                const std::atomic<bool>* cancel) {
  InputReader(options, handler, diagnostics, stats, open, cancel).read(path);
}

void report_bad(const ReadStats& stats, const ReadOptions& options, Diagnostics& diagnostics) {
  if (stats.lone_surrogates > 0) {
    diagnostics.warning(
        Location{}, fmt::format("read {} lone UTF-16 surrogate escape{} (such as \\ud800) as "
                                "U+FFFD; records written unchanged keep {}",
                                stats.lone_surrogates, stats.lone_surrogates == 1 ? "" : "s",
                                stats.lone_surrogates == 1 ? "it" : "them"));
  }
  if (stats.bad > 0 && options.on_error != OnError::fail) {
    const bool skip = options.on_error == OnError::skip;
    const std::uint64_t counted = skip ? stats.bad : stats.bad - stats.unkept;
    if (counted > 0) {
      diagnostics.warning(Location{}, fmt::format("{} {} bad record{}", skip ? "skipped" : "kept",
                                                  counted, counted == 1 ? "" : "s"));
    }
    if (!skip && stats.unkept > 0) {
      diagnostics.warning(Location{},
                          fmt::format("skipped {} bad record{} with no bytes as read to keep",
                                      stats.unkept, stats.unkept == 1 ? "" : "s"));
    }
  }
}

std::vector<std::string> input_list(const std::vector<std::string>& paths,
                                    const ReadOptions& options, Diagnostics& diagnostics) {
  std::vector<std::string> inputs = paths.empty() ? std::vector<std::string>{"-"}
                                                  : expand_inputs(paths, &diagnostics);
  if (options.progress != nullptr) {
    count_inputs(inputs, *options.progress);
  }
  return inputs;
}

ReadStats read_inputs(const std::vector<std::string>& paths, const ReadOptions& options,
                      InputHandler& handler, Diagnostics& diagnostics, const Opener& open) {
  ReadStats stats;
  InputReader reader(options, handler, diagnostics, stats, open);
  for (const std::string& path : input_list(paths, options, diagnostics)) {
    ++stats.inputs;
    reader.read(path);
  }
  report_bad(stats, options, diagnostics);
  return stats;
}

}  // namespace convo
