// The claude-code format: Claude Code session logs, one record per line. `user` and
// `assistant` records are conversation turns (their `message` is an Anthropic
// message); `system`, `progress`, `attachment`, `summary` and the bookkeeping records
// are kept as records of their kind, and record types nobody has seen yet pass
// through as `unknown`. Also read: the `{"loglines": [...]}` container.
#pragma once

#include <memory>

#include "formats/format.h"

namespace convo {

int sniff_claude_code(const JsonValue& record);
std::unique_ptr<Decoder> make_claude_code_decoder();
std::unique_ptr<Encoder> make_claude_code_encoder(LossReport& loss);

}  // namespace convo
