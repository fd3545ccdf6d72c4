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
#include <vector>

#include "pipeline.h"
#include "stages/budgets.h"
#include "stages/check.h"
#include "stages/check_formats.h"

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
  BudgetOptions budgets;  // max-tokens, forbidden-tool, max-tool-errors
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
  // For the reports written once for the whole run (SARIF, JUnit): every input's
  // problems, in the order the inputs ended. Guarded by `mutex`.
  std::mutex mutex;
  std::vector<FileReport> reports;

  // dangling-parent is decided at the end of the run, when every input's uuids are
  // known (a subagent file's parent is in its session's main file).
  struct PendingInput {
    std::string file;
    bool counted = false;  // already among files_with_problems
    std::vector<InputLinks::Dangling> dangling;
  };
  std::mutex links_mutex;                 // guards the two below
  std::vector<std::size_t> uuids;  // every input's, hashed (sorted when looked up, at the end)
  std::vector<PendingInput> pending;      // inputs with links to no record of their own

  std::uint64_t problems() const { return errors + warnings; }
};

// What a sink that reports problems accepts besides messages: problems a stage found
// in the records before passing them on (secrets, which need the records whole).
class ProblemSink {
 public:
  virtual ~ProblemSink() = default;
  virtual void add_problem(Problem&& problem) = 0;
};

// Whether a rule `options` reports is one the check itself finds (on whole
// conversations); false when every rule reported is a secret-* rule, found by the
// secrets stage record by record: the run then streams (no conversation is held,
// and the sink checks none).
bool checks_conversations(const ReportOptions& options);

// "12 problems (10 errors, 2 warnings) in 3 of 40 files".
std::string check_summary(const CheckTally& tally);

// A sink that checks each conversation it is given (what comes one message at a
// time is one conversation) and, at the end of each input, writes the input's
// problems that `options` reports: `FILE:LINE: SEVERITY: RULE: MESSAGE`, one
// {"file","line","rule","severity","message"} object per line, or a GitHub
// annotation per line; and adds them to `tally` (for SARIF and JUnit, to
// `tally.reports`, which `whole_run_report` then writes).
SinkFactory check_report_sink(ReportOptions options, std::shared_ptr<CheckTally> tally);

// The SARIF or JUnit document of a whole run, from `tally.reports` sorted by file
// name (inputs checked with -j end in any order); empty for the other formats.
std::string whole_run_report(ReportFormat format, CheckTally& tally, std::string_view version);

// After the run (before `whole_run_report`): reports the dangling-parent problems
// whose parent no input had, input by input in the order of `inputs` (the run's
// inputs as expand_inputs lists them), by line within each, and adds them to
// `tally`: written to `out`, or for SARIF and JUnit added to the input's report. The
// same report whatever -j was.
void report_dangling_parents(Output& out, const ReportOptions& options, CheckTally& tally,
                             const std::vector<std::string>& inputs);

}  // namespace convo
