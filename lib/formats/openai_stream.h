// The openai format's stream dialect: OpenAI chat completion chunks
// (../shared/formats.md section 3.2), as SSE `data:` lines or JSONL, ending in
// `[DONE]` or a finish_reason on every choice. Text deltas concatenate, tool-call
// fragments extend the call of their index, and usage (a running total with some
// providers) is the last one reported.
#pragma once

#include <memory>

#include "formats/stream.h"

namespace convo {

// A reader of OpenAI chat completion chunk streams, for the format's registry row.
std::unique_ptr<StreamReader> make_openai_stream_reader();

}  // namespace convo
