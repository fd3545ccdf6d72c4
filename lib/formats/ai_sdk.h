// The ai-sdk format: the Vercel AI SDK's messages, one per line or a JSON array of
// them (written back whole), in either of its two shapes, told apart record by
// record.
//
// ModelMessage (what `generateText`/`streamText` take and return): `{role, content}`
// with role system (content a string), user, assistant or tool, and content a string
// or a list of parts: text, image (`image`, `mediaType`), file (`data`, `mediaType`,
// `filename`), reasoning (`text`; a signature in `providerOptions.PROVIDER.signature`,
// redacted reasoning in `providerOptions.anthropic.redactedData`), tool-call
// (`toolCallId`, `toolName`, `input`; version 4's `args`), tool-result (`toolCallId`,
// `toolName`, `output` {type: text, json, error-text, error-json, content,
// execution-denied}; version 4's `result`), tool-approval-request/-response (kept as
// they are). A tool message holds tool-result parts.
//
// UIMessage (what chat apps store): `{id, role, metadata?, parts}` with parts text,
// reasoning, file (`mediaType`, `url`), `tool-NAME` and `dynamic-tool` (a call and its
// result in one part: `toolCallId`, `state`, `input`, `output`, `errorText`), version
// 4's `tool-invocation`, and source-url, source-document, data-NAME and step-start,
// which only this format holds. A UIMessage whose tool parts have results is read as
// the turns the APIs expect (the calls, a tool message with the results, the rest)
// and joined back into one UIMessage when written.
//
// Writing, by default (AiSdkShape::as_read) a message read as a UIMessage is written
// as a UIMessage, every other message as a ModelMessage; `convert --ai-sdk-shape`
// asks for UIMessages from messages of any format (ai_sdk_ui_encode.cc), or
// ModelMessages from UIMessages too.
#pragma once

#include <functional>
#include <memory>
#include <string_view>

#include "formats/format.h"

namespace convo {

class StreamReader;

int sniff_ai_sdk(const JsonValue& record);
std::unique_ptr<Decoder> make_ai_sdk_decoder();
std::unique_ptr<Encoder> make_ai_sdk_encoder(LossReport& loss);
// What an AI SDK message carries that convo does not model: "provider options",
// "metadata of UI messages".
void ai_sdk_unmodelled(const Message& message, const std::function<void(std::string_view)>& unheld);

}  // namespace convo
