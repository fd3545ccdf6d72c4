// Gemini API parts, shared by the gemini and gemini-cli formats (Gemini CLI's
// records hold Gemini parts): reading a part into a block, linking calls without ids
// to their responses, and writing blocks back as parts.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/format.h"

namespace convo {

// The evidence a JSON value gives that it is a Gemini part: 3 for a part only
// Gemini has (functionCall, inlineData, thoughtSignature, ...), 1 for a bare text
// part, -1 for a typed part (another format's), 0 otherwise.
int sniff_gemini_part(const JsonValue& part);

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

// True when `part` spells a member the protobuf (Vertex) way: `function_call`, ...
bool has_snake_case_spelling(const JsonValue& part);

// True for an id `CallLinker` made up: writers of Gemini parts leave it out.
bool is_made_up_call_id(std::string_view id);
// The `n`th id made up for a call without one (`gemini-call-N`), as `CallLinker` makes them.
std::string made_up_call_id(std::size_t n);

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
  // True when a tool result's content has media, that a functionResponse holds in
  // its `parts`.
  static bool has_media(const Content& result);
  // Writes the `parts` of a functionResponse: `result`'s media blocks.
  void write_response_parts(JsonWriter& w, const Block& result) const;

 private:
  bool m_own;
  Drop m_drop;
};

}  // namespace convo
