// The synaptic format: messages of Synaptic (Rust, dnw3/synaptic, synaptic-core
// `Message`), one per line, tagged by `role`: system, human, assistant, tool (with
// `tool_call_id`), chat (with `custom_role`) and remove (`{"role":"remove","id"}`).
// `content` is always a string; `content_blocks` holds the rest (image, audio,
// video and file by URL, data, reasoning). Assistant `tool_calls` carry
// `arguments` as a JSON value (not text); `invalid_tool_calls` and
// `usage_metadata` map as in langchain.
//
// Reading, the reasoning blocks come first, then the text of `content`, then the
// other content blocks (Synaptic does not record their order). Writing, all text
// joins into `content`; a thinking block becomes a reasoning block (its signature
// cannot be kept), an image given inline becomes a `data:` URL.
#pragma once

#include <memory>

#include "formats/format.h"

namespace convo {

int sniff_synaptic(const JsonValue& record);
std::unique_ptr<Decoder> make_synaptic_decoder();
std::unique_ptr<Encoder> make_synaptic_encoder(LossReport& loss);

}  // namespace convo
