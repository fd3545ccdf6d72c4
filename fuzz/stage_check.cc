// check: the rules of each API over whole conversations, reported as text or JSON.
#include <atomic>

#include "fuzz.h"
#include "stages/check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto problems = std::make_shared<std::atomic<std::uint64_t>>(0);
  convo::CheckOptions options;
  if (size % 2 == 1) {
    options.target = convo::CheckTarget::openai;
  }
  convo::fuzz::run_stage_on(
      data, size, [] { return convo::make_check_stage(convo::GroupBy::session); },
      convo::check_sink(options,
                        size % 3 == 0 ? convo::ReportFormat::json : convo::ReportFormat::text,
                        problems));
  return 0;
}
