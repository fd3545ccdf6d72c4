#include "stages/convert.h"

namespace convo {

ReadStats convert(const StreamOptions& options, Output& out, Diagnostics& diagnostics,
                  const Opener& open) {
  PassThrough stage;
  return run_stream(options, stage, out, diagnostics, open);
}

}  // namespace convo
