// check: the rules of each API over whole conversations, reported as text or JSON.
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
  convo::fuzz::run_stage_on(
      data, size, [] { return convo::make_check_stage(convo::GroupBy::session); },
      convo::check_report_sink(options, tally));
  return 0;
}
