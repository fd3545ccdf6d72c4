// Reading one input for the pipeline: its format detected from its first records
// (or `--from`), its records decoded into messages, and `--on-error` applied to the
// bad ones. Internal to lib/: callers use `read_inputs` and `run_stage`
// (pipeline.h), which read every input through here, one by one or in parallel.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "pipeline.h"

namespace convo {

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
