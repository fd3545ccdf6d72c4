#include "pipeline.h"

#include <fmt/format.h>

#include <sys/resource.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <limits>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "io/compression.h"
#include "io/input.h"
#include "io/input_list.h"
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

// Thrown inside a parallel job that is no longer wanted (an earlier input failed).
struct Cancelled {};

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

// Applies --on-error to a bad record at `where`: throws under fail, else warns and
// counts, and returns true when the record is to be written through (keep).
// `warned` counts the warnings given for the input so far.
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
    RecordReader reader(decompressing(std::move(input), name), name, m_options.max_record_size);
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
      std::optional<std::size_t> offset = locate_json_pointer(record.raw, error.path());
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
          whole.raw = message.container ? message.container->raw : message.raw;
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

// The sink a stage writes to: applies --on-error to a message that cannot be
// written (EncodeError), as to a bad input record.
class GuardedSink final : public MessageSink {
 public:
  GuardedSink(MessageSink& inner, Output& out, OnError policy, Diagnostics& diagnostics,
              ReadStats& stats)
      : m_inner(inner), m_out(out), m_policy(policy), m_diagnostics(diagnostics), m_stats(stats) {}

  void put(Message&& message) override {
    try {
      m_inner.put(std::move(message));
    } catch (const EncodeError& error) {
      handle(error);
    }
  }
  // Forwarded whole: the sink may treat a conversation as one (a request body).
  void put_conversation(std::vector<Message>&& conversation) override {
    try {
      m_inner.put_conversation(std::move(conversation));
    } catch (const EncodeError& error) {
      handle(error);
    }
  }
  void end_input() override {
    try {
      m_inner.end_input();
    } catch (const EncodeError& error) {
      handle(error);
    }
  }
  MessageSink& target() override { return m_inner.target(); }

 private:
  void handle(const EncodeError& error) {
    if (m_policy == OnError::fail) {
      throw;
    }
    if (bad_record(m_policy, error.where(), error.what(), m_diagnostics, m_stats, m_warned)) {
      m_out.write_line(error.raw());
    }
  }

  MessageSink& m_inner;
  Output& m_out;
  OnError m_policy;
  Diagnostics& m_diagnostics;
  ReadStats& m_stats;
  std::uint64_t m_warned = 0;  // bad records warned about in this input
};

// What one input held and what its stage wrote, for `ReadOptions::explain_empty`:
// an input that gives nothing is told why.
struct InputTally {
  std::uint64_t records = 0;
  std::uint64_t turns = 0;
  std::vector<std::string> other_types;  // the types of records that are not messages
  std::uint64_t written = 0;             // messages the stage passed on

  // A sink that counts what passes through it on the way to `inner`.
  class Counter final : public MessageSink {
   public:
    Counter(MessageSink& inner, std::uint64_t& written) : m_inner(inner), m_written(written) {}
    void put(Message&& message) override {
      ++m_written;
      m_inner.put(std::move(message));
    }
    void put_conversation(std::vector<Message>&& conversation) override {
      m_written += conversation.size();
      m_inner.put_conversation(std::move(conversation));
    }
    void end_input() override { m_inner.end_input(); }

   private:
    MessageSink& m_inner;
    std::uint64_t& m_written;
  };

  void note(const Message& message) {
    ++records;
    if (message.kind == Kind::turn) {
      ++turns;
      return;
    }
    std::string type =
        message.record_type.empty() ? std::string(kind_name(message.kind)) : message.record_type;
    if (std::find(other_types.begin(), other_types.end(), type) == other_types.end()) {
      other_types.push_back(std::move(type));
    }
  }
  void reset() {
    records = turns = written = 0;
    other_types.clear();
    m_counter.reset();
  }
  MessageSink& counting(MessageSink& inner) {
    m_counter.emplace(inner, written);
    return *m_counter;
  }
  std::string why_empty() const {
    if (records == 0) {
      return "the input holds no records";
    }
    if (turns == 0) {
      std::vector<std::string> types = other_types;
      std::sort(types.begin(), types.end());
      std::string list;
      for (const std::string& type : types) {
        list += list.empty() ? "" : ", ";
        list += type;
      }
      return fmt::format("every record is bookkeeping ({})", list);
    }
    return fmt::format("none of its {} message{} makes a conversation", turns,
                       turns == 1 ? "" : "s");
  }

 private:
  std::optional<Counter> m_counter;
};

// Runs one input through a fresh stage and sink, marking the output complete after
// every `push` and `finish`: what a stage passes on in one call is one unit of
// all-or-nothing (a record, or a whole conversation).
class StageHandler final : public InputHandler {
 public:
  StageHandler(const StageFactory& make_stage, const SinkFactory& make_sink, Output& out,
               LossReport& loss, const ReadOptions& options, Diagnostics& diagnostics,
               ReadStats& stats)
      : m_make_stage(make_stage),
        m_make_sink(make_sink),
        m_out(out),
        m_loss(loss),
        m_policy(options.on_error),
        m_explain_empty(options.explain_empty),
        m_diagnostics(diagnostics),
        m_stats(stats) {}
  void begin_input(const std::string& name, Format) override {
    m_stage = m_make_stage();
    m_sink = m_make_sink(m_out, m_loss);
    m_name = name;
    m_seen.reset();
    m_guard = std::make_unique<GuardedSink>(*m_sink, m_out, m_policy, m_diagnostics, m_stats);
  }
  void message(Message&& message) override {
    if (m_explain_empty) {
      m_seen.note(message);
    }
    m_stage->push(std::move(message), m_explain_empty ? m_seen.counting(*m_guard) : *m_guard);
    m_out.mark_complete();
  }
  void end_input() override {
    m_stage->finish(m_explain_empty ? m_seen.counting(*m_guard) : *m_guard);
    m_stage.reset();
    m_guard->end_input();
    m_guard.reset();
    m_sink.reset();
    if (m_explain_empty && m_seen.written == 0) {
      m_diagnostics.warning(Location{std::make_shared<const std::string>(m_name)},
                            "no conversation to write: " + m_seen.why_empty());
    }
    m_out.mark_complete();
  }

 private:
  const StageFactory& m_make_stage;
  const SinkFactory& m_make_sink;
  Output& m_out;
  LossReport& m_loss;
  OnError m_policy;
  bool m_explain_empty;
  Diagnostics& m_diagnostics;
  ReadStats& m_stats;
  std::string m_name;
  InputTally m_seen;
  std::unique_ptr<StreamStage> m_stage;
  std::unique_ptr<MessageSink> m_sink;
  std::unique_ptr<GuardedSink> m_guard;
};

void add_stats(ReadStats& total, const ReadStats& part) {
  total.inputs += part.inputs;
  total.records += part.records;
  total.bad += part.bad;
  total.lone_surrogates += part.lone_surrogates;
}

// The closing count of bad records that --on-error skip|keep let through.
void report_bad(const ReadStats& stats, const ReadOptions& options, Diagnostics& diagnostics) {
  if (stats.lone_surrogates > 0) {
    diagnostics.warning(
        Location{}, fmt::format("read {} lone UTF-16 surrogate escape{} (such as \\ud800) as "
                                "U+FFFD; records written unchanged keep {}",
                                stats.lone_surrogates, stats.lone_surrogates == 1 ? "" : "s",
                                stats.lone_surrogates == 1 ? "it" : "them"));
  }
  if (stats.bad > 0 && options.on_error != OnError::fail) {
    diagnostics.warning(Location{}, fmt::format("{} {} bad record{}",
                                                options.on_error == OnError::skip ? "skipped" : "kept",
                                                stats.bad, stats.bad == 1 ? "" : "s"));
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

// On the way out of a failed run: write what was complete, drop what was not, and
// let the original error go on (a second error while flushing is not news).
void flush_complete(Output& out) {
  out.discard_incomplete();
  try {
    out.flush();
  } catch (...) {
  }
}

// --- Parallel runs (-j) ---
//
// Ours rather than TBB's parallel_pipeline (libtbb-dev): an ordered filter would
// still leave us the 64 MB bound on waiting output and the replay of warnings and
// of the first error in input order, which are most of this code, and the pool
// itself costs no measurable work: converting 220 MB (16 times the Claude Code
// corpus) took 0.49-0.54 s of CPU with -j2 against 0.49-0.55 s with -j1.

// Descriptors kept back from parallel inputs: standard streams, -o's file, the
// allocator's and libraries' own.
constexpr rlim_t k_reserved_descriptors = 32;

// How many inputs may be open at once: each job holds one descriptor, and `-j
// 100000` over a large directory must not fail with "Too many open files". The
// soft limit is raised to the hard one first, as far as that goes.
std::size_t open_inputs_allowed() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) {
    return 1;
  }
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) {
      limit = raised;
    }
  }
  if (limit.rlim_cur == RLIM_INFINITY) {
    return std::numeric_limits<std::size_t>::max();
  }
  if (limit.rlim_cur <= 2 * k_reserved_descriptors) {
    return 1;
  }
  return static_cast<std::size_t>(limit.rlim_cur - k_reserved_descriptors);
}

// Output waiting behind an earlier, unfinished input, in all: past this, the jobs
// that are not the earliest wait for the writer.
constexpr std::size_t k_parallel_buffer = std::size_t{64} << 20;

class ParallelRun {
 public:
  ParallelRun(const std::vector<std::string>& inputs, const ReadOptions& options,
              const StageFactory& make_stage, const SinkFactory& make_sink, bool strict,
              const Opener& open)
      : m_inputs(inputs),
        m_options(options),
        m_make_stage(make_stage),
        m_make_sink(make_sink),
        m_strict(strict),
        m_open(open),
        m_jobs(inputs.size()) {}

  ~ParallelRun() { stop(); }
  ParallelRun(const ParallelRun&) = delete;
  ParallelRun& operator=(const ParallelRun&) = delete;

  // Runs the jobs and hands their results on, in input order, from this thread.
  ReadStats run(Output& out, LossReport& loss, Diagnostics& diagnostics) {
    std::size_t workers = std::min<std::size_t>(
        {m_options.jobs, m_inputs.size(), open_inputs_allowed()});
    for (std::size_t i = 0; i < workers; ++i) {
      m_threads.emplace_back([this] { work(); });
    }
    ReadStats stats;
    for (std::size_t index = 0; index < m_jobs.size(); ++index) {
      Job& job = m_jobs[index];
      for (;;) {
        std::deque<Event> events;
        bool done = false;
        {
          std::unique_lock lock(m_mutex);
          m_changed.wait(lock, [&] { return !job.events.empty() || job.done; });
          events.swap(job.events);
          done = job.done;
          for (const Event& event : events) {
            m_buffered -= event.text.size();
          }
        }
        m_changed.notify_all();
        for (Event& event : events) {
          if (event.warning) {
            diagnostics.warning(event.where, event.text);
          } else {
            out.write(event.text);
          }
        }
        if (done) {
          break;
        }
      }
      if (job.error) {
        std::rethrow_exception(job.error);
      }
      add_stats(stats, job.stats);
      loss.merge(*job.loss);
      job.loss.reset();
      {
        std::lock_guard lock(m_mutex);
        m_head = index + 1;
      }
      m_changed.notify_all();
    }
    return stats;
  }

 private:
  struct Event {
    bool warning = false;
    std::string text;  // output bytes, or the warning
    Location where;
  };
  struct Job {
    std::deque<Event> events;  // waiting for the writer
    bool done = false;
    std::exception_ptr error;
    ReadStats stats;
    std::unique_ptr<LossReport> loss;
  };

  // A job's output: complete bytes become events for the writer.
  class JobOutput final : public Output {
   public:
    JobOutput(ParallelRun& run, std::size_t index) : m_run(run), m_index(index) {
      set_holding(true);
    }

   protected:
    void emit(std::string_view bytes) override {
      m_run.post(m_index, Event{false, std::string(bytes), {}});
    }

   private:
    ParallelRun& m_run;
    std::size_t m_index;
  };

  // A job's warnings, kept for the writer to replay in order.
  class JobDiagnostics final : public Diagnostics {
   public:
    JobDiagnostics(ParallelRun& run, std::size_t index) : m_run(run), m_index(index) {}
    void warning(const Location& where, std::string_view what) override {
      m_run.post(m_index, Event{true, std::string(what), where});
    }

   private:
    ParallelRun& m_run;
    std::size_t m_index;
  };

  // Queues `event` for the writer. A job that is not the earliest unfinished one
  // waits while too much output is waiting already.
  void post(std::size_t index, Event&& event) {
    std::unique_lock lock(m_mutex);
    m_changed.wait(lock, [&] {
      return m_cancel || index == m_head || m_buffered + event.text.size() <= k_parallel_buffer;
    });
    if (m_cancel) {
      throw Cancelled{};
    }
    m_buffered += event.text.size();
    m_jobs[index].events.push_back(std::move(event));
    lock.unlock();
    m_changed.notify_all();
  }

  void work() {
    for (;;) {
      std::size_t index = m_next.fetch_add(1);
      if (index >= m_jobs.size() || m_cancel) {
        return;
      }
      Job& job = m_jobs[index];
      job.loss = std::make_unique<LossReport>(m_strict);
      std::exception_ptr error;
      try {
        JobOutput out(*this, index);
        JobDiagnostics diagnostics(*this, index);
        StageHandler handler(m_make_stage, m_make_sink, out, *job.loss, m_options, diagnostics,
                             job.stats);
        InputReader reader(m_options, handler, diagnostics, job.stats, m_open, &m_cancel);
        ++job.stats.inputs;
        try {
          reader.read(m_inputs[index]);
          out.flush();
        } catch (const Cancelled&) {
          throw;
        } catch (...) {
          error = std::current_exception();
          out.discard_incomplete();
          out.flush();
        }
      } catch (const Cancelled&) {
        return;
      } catch (...) {
        error = std::current_exception();
      }
      {
        std::lock_guard lock(m_mutex);
        job.error = error;
        job.done = true;
      }
      m_changed.notify_all();
    }
  }

  void stop() {
    {
      std::lock_guard lock(m_mutex);
      m_cancel = true;
    }
    m_changed.notify_all();
    for (std::thread& thread : m_threads) {
      thread.join();
    }
    m_threads.clear();
  }

  const std::vector<std::string>& m_inputs;
  const ReadOptions& m_options;
  const StageFactory& m_make_stage;
  const SinkFactory& m_make_sink;
  bool m_strict;
  const Opener& m_open;

  std::vector<Job> m_jobs;
  std::vector<std::thread> m_threads;
  std::atomic<std::size_t> m_next{0};
  std::atomic<bool> m_cancel{false};
  std::mutex m_mutex;                  // guards the jobs' events, done, error, and below
  std::condition_variable m_changed;   // any of those changed
  std::size_t m_buffered = 0;          // bytes in all jobs' events
  std::size_t m_head = 0;              // the earliest unfinished input: it never waits
};

}  // namespace

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
  std::vector<std::string> inputs = input_list(paths, options, diagnostics);
  const bool was_holding = out.holding();
  ReadStats stats;
  try {
    if (options.jobs > 1 && inputs.size() > 1) {
      ParallelRun run(inputs, options, make_stage, make_sink, loss.strict(), open);
      stats = run.run(out, loss, diagnostics);
    } else {
      out.set_holding(true);
      for (const std::string& path : inputs) {
        // Each input reports its losses apart, as in a parallel run.
        LossReport input_loss(loss.strict());
        StageHandler handler(make_stage, make_sink, out, input_loss, options, diagnostics, stats);
        InputReader reader(options, handler, diagnostics, stats, open);
        ++stats.inputs;
        reader.read(path);
        loss.merge(input_loss);
      }
      out.set_holding(was_holding);
    }
  } catch (...) {
    flush_complete(out);
    out.set_holding(was_holding);
    throw;
  }
  report_bad(stats, options, diagnostics);
  return stats;
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
