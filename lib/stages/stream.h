// stream: writes one protocol's event stream (convo stream --to). Two inputs, told
// apart by their first line:
//
// - Messages or response bodies (an Anthropic message, an OpenAI chat.completion,
//   a transcript of any format): each assistant message is written as the stream
//   its API would have sent, its text, thinking and tool input cut into deltas of
//   `chunk_size` characters (whole code points; 0: one delta a block).
// - A stream (SSE, or one JSON event per line) of any protocol convo reads: it is
//   translated event by event as the bytes arrive, each event's translation
//   written and flushed before the next is read. Memory holds the open block's
//   state, never a response's text (but a Responses writer's, whose
//   response.completed repeats the output, as the API's does). A stream that reports an error or is cut off
//   ends with the target protocol's error event, then a convo::Error.
//
// The readers and writers live with their formats (lib/formats/stream.h); this
// stage reads, tells the inputs apart and drives them.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "diagnostics.h"
#include "formats/format.h"
#include "formats/stream.h"
#include "pipeline.h"

namespace convo {

class Output;

struct StreamCommandOptions {
  std::vector<std::string> inputs;  // empty: standard input
  Format to = Format::anthropic;    // a format with a stream writer
  // The format every input must be in (messages or a stream); nullopt: each
  // input's own.
  std::optional<Format> from;
  std::size_t chunk_size = 32;  // characters a delta, from messages; 0: a block whole
  StreamWriterOptions writer;
  bool strict = false;  // what `to` cannot say is an error
};

struct StreamCommandStats {
  std::uint64_t responses = 0;  // streams written
  std::uint64_t events = 0;     // events read from streams
  std::uint64_t skipped = 0;    // messages that are not assistant responses
};

// Writes the streams of `options.inputs` to `out`. Throws convo::Error (after the
// target's error event) for a stream that reports an error, breaks off or cannot
// be read.
StreamCommandStats write_streams(const StreamCommandOptions& options, Output& out,
                                 Diagnostics& diagnostics, const Opener& open = open_input);

// The parts that spell `message` (an assistant message), deltas of `chunk_size`
// characters. What parts cannot hold is reported to `loss` as lost to `to`.
std::vector<StreamPart> parts_of_message(const Message& message, std::size_t chunk_size,
                                         Format to, LossReport& loss);

// The parts that spell one response made of `messages` (assistant messages of one
// response body, as a Responses body's output items are): their blocks in order,
// the response's id, model and stop reason from the first, its usage from the last
// that has one.
std::vector<StreamPart> parts_of_messages(std::span<const Message> messages, std::size_t chunk_size,
                                          Format to, LossReport& loss);

}  // namespace convo
