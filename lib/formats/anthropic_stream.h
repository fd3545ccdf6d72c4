// The anthropic format's stream dialect: Anthropic Messages streams
// (../shared/formats.md section 2.3), SSE or one event per line: message_start,
// content_block_start/delta/stop, message_delta, message_stop, ping. The blocks'
// deltas extend their block (`input_json_delta` pieces are the input's JSON text);
// message_delta's usage is cumulative, so it replaces message_start's key by key.
#pragma once

#include <memory>

#include "formats/stream.h"

namespace convo {

// A reader of Anthropic Messages streams, for the format's registry row.
std::unique_ptr<StreamReader> make_anthropic_stream_reader();

// A writer of Anthropic Messages streams (SSE, as the API sends them), for the
// format's registry row (lib/formats/anthropic_stream_writer.cc).
std::unique_ptr<StreamWriter> make_anthropic_stream_writer(const StreamWriterOptions& options);

}  // namespace convo
