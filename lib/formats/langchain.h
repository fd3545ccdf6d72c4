// The langchain format: LangChain messages as stored by `messages_to_dict`
// (`{"type": "human", "data": {...}}`, Python with nulls or LangChain.js without,
// `chat` or `generic` for ChatMessage, the *Chunk class names), the `dumpd`
// constructor form (`{"lc": 1, "type": "constructor", "id": [..., "AIMessage"],
// "kwargs": {...}}`), plain LangChain dicts (a message's `data` alone, keyed by
// `type`, or a dict whose `role` is `ai`), one per line or in a JSON array (a
// FileChatMessageHistory file).
//
// AI `tool_calls` (object `args`) become tool_use blocks and each tool message a
// tool_result block (`status: "error"` is `is_error`); `invalid_tool_calls` are
// kept as `invalid_tool_call` blocks; `usage_metadata` is the usage; a system
// message with `additional_kwargs.__openai_role__ == "developer"` is a developer
// message. Written from another format, a message takes the Python stored shape.
#pragma once

#include <memory>

#include "formats/format.h"

namespace convo {

int sniff_langchain(const JsonValue& record);
std::unique_ptr<Decoder> make_langchain_decoder();
std::unique_ptr<Encoder> make_langchain_encoder(LossReport& loss);

// The block type_name convo gives LangChain's and Synaptic's invalid tool calls
// (a call whose arguments did not parse): an `unknown` block that only these two
// formats can write.
inline constexpr std::string_view k_invalid_tool_call = "invalid_tool_call";

}  // namespace convo
