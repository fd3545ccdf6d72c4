// Reading the inputs: each input's format detected from its first records (or
// `--from`), its records decoded into messages, and `--on-error` applied to the bad
// ones. Callers use `read_inputs` here, or `run_stage` (pipeline.h), which reads
// every input through here, one by one or in parallel.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "diagnostics.h"
#include "formats/format.h"
#include "io/input.h"
#include "io/record_reader.h"
#include "message.h"

namespace convo {

// What to do with a record that is not valid JSON or not valid for its format.
enum class OnError : std::uint8_t {
  fail,  // stop with an error naming file:line:column (the default)
  skip,  // warn, count, and go on without it
  keep,  // warn, and write the line through unchanged
};

// Counters of a run's progress, for a progress display that the caller (cmd/) owns
// and reads from another thread while the run goes on. lib/ only adds to them.
struct Progress {
  std::atomic<std::uint64_t> inputs_total{0};  // inputs to read, once directories are listed
  std::atomic<std::uint64_t> inputs_done{0};
  std::atomic<std::uint64_t> bytes{0};    // bytes read from the inputs, as stored (compressed)
  std::atomic<std::uint64_t> records{0};  // records read
  // The inputs' sizes as stored, when all are regular files; 0 when some size is
  // not known (standard input, a pipe), and then no percentage can be shown.
  std::atomic<std::uint64_t> bytes_total{0};
};

// Adds `inputs` (as `expand_inputs` lists them) to `progress`: their number, and
// their sizes when every one is a regular file.
void count_inputs(const std::vector<std::string>& inputs, Progress& progress);

// `input`, counting what is read from it into `progress->bytes`; `input` itself
// when `progress` is null.
std::unique_ptr<ByteSource> counted(std::unique_ptr<ByteSource> input, Progress* progress);

struct ReadOptions {
  std::optional<Format> from;  // nullopt: detect each input's format from its first records
  OnError on_error = OnError::fail;
  // Inputs processed at once by `run_stage` (`-j`); the output is the same as with 1.
  unsigned jobs = 1;
  Progress* progress = nullptr;  // counters to update, or none
  // Longer records stop the run (RecordReader); `--max-record-size`.
  std::uint64_t max_record_size = k_default_max_record_size;
  // Read regular files through a mapping, not read(2) (RecordReader); `--mmap`.
  bool map_files = false;
  // For a whole-conversation subcommand: an input from which the stage writes nothing
  // gets a warning saying why (only bookkeeping records, no records at all).
  // `run_stage` only.
  bool explain_empty = false;
};

// Receives what `read_inputs` reads.
class InputHandler {
 public:
  virtual ~InputHandler() = default;
  // An input begins. `format` is Format::none when it has no valid record to tell by.
  virtual void begin_input(const std::string& name, Format format) {
    (void)name;
    (void)format;
  }
  virtual void message(Message&& message) = 0;
  virtual void end_input() {}
};

struct ReadStats {
  std::uint64_t inputs = 0;
  std::uint64_t records = 0;  // valid records decoded
  std::uint64_t bad = 0;      // records skipped or kept by policy
  std::uint64_t unkept = 0;   // of them, under keep, skipped: no bytes as read to keep
  std::uint64_t lone_surrogates = 0;  // lone \ud800-style escapes read as U+FFFD
};

// Opens an input by name; `open_input` by default, memory in tests.
using Opener = std::function<std::unique_ptr<ByteSource>(const std::string& path)>;

// Reads `paths` in order ("-" is standard input; an empty list means standard
// input; a directory means the transcript files below it, see `expand_inputs`) and
// hands every message to `handler`. gzip and zstd inputs are decompressed. Bad
// records follow `options.on_error`; warnings go to `diagnostics`. Reads one input
// at a time (`options.jobs` is for `run_stage`). Throws convo::Error.
ReadStats read_inputs(const std::vector<std::string>& paths, const ReadOptions& options,
                      InputHandler& handler, Diagnostics& diagnostics,
                      const Opener& open = open_input);

// --- Internal to lib/: the pipeline's parts of reading ---

// Thrown inside a parallel job that is no longer wanted (an earlier input failed).
struct Cancelled {};

// Reads the input `path` (decompressed, counted into `options.progress`) and hands
// its messages to `handler`, adding to `stats`. Throws convo::Error as
// `options.on_error` says, and Cancelled once `*cancel` is set (checked every 1,024
// records).
void read_input(const std::string& path, const ReadOptions& options, InputHandler& handler,
                Diagnostics& diagnostics, ReadStats& stats, const Opener& open,
                const std::atomic<bool>* cancel = nullptr);

// Applies --on-error to a bad record at `where`: throws under fail, else warns and
// counts, and returns true when the record is to be written through (keep).
// `warned` counts the warnings given for the input so far.
bool bad_record(OnError policy, const Location& where, const std::string& what,
                Diagnostics& diagnostics, ReadStats& stats, std::uint64_t& warned);

// The closing count of bad records that --on-error skip|keep let through.
void report_bad(const ReadStats& stats, const ReadOptions& options, Diagnostics& diagnostics);

// The inputs `paths` name (standard input for none, a directory's transcripts),
// counted into `options.progress`.
std::vector<std::string> input_list(const std::vector<std::string>& paths,
                                    const ReadOptions& options, Diagnostics& diagnostics);

}  // namespace convo
