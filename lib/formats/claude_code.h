// The claude-code format: Claude Code session logs, one record per line. `user` and
// `assistant` records are conversation turns (their `message` is an Anthropic
// message); `system`, `progress`, `attachment`, `summary` and the bookkeeping records
// are kept as records of their kind, and record types nobody has seen yet pass
// through as `unknown`. Also read: the `{"loglines": [...]}` container.
#pragma once

#include <functional>
#include <memory>
#include <string_view>

#include "formats/format.h"

namespace convo {

int sniff_claude_code(const JsonValue& record);
std::unique_ptr<Decoder> make_claude_code_decoder();
// Calls `unheld` with what a turn record carries that no other format has a place
// for: its timestamp, its envelope (uuid chain, session, ...), the structured tool
// result beside its message, and its message's response members (id, model, usage).
void claude_code_unmodelled(const Message& message,
                            const std::function<void(std::string_view)>& unheld);
std::unique_ptr<Encoder> make_claude_code_encoder(LossReport& loss);

// The subtype of a subagent's meta record (agent-<id>.meta.json), a record of no
// `type` read as Kind::unknown: other formats count it as "subagent meta records".
inline constexpr std::string_view k_subagent_meta = "subagent meta";

// Record types Claude Code writes that carry no conversation content, read as
// Kind::bookkeeping (../shared/formats.md section 1.2); `filter` takes them as types.
inline constexpr std::string_view k_claude_code_bookkeeping_types[] = {
    "file-history-snapshot", "queue-operation", "last-prompt",        "permission-mode",
    "ai-title",              "custom-title",    "agent-name",         "agent-setting",
    "mode",                  "pr-link",         "saved_hook_context", "bridge-session",
    "worktree-state",        "tag",
};

}  // namespace convo
