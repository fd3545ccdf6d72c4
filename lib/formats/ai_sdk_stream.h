// The ai-sdk format's stream dialect: the AI SDK's UI message stream (what
// `toUIMessageStreamResponse` sends, as SSE `data:` lines or one chunk a line):
// start, start-step, text-*, reasoning-*, tool-input-*, tool-output-*, source-*,
// file, data-*, message-metadata, finish-step, finish, error, abort. The chunks are
// put together as the SDK's `readUIMessageStream` does, into the assistant
// UIMessage they spell; the message is whole at `finish`.
#pragma once

#include <memory>

#include "formats/stream.h"

namespace convo {

// A reader of AI SDK UI message stream chunks, for the format's registry row.
std::unique_ptr<StreamReader> make_ai_sdk_stream_reader();

}  // namespace convo
