#include "progress.h"

#include <fmt/format.h>

#include <algorithm>

#include <sys/stat.h>
#include <unistd.h>

namespace convo::cli {

// Ours: Debian has no C++ progress-line library (apt-cache search progressbar finds
// Go, Haskell and Perl ones), and one that gives way to warnings and to a terminal
// stdout is this file. Its thread costs nothing measurable: converting 220 MB (16
// times the Claude Code corpus) took 0.62-0.64 s of CPU with -q, 0.64-0.65 s with
// --progress.

namespace {

constexpr auto k_first_draw = std::chrono::milliseconds(500);
constexpr auto k_terminal_interval = std::chrono::milliseconds(250);
constexpr auto k_log_interval = std::chrono::seconds(2);

std::string human_count(double n) {
  if (n >= 1e6) {
    return fmt::format("{:.1f}M", n / 1e6);
  }
  if (n >= 1e3) {
    return fmt::format("{:.1f}k", n / 1e3);
  }
  return fmt::format("{:.0f}", n);
}

std::string duration(double seconds) {
  auto s = static_cast<std::uint64_t>(seconds + 0.5);
  if (s >= 3600) {
    return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
  }
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

}  // namespace

std::string progress_line(const ProgressCounts& counts, double seconds) {
  auto records = static_cast<double>(counts.records);
  auto bytes = static_cast<double>(counts.bytes);
  std::string line = fmt::format("convo: {}/{} files, ", counts.inputs_done, counts.inputs_total);
  if (counts.bytes_total > 0) {
    double done = std::min(1.0, bytes / static_cast<double>(counts.bytes_total));
    line += fmt::format("{:.1f} of {:.1f} MB ({:.0f}%), ", bytes / 1e6,
                        static_cast<double>(counts.bytes_total) / 1e6, done * 100);
    line += fmt::format("{} records, {} records/s", human_count(records),
                        human_count(seconds > 0 ? records / seconds : 0));
    // Time left at the pace so far, once there is a pace to go by.
    if (done >= 0.01 && seconds >= 1) {
      line += fmt::format(", {} left", duration(seconds * (1 - done) / done));
    }
    return line;
  }
  return line + fmt::format("{:.1f} MB, {} records, {} records/s", bytes / 1e6,
                            human_count(records), human_count(seconds > 0 ? records / seconds : 0));
}

bool progress_allowed() {
  if (::isatty(STDOUT_FILENO) != 1 || ::isatty(STDERR_FILENO) != 1) {
    return true;
  }
  struct stat out {};
  struct stat err {};
  if (::fstat(STDOUT_FILENO, &out) != 0 || ::fstat(STDERR_FILENO, &err) != 0) {
    return false;
  }
  return out.st_rdev != err.st_rdev;
}

ProgressMeter::ProgressMeter(const Progress& progress, bool terminal)
    : m_progress(progress), m_terminal(terminal), m_start(std::chrono::steady_clock::now()) {
  m_thread = std::thread([this] { run(); });
}

ProgressMeter::~ProgressMeter() {
  {
    std::lock_guard lock(m_mutex);
    m_stop = true;
  }
  m_wake.notify_all();
  m_thread.join();
  std::lock_guard lock(m_mutex);
  if (m_terminal && m_shown) {
    std::fputs("\r\033[K", stderr);
  } else if (!m_terminal) {
    draw(true);
  }
  std::fflush(stderr);
}

void ProgressMeter::print_above(std::string_view line) {
  std::lock_guard lock(m_mutex);
  if (m_terminal && m_shown) {
    std::fputs("\r\033[K", stderr);
    m_shown = false;
  }
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

void ProgressMeter::run() {
  std::unique_lock lock(m_mutex);
  if (m_wake.wait_for(lock, k_first_draw, [this] { return m_stop; })) {
    return;
  }
  for (;;) {
    draw(false);
    if (m_wake.wait_for(lock, m_terminal ? k_terminal_interval : k_log_interval,
                        [this] { return m_stop; })) {
      return;
    }
  }
}

// Called with m_mutex held.
void ProgressMeter::draw(bool final) {
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
  ProgressCounts counts;
  counts.inputs_done = m_progress.inputs_done.load(std::memory_order_relaxed);
  counts.inputs_total = m_progress.inputs_total.load(std::memory_order_relaxed);
  counts.bytes = m_progress.bytes.load(std::memory_order_relaxed);
  counts.bytes_total = m_progress.bytes_total.load(std::memory_order_relaxed);
  counts.records = m_progress.records.load(std::memory_order_relaxed);
  std::string line = progress_line(counts, seconds);
  (void)final;
  // fputs, not fmt::print: a closed or full stderr must not throw on this thread.
  if (m_terminal) {
    line.insert(0, "\r\033[K");
    m_shown = true;
  } else {
    line.push_back('\n');
  }
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
}

}  // namespace convo::cli
