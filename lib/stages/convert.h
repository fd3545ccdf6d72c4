// convert: every message passes unchanged; the output format does the work. What
// the target format cannot hold is dropped and counted (an error under --strict).
#pragma once

#include <string>
#include <vector>

#include "diagnostics.h"
#include "formats/format.h"
#include "pipeline.h"

namespace convo {

class Output;

struct ConvertOptions {
  std::vector<std::string> inputs;  // empty: standard input
  ReadOptions read;
  Format to = Format::openai;
  bool strict = false;  // any loss is an error
};

// Converts every input to `options.to`, writing to `out`. Losses are reported to
// `diagnostics` once, at the end. Throws convo::Error.
ReadStats convert(const ConvertOptions& options, Output& out, Diagnostics& diagnostics,
                  const Opener& open = open_input);

}  // namespace convo
