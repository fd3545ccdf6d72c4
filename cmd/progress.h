// The progress line on stderr for long runs: files, megabytes and records per
// second, redrawn in place while stderr is a terminal. lib/ only counts (Progress in
// lib/pipeline.h); this draws.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string_view>
#include <thread>

#include "pipeline.h"

namespace convo::cli {

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
