// assemble: recorded streaming responses to the messages they spell. Reads
// Anthropic Messages streams (SSE, or one event per line), OpenAI chat completion
// chunk streams (SSE `data:` lines or JSONL, `[DONE]`) and LangChain AIMessageChunk
// records, puts each response together as the API (or LangChain's `concat`) would
// have returned it whole, and writes its message(s) in the stream's own format or
// in `to`. Each dialect lives with its format (lib/formats/*_stream.h, through
// `FormatInfo::make_stream_reader`); this stage reads the events and drives them.
//
// Merging follows Synaptic's AIMessageChunk: text concatenates (text, thinking,
// signature, refusal, reasoning deltas), tool-call fragments extend the call of
// their index (OpenAI, LangChain) or block (Anthropic, whose `input_json_delta`
// pieces are the input's JSON text), the first id, name and model win, and usage
// sums: LangChain chunks each count their own tokens. The APIs are the exception:
// they report usage cumulatively (Anthropic's message_delta carries the final
// output_tokens; some OpenAI-compatible providers repeat the running total on every
// chunk), so there a later report replaces an earlier one, key by key.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "diagnostics.h"
#include "formats/format.h"
#include "formats/stream.h"
#include "pipeline.h"

namespace convo {

class Output;
class StreamEventReader;

// Assembles every response of the stream `reader` reads. Problems with single
// events (a `data:` line that is not JSON, an event for a block that never
// started) end the response being assembled: it is returned with the problem.
std::vector<AssembledResponse> assemble_stream(StreamEventReader& reader, Diagnostics& diagnostics);

struct AssembleOptions {
  std::vector<std::string> inputs;  // empty: standard input
  std::optional<Format> to;         // nullopt: each response in the format it streamed in
  bool strict = false;              // what `to` cannot hold is an error
  OnError on_error = OnError::fail;
  // The format every stream must be in (anthropic, openai or langchain); nullopt:
  // each stream's own, as its events show it.
  std::optional<Format> from;
  unsigned jobs = 1;             // streams assembled at once; the output is the same as with 1
  Progress* progress = nullptr;  // counters to update, or none
};

struct AssembleStats {
  std::uint64_t responses = 0;
  std::uint64_t incomplete = 0;  // cut off or ended by an error event
};

// Assembles the streams in `options.inputs` and writes their messages to `out`. An
// incomplete response is written as far as it arrived; then, under OnError::fail,
// a convo::Error names where the stream broke off, and otherwise a warning does.
// With `options.jobs` > 1, up to that many streams are assembled at once; their
// messages, warnings and errors are handed on in input order.
AssembleStats assemble(const AssembleOptions& options, Output& out, Diagnostics& diagnostics,
                       const Opener& open = open_input);

}  // namespace convo
