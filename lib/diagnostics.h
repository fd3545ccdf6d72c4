// The warning channel: lib/ reports recoverable problems here and never writes to
// stderr itself. cmd/ supplies the implementation that prints them.
#pragma once

#include <string_view>

#include "error.h"

namespace convo {

class Diagnostics {
 public:
  virtual ~Diagnostics() = default;

  // A recoverable problem at `where`, e.g. a malformed line skipped by
  // `--on-error skip`. `what` is a lower-case fragment without a trailing period.
  virtual void warning(const Location& where, std::string_view what) = 0;
};

// Drops every warning; for tests and for callers that count instead of printing.
class NullDiagnostics final : public Diagnostics {
 public:
  void warning(const Location&, std::string_view) override {}
};

}  // namespace convo
