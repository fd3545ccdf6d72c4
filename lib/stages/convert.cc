#include "stages/convert.h"

namespace convo {

ReadStats convert(const StreamOptions& options, Output& out, Diagnostics& diagnostics,
                  const Opener& open) {
  return run_stream(
      options, [] { return std::make_unique<PassThrough>(); }, out, diagnostics, open);
}

}  // namespace convo
