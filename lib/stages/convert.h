// convert: every message passes unchanged; the output format does the work. What
// the target format cannot hold is dropped and counted (an error under --strict).
#pragma once

#include "pipeline.h"

namespace convo {

// Passes every message on as it is.
class PassThrough final : public StreamStage {
 public:
  void push(Message&& message, MessageSink& next) override { next.put(std::move(message)); }
};

// Converts every input to `options.to` (which must be set), writing to `out`.
// Throws convo::Error.
ReadStats convert(const StreamOptions& options, Output& out, Diagnostics& diagnostics,
                  const Opener& open = open_input);

}  // namespace convo
