// redact: each secret (lib/secrets.h) replaced by `[REDACTED:rule]` in the decoded
// string that holds it, the string re-escaped; in JSON carried in a string, the
// inner string redacted and the JSON re-serialized. A record without secrets is
// written byte for byte; one with secrets is re-serialized (compact, members in
// their order). A multi-message document is one record.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "json.h"
#include "pipeline.h"
#include "secrets.h"
#include "stages/check.h"

namespace convo {

// `root` with its secrets redacted, re-serialized; nullopt when it has none. Each
// secret found is added to `found` (where: `where`; message: `PATH: MASKED`).
std::optional<std::string> redact_json(const JsonValue& root, const SecretScanner& scanner,
                                       const Location& where, std::vector<Problem>& found);

struct RedactTally {
  std::atomic<std::uint64_t> secrets{0};
  std::atomic<std::uint64_t> records{0};  // records changed
};

// The sink of `convo redact`: writes each record, redacted; with `dry_run`, writes
// instead `FILE:LINE: RULE: PATH: MASKED` per secret.
SinkFactory redact_sink(std::shared_ptr<const SecretScanner> scanner, bool dry_run,
                        std::shared_ptr<RedactTally> tally);

}  // namespace convo
