// The report of `convo check`: which rules are reported and at what severity, how
// each problem is written, and the tally behind the summary line. The rules
// themselves are in stages/check.h.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "pipeline.h"
#include "stages/check.h"

namespace convo {

enum class Severity : std::uint8_t {
  error,    // the API would reject the request, or a line cannot be read at all
  warning,  // the file's own bookkeeping (uuids, parent links), which no API sees
};

// A rule's severity: warning for duplicate-uuid and dangling-parent, error for
// every other rule (and for any rule added later, until it is listed here).
Severity rule_severity(std::string_view rule);
std::string_view severity_name(Severity severity);

struct ReportOptions {
  CheckOptions check;
  ReportFormat format = ReportFormat::text;
  std::vector<std::string> select;  // the rules to report; empty: all
  std::vector<std::string> ignore;  // rules not to report, even when selected
  bool quiet = false;               // count the problems, write nothing
};

// What a run found, for the summary line and the exit status. Shared by every
// input's sink; with -j they add to it from several threads.
struct CheckTally {
  std::atomic<std::uint64_t> errors{0};
  std::atomic<std::uint64_t> warnings{0};
  std::atomic<std::uint64_t> files{0};
  std::atomic<std::uint64_t> files_with_problems{0};

  std::uint64_t problems() const { return errors + warnings; }

  // dangling-parent is decided at the end of the run, when every input's uuids are
  // known (a subagent file's parent is in its session's main file).
  struct PendingInput {
    std::string file;
    bool counted = false;  // already among files_with_problems
    std::vector<InputLinks::Dangling> dangling;
  };
  std::mutex links_mutex;                 // guards the two below
  std::unordered_set<std::size_t> uuids;  // every input's, hashed
  std::vector<PendingInput> pending;      // inputs with links to no record of their own
};

// "12 problems (10 errors, 2 warnings) in 3 of 40 files".
std::string check_summary(const CheckTally& tally);

// A sink that checks each conversation it is given (what comes one message at a
// time is one conversation) and, at the end of each input, writes the input's
// problems that `options` reports: `FILE:LINE: SEVERITY: RULE: MESSAGE`, or one
// {"file","line","rule","severity","message"} object per line; and adds them to
// `tally`.
SinkFactory check_report_sink(ReportOptions options, std::shared_ptr<CheckTally> tally);

// After the run: writes the dangling-parent problems whose parent no input had, to
// `out`, input by input in the order of `inputs` (the run's inputs as expand_inputs
// lists them), by line within each, and adds them to `tally`. The same report
// whatever -j was.
void report_dangling_parents(Output& out, const ReportOptions& options, CheckTally& tally,
                             const std::vector<std::string>& inputs);

}  // namespace convo
