// The agentscope format: AgentScope `Msg.to_dict()` records, one per line.
//
// 1.x: `{"id","name","role","content","metadata","timestamp"}` (also
// `invocation_id`, `generate_reason`), role user, assistant or system, content a
// string or blocks: text, thinking, tool_use (`input` an object), tool_result
// (`id` = the tool_use's id, `name`, `output` a string or blocks, `is_error`),
// image/audio/video with a base64 or URL `source`. A Msg holding only tool results
// (ReActAgent writes them as `Msg("system", [...], "system")`) is a tool message.
//
// 2.x (told apart by `created_at`): blocks carry ids and times, tool calls are
// `tool_call` blocks whose `input` is JSON text, media are `data` blocks, and an
// assistant Msg holds its tool results after its calls; such a Msg becomes several
// turns (assistant, tool results, assistant, ...) that are joined again when it is
// written back. `usage` is the usage.
//
// A sender name equal to the role ("user", "assistant", "system") is read as no
// name; written from another format, a message without a name is named after its
// role (AgentScope requires one) and takes the 1.x shape.
#pragma once

#include <memory>

#include "formats/format.h"

namespace convo {

int sniff_agentscope(const JsonValue& record);
std::unique_ptr<Decoder> make_agentscope_decoder();
std::unique_ptr<Encoder> make_agentscope_encoder(LossReport& loss);
// What a Msg carries that convo does not model: non-empty `metadata`, an
// `invocation_id`, and its `timestamp` (which the caller keeps where the target has
// a place for it).
void agentscope_unmodelled(const Message& message,
                           const std::function<void(std::string_view)>& unheld);

}  // namespace convo
