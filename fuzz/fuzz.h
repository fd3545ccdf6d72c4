// Shared by the libFuzzer targets: run lib/ on the fuzzer's bytes the way the
// command line does, and let only convo::Error (a reported bad input) through.
// Anything else escaping (a logic_error from a JSON assertion, a crash, a
// sanitizer report) is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "conversation.h"
#include "diagnostics.h"
#include "io/output.h"
#include "pipeline.h"

namespace convo::fuzz {

// An input's last byte chooses sizes and options without being taken off it (the
// seeds, transcripts from testdata/, stay whole): bits 0-2 the long-line size and
// 3-5 the borrow size (`choose_sizes`), bit 6 the grouping of the whole-conversation
// stages (`grouping`), bit 7 what a target says.
std::uint8_t last_byte(const std::uint8_t* data, std::size_t size);

// Sets the sizes from which lines are long, kept as read and parsed apart from
// their bytes (`RecordReader::set_long_line_size`), and from which decoded strings
// are borrowed from their record (`Text::set_borrow_at`), as bits 0-2 and 3-5 of
// `byte` choose each: convo's own (1 MiB, which inputs of at most 64 KB never
// reach) or 16 bytes to 16 KiB, so that some lines and strings of an input take
// one path and some the other.
void choose_sizes(std::uint8_t byte);

// --group-by as bit 6 of `byte` chooses: file (a conversation held whole, compactly
// in `HeldRecords` where the stage does so) or session (convo's default).
GroupBy grouping(std::uint8_t byte);

// The output format (--to) `run_stage_on` writes `data` in: for a stage that is
// told it, as the command line tells it.
std::optional<Format> output_format(const std::uint8_t* data, std::size_t size);

// Runs `run_stream` on `data` as one input (two, split at the middle, with -j 2
// when the first byte says so), with the policy and output format the first bytes
// choose, the sizes the last byte chooses (`choose_sizes`), `make_stage` as the
// stage and `make_sink` as the sink (transcripts in the chosen format when empty).
// Returns normally on success and on convo::Error; lets anything else escape.
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
