// The anthropic format: Messages API messages, one `{"role","content"}` object per
// line (a `system` role line carries a system prompt). Also read: a whole request
// body (`{"model","system","messages",...}`), a response body (a message with id,
// model, usage), and a JSON array of messages. Request bodies and arrays are written
// back as they were, with their messages in place.
#pragma once

#include <memory>

#include "formats/format.h"

namespace convo {

int sniff_anthropic(const JsonValue& record);
std::unique_ptr<Decoder> make_anthropic_decoder();
std::unique_ptr<Encoder> make_anthropic_encoder(LossReport& loss);

// True when the anthropic writer can write `message` as the bytes it was read from
// and the API takes them as they are: a line of this format that holds nothing but
// `role` and `content` (whether a stage changed it is the caller's question).
bool anthropic_as_is(const Message& message);

}  // namespace convo
