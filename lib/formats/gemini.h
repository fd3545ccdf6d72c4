// The gemini format: Google Gemini API `contents`, one Content per line
// (`{"role": "user"|"model", "parts": [...]}`). Parts become blocks: `text`;
// `text` with `thought: true` a thinking block; `thoughtSignature` (on any part) the
// block's signature; `functionCall` a tool_use, `functionResponse` a tool_result
// (in a user turn); `inlineData` and `fileData` media blocks; `executableCode`,
// `codeExecutionResult` and any other part kept as unknown blocks. Calls without an
// `id` are linked to their responses by name and order. Also read: request bodies
// (`contents`, `systemInstruction` as a system message, `tools`, ...) and response
// bodies (`candidates[].content`, `usageMetadata`), written back as they were with
// their messages in place. Both part spellings are read (`functionCall` and
// Vertex's `function_call`).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "formats/format.h"

namespace convo {

int sniff_gemini(const JsonValue& record);
std::unique_ptr<Decoder> make_gemini_decoder();
std::unique_ptr<Encoder> make_gemini_encoder(LossReport& loss);
// Adds the systemInstruction `instruction` (a Content's JSON) to `system`: the first
// as it is, the parts of any more after its parts (several system messages are one
// instruction of their parts; read back, each part is a system message again).
void append_system_instruction(const std::string& instruction, JsonDoc& system);
// What a Gemini message carries that other formats have no place for: thought
// signatures on parts other than thoughts, members of a Content beyond role/parts.
void gemini_unmodelled(const Message& message, const std::function<void(std::string_view)>& unheld);

}  // namespace convo
