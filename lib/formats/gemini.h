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
// What a Gemini message carries that other formats have no place for: thought
// signatures on parts other than thoughts, members of a Content beyond role/parts.
void gemini_unmodelled(const Message& message, const std::function<void(std::string_view)>& unheld);

// --- Shared with gemini-cli (whose records hold Gemini parts) ---

// Decodes the Gemini part `part` (at `path`) into `block`, pointing it at its JSON.
void decode_gemini_part(const JsonValue& part, const std::string& path,
                        const std::shared_ptr<const Source>& owner, Block& block);

// Decodes the array of parts `parts` (at `path`) into `content` (made blocks).
void decode_gemini_parts(const JsonValue& parts, const std::string& path,
                         const std::shared_ptr<const Source>& owner, Content& content);

// Gives tool calls without an id one (`gemini-call-N`) and their responses the id
// of the earliest unanswered call of the same name: Gemini links calls and
// responses by name and order when the API left the ids out. One per input.
class CallLinker {
 public:
  void link(Content& content);

 private:
  static constexpr std::size_t k_open_calls = 64;  // unanswered calls remembered
  std::size_t m_next = 0;
  std::vector<std::pair<std::string, std::string>> m_open;  // name, id
};

// True for an id `CallLinker` made up: writers of Gemini parts leave it out.
bool is_made_up_call_id(std::string_view id);

// Writes blocks as Gemini parts. `own`: the blocks' JSON is Gemini's (their
// message came from gemini or gemini-cli), so members convo does not model are
// kept. `drop` reports what a part cannot hold.
class GeminiPartWriter {
 public:
  using Drop = std::function<void(std::string_view what)>;
  GeminiPartWriter(bool own, Drop drop) : m_own(own), m_drop(std::move(drop)) {}

  // True when `block` can be written as a part; reports the loss when not.
  bool holds(const Block& block) const;
  // Writes `block` (one that `holds`). `tool_name` names a tool_result's tool.
  void write(JsonWriter& w, const Block& block, std::string_view tool_name) const;
  // Writes the `response` object of a functionResponse for `result`.
  static void write_response(JsonWriter& w, const Block& result);

 private:
  bool m_own;
  Drop m_drop;
};

}  // namespace convo
