// The gemini format's stream dialect: the chunks of `streamGenerateContent`, each a
// GenerateContentResponse, as SSE `data:` lines (`alt=sse`), one per line, or as the
// JSON array REST returns without `alt=sse` (the event reader takes its elements
// one by one). There is no end marker: a candidate's `finishReason` ends the
// response. Chunks merge into the response `generateContent` would have returned:
// text parts concatenate while their `thought` flag is the same and the part before
// has no `thoughtSignature` (a signature is put on the part it came with or, on an
// empty text part, on the text before it); empty text parts add nothing; other
// parts (functionCall, inlineData, executableCode, ...) are appended whole; Vertex's
// streamed call arguments (`willContinue`, `partialArgs` by `jsonPath`) are put
// together into the call's `args`; `usageMetadata`, `finishReason` and the other
// members are the last ones sent.
#pragma once

#include <memory>

#include "formats/stream.h"

namespace convo {

// A reader of Gemini streamGenerateContent chunk streams, for the format's registry row.
std::unique_ptr<StreamReader> make_gemini_stream_reader();

// A writer of Gemini streams (SSE `data:` chunks, as the API sends them with
// `alt=sse`), for the format's registry row (lib/formats/gemini_stream_writer.cc).
std::unique_ptr<StreamWriter> make_gemini_stream_writer(const StreamWriterOptions& options);

}  // namespace convo
