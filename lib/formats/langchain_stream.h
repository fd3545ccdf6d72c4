// The langchain format's stream dialect: AIMessageChunk records (messages_to_dict
// of streamed chunks, the lc constructor form, or LangChain.js's "ai" chunks),
// joined as LangChain's AIMessageChunk.__add__ joins them: merge_dicts, merge_lists
// by `index`, and usage_metadata that adds up. A message ends when the next id
// begins, at `chunk_position: "last"`, or with the input.
#pragma once

#include <memory>

#include "formats/stream.h"

namespace convo {

// A reader of LangChain AIMessageChunk records, for the format's registry row.
std::unique_ptr<StreamReader> make_langchain_stream_reader();

}  // namespace convo
