#include "pipeline.h"

#include <fmt/format.h>

#include <sys/resource.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "input_reader.h"
#include "io/input.h"
#include "io/output.h"

namespace convo {

namespace {

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
  // Forwarded whole when the sink takes a conversation as one (a request body);
  // otherwise put message by message, so that what follows a message that cannot be
  // written is not lost with it.
  void put_conversation(std::vector<Message>&& conversation) override {
    if (!m_inner.takes_conversations_whole()) {
      for (Message& message : conversation) {
        put(std::move(message));
      }
      return;
    }
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
    // A message a stage built from several records (normalize-for-api's view of a
    // split Claude Code response) has no bytes as read: kept, it would be a blank
    // line, so it is left out, and the warning says why.
    OnError policy = m_policy;
    std::string what = error.what();
    if (policy == OnError::keep && error.raw().empty()) {
      policy = OnError::skip;
      what += " (built from several records, it has no bytes as read to keep)";
      ++m_stats.unkept;
    }
    if (bad_record(policy, error.where(), what, m_diagnostics, m_stats, m_warned)) {
      m_out.write_line(error.raw());
    }
    // What the writer was given when the reply it held failed goes on after it.
    if (const std::shared_ptr<Message>& next = error.next()) {
      put(std::move(*next));
    } else if (error.finish_pending()) {
      end_input();
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
    MessageSink& target() override { return m_inner.target(); }

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
  total.unkept += part.unkept;
  total.lone_surrogates += part.lone_surrogates;
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
        ++job.stats.inputs;
        try {
          read_input(m_inputs[index], m_options, handler, diagnostics, job.stats, m_open, &m_cancel);
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

FormatWriter::FormatWriter(Output& out, std::optional<Format> to, LossReport& loss,
                           const EncodeOptions& options)
    : m_out(out), m_to(to), m_loss(loss), m_options(options) {}

FormatWriter::~FormatWriter() = default;

Encoder& FormatWriter::encoder_for(Format format) {
  for (auto& [f, encoder] : m_encoders) {
    if (f == format) {
      return *encoder;
    }
  }
  m_encoders.emplace_back(format, format_info(format).make_encoder(m_loss));
  m_encoders.back().second->configure(m_options);
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

SinkFactory format_sink(std::optional<Format> to, const EncodeOptions& options) {
  return [to, options](Output& out, LossReport& loss) -> std::unique_ptr<MessageSink> {
    return std::make_unique<FormatWriter>(out, to, loss, options);
  };
}

EncodeOptions encode_options(const ReadOptions& read, EncodeOptions options) {
  options.keeps_bad_records = read.on_error == OnError::keep;
  return options;
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
        ++stats.inputs;
        read_input(path, options, handler, diagnostics, stats, open);
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
  return run_stream(options, make_stage, format_sink(options.to, encode_options(options.read)), out,
                    diagnostics, open);
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
