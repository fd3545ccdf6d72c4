// The progress line on stderr for long runs: files, megabytes, records per second,
// and a percentage and time left when the inputs' sizes are known; redrawn in place
// while stderr is a terminal. lib/ only counts (Progress in lib/pipeline.h); this
// draws.
//
// The line never shares a line with output: warnings are printed through the meter
// (print_above erases the line first), and while standard output is the same
// terminal as standard error the line is not drawn at all (progress_allowed), since
// the output could land in the middle of it; the output scrolling by shows progress
// there.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <cstdint>
#include <string>
#include <string_view>
#include <thread>

#include "pipeline.h"

namespace convo::cli {

// What one progress line shows.
struct ProgressCounts {
  std::uint64_t inputs_done = 0;
  std::uint64_t inputs_total = 0;
  std::uint64_t bytes = 0;
  std::uint64_t bytes_total = 0;  // 0: not known, no percentage
  std::uint64_t records = 0;
};

// The line for `counts` after `seconds`, without a newline:
// "convo: 3/40 files, 12.3 of 95.0 MB (13%), 38.4k records, 38.4k records/s, 0:07 left".
std::string progress_line(const ProgressCounts& counts, double seconds);

// False when standard output and standard error are the same terminal: a line
// drawn there would be broken into by the output.
bool progress_allowed();

// Draws `progress` on stderr from a thread of its own until destroyed. On a
// terminal the line is redrawn in place every 250 ms (after the first half second,
// so that short runs show nothing) and erased at the end; elsewhere (`--progress`
// with stderr redirected) a line is printed every 2 s and once at the end.
class ProgressMeter {
 public:
  ProgressMeter(const Progress& progress, bool terminal);
  ~ProgressMeter();
  ProgressMeter(const ProgressMeter&) = delete;
  ProgressMeter& operator=(const ProgressMeter&) = delete;

  // Prints `line` (a warning, with its newline) so that it does not collide with
  // the progress line. Thread-safe.
  void print_above(std::string_view line);

 private:
  void run();
  void draw(bool final);

  const Progress& m_progress;
  bool m_terminal;
  std::chrono::steady_clock::time_point m_start;
  std::mutex m_mutex;
  std::condition_variable m_wake;
  bool m_stop = false;
  bool m_shown = false;  // a line is on the terminal now
  std::thread m_thread;
};

}  // namespace convo::cli
