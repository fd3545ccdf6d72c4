// check: the rules of each API over whole conversations, reported as text or JSON,
// grouped by session or by file (held compactly in `HeldRecords` as the command
// line holds them: without budgets, which read every record's content).
#include <atomic>

#include "fuzz.h"
#include "stages/check_report.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto tally = std::make_shared<convo::CheckTally>();
  convo::ReportOptions options;
  if (size % 2 == 1) {
    options.check.target = convo::CheckTarget::openai;
  }
  options.format = size % 3 == 0 ? convo::ReportFormat::json : convo::ReportFormat::text;
  // Bit 7 of the last byte: budgets, which read what the records say.
  const std::uint8_t last = convo::fuzz::last_byte(data, size);
  if ((last & 0x80) != 0) {
    options.budgets.max_tokens = 1000;
    options.budgets.max_tool_errors = 1;
    options.budgets.forbid_tools = {"Bash"};
  }
  const convo::GroupBy grouping = convo::fuzz::grouping(last);
  const bool as_bytes = !options.budgets.any();  // as cmd/check.cc
  convo::fuzz::run_stage_on(
      data, size, [grouping, as_bytes] { return convo::make_check_stage(grouping, as_bytes); },
      convo::check_report_sink(options, tally));
  return 0;
}
