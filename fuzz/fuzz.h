// Shared by the libFuzzer targets: run lib/ on the fuzzer's bytes the way the
// command line does, and let only convo::Error (a reported bad input) through.
// Anything else escaping (a logic_error from a JSON assertion, a crash, a
// sanitizer report) is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "diagnostics.h"
#include "io/output.h"
#include "pipeline.h"

namespace convo::fuzz {

// Runs `run_stream` on `data` as one input (two, split at the middle, with -j 2
// when the first byte says so), with the policy and output format the first bytes
// choose, `make_stage` as the stage and `make_sink` as the sink (transcripts in the
// chosen format when empty). Returns normally on success and on convo::Error; lets
// anything else escape.
void run_stage_on(const std::uint8_t* data, std::size_t size, const StageFactory& make_stage,
                  const SinkFactory& make_sink = {});

}  // namespace convo::fuzz

// A target for a streaming or whole-conversation stage: one line in a file of its
// own, fuzz/stage_NAME.cc, makes `fuzz_stage_NAME`:
//   CONVO_FUZZ_STAGE([] { return std::make_unique<convo::MyStage>(convo::MyOptions{}); })
#define CONVO_FUZZ_STAGE(make_stage)                                                 \
  extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) { \
    convo::fuzz::run_stage_on(data, size, make_stage);                               \
    return 0;                                                                        \
  }

// The same for a subcommand that writes something else than transcripts (text, a
// report): its stage and its sink factory.
#define CONVO_FUZZ_STAGE_WITH_SINK(make_stage, make_sink)                            \
  extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) { \
    convo::fuzz::run_stage_on(data, size, make_stage, make_sink);                    \
    return 0;                                                                        \
  }
