#include "stages/convert.h"

#include <fmt/format.h>

#include "io/output.h"

namespace convo {

namespace {

class PassThrough final : public StreamStage {
 public:
  void push(Message&& message, MessageSink& next) override { next.put(std::move(message)); }
};

}  // namespace

ReadStats convert(const ConvertOptions& options, Output& out, Diagnostics& diagnostics,
                  const Opener& open) {
  LossReport loss(options.strict);
  FormatWriter writer(out, options.to, loss);
  PassThrough stage;
  ReadStats stats = run_stage(options.inputs, options.read, stage, writer, diagnostics, open);
  out.flush();
  if (!loss.empty()) {
    diagnostics.warning(Location{}, fmt::format("dropped what the output format cannot hold: "
                                                "{} (--strict makes this an error)",
                                                loss.summary()));
  }
  return stats;
}

}  // namespace convo
