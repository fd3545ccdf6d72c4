// The opencode format: OpenCode (anomalyco/opencode, formerly sst/opencode)
// MessageV2 messages with their parts, one `{"info": {...}, "parts": [...]}`
// record per line, or the document `opencode export` prints (`{"info": session,
// "messages": [...]}`, pretty-printed; written back as it was when nothing in it
// changed). The files of OpenCode's older storage layout are read one by one too:
// a session file is a `session` record, a message file a message without parts,
// a part file a record of unknown kind (its role is in another file).
//
// Parts: text and reasoning are text and thinking blocks (a reasoning part's
// `metadata.anthropic.signature` is the signature); file parts are image, audio,
// video, document or file blocks by their `mime`; a tool part is one call and its
// result, read as a tool_use block and a tool_result (completed: the output and
// attachments; error: the error, `is_error`; pending and running: no result yet).
// An assistant message is cut into the turns the APIs expect: the blocks up to a
// run of tool calls, a tool message with their results, the next blocks, ...;
// writing joins them again. agent, subtask, compaction and retry parts are blocks
// only OpenCode can write; step-start, step-finish, snapshot and patch parts are
// the message's bookkeeping, kept in place when it is written back to OpenCode and
// not carried elsewhere (the message's `tokens` and `cost` are its usage).
//
// From another format, tool results join their call's part (the assistant message
// is held back until the next message that is not a tool result); system
// messages have no OpenCode form. Records written from another format carry no
// OpenCode ids or times that the source did not have.
#pragma once

#include <memory>

#include "formats/format.h"

namespace convo {

int sniff_opencode(const JsonValue& record);
std::unique_ptr<Decoder> make_opencode_decoder();
std::unique_ptr<Encoder> make_opencode_encoder(LossReport& loss);
// What a message with its parts carries that convo does not model: its step-start,
// step-finish, snapshot and patch parts, counted by type.
void opencode_unmodelled(const Message& message,
                         const std::function<void(std::string_view)>& unheld);

}  // namespace convo
