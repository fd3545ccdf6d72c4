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

// A writer of OpenAI chat completion chunk streams (SSE, as the API sends them),
// for the format's registry row (lib/formats/openai_stream_writer.cc).
std::unique_ptr<StreamWriter> make_openai_stream_writer(const StreamWriterOptions& options);

}  // namespace convo
