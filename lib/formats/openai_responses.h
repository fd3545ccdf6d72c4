// The openai-responses format: OpenAI Responses API items, one per line (see
// formats/responses_items.h for how an item maps to a message). Also read: request
// bodies (`{"model","input",...}`: `instructions` is a system message ahead of the
// input items, a string `input` one user message), response bodies (`{"object":
// "response","output":[...],"usage"}`: the usage, with its cached and reasoning
// tokens, on the last output item) and JSON arrays of items, written back as they
// were with their items in place.
#pragma once

#include <functional>
#include <memory>
#include <string_view>

#include "formats/format.h"

namespace convo {

int sniff_openai_responses(const JsonValue& record);
std::unique_ptr<Decoder> make_openai_responses_decoder();
std::unique_ptr<Encoder> make_openai_responses_encoder(LossReport& loss);
// Calls `unheld` with what an item carries that formats outside the Responses
// family have no place for.
void openai_responses_unmodelled(const Message& message,
                                 const std::function<void(std::string_view)>& unheld);
// Its key (FormatInfo::unmodelled_key): responses_item_unmodelled_key.
std::optional<std::uint64_t> openai_responses_unmodelled_key(const Message& message);

}  // namespace convo
