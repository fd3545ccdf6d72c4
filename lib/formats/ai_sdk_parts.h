// What the ai-sdk decoder and encoders share: how a part's media and tool output map
// to blocks, so that the encoder can tell whether a part it read is unchanged, and
// how parts are written.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "formats/records.h"
#include "json.h"
#include "message.h"

namespace convo::ai_sdk {

// True when `record` is a UIMessage (it has `parts`).
bool is_ui_message(const JsonValue& record);

// The block type of a file of `media_type`: image/*, audio/*, video/*, a document
// (PDF, text/*) or any other file.
BlockType media_block_type(std::string_view media_type);

// The media type of `block` as a file part, which cannot be without one: its
// source's, else the one its kind implies (text/plain for a text source,
// application/pdf for a document, image/* for an image), else
// application/octet-stream.
std::string_view file_part_media_type(const Block& block);

// A media source from an AI SDK data member: a URL (http, https, data:), an OpenAI
// file id (`file-...`) or base64 data of `media_type`.
MediaSource media_source(std::string_view data, std::string_view media_type);

// The JSON text of `anthropic.cacheControl` in `options` (a part's or a message's
// providerOptions), or empty.
std::string anthropic_cache_control(const JsonValue* options);

// The signature of a reasoning part: `signature` of any provider in `options`
// (providerOptions / providerMetadata), or nullopt.
std::optional<std::string> provider_signature(const JsonValue* options);

// A tool-result part's `output` as a tool result's content, and whether it reports
// an error (error-text, error-json, execution-denied). `path` points at it.
void decode_output(const JsonValue& output, const std::string& path,
                   const std::shared_ptr<const Source>& owner, Content& content,
                   std::optional<bool>& is_error);

// A UI tool part's `output` as a tool result's content: a string as it is, any
// other JSON value as its text.
Content output_value_content(const JsonValue& output);

// The tool name of a UI tool part: `tool-NAME`'s NAME, else its `toolName`.
std::string_view ui_tool_name(const JsonValue& part);

// --- Writing ---

// Writes a tool call's input as the JSON value it is; input text that is not JSON
// is written as a string.
void write_input(JsonWriter& w, const Block& call);

// True when `block`, from another format, carries what the AI SDK keeps per provider
// (Anthropic's signature, redacted data, cache_control), which `write_provider_fields`
// writes as a part's `providerOptions` (a ModelMessage's) or `providerMetadata` (a
// UIMessage's).
bool has_provider_fields(const Block& block);
void write_provider_fields(JsonWriter& w, const Block& block);

// Builds UIMessages, as the AI SDK stores them (`{id, role, parts}`), from the turns
// of any format (ai_sdk_ui_encode.cc): an assistant turn's calls, their results
// (from the tool or user messages after them) and the assistant messages that
// continue it are one UIMessage, each step (an assistant message) begun by a
// step-start part. What a UIMessage cannot hold is reported to `drop`.
class UiMessageBuilder {
 public:
  using Drop = std::function<void(std::string_view what, const Message& message)>;
  explicit UiMessageBuilder(Drop drop) : m_drop(std::move(drop)) {}

  // Adds the turn `message` (a message of role system, developer, user, assistant or
  // tool); the UIMessages it completes are appended to `values`, one JSON text each.
  void add(const Message& message, Records& values);
  // Appends the UIMessage being built, if any.
  void flush(Records& values);
  bool open() const { return m_open; }

 private:
  struct Part {
    std::string json;  // a part ready to write; empty for a tool part
    // A tool part: its call, and its result once one comes.
    std::string call_id;
    std::string tool_name;
    std::string input;   // JSON
    std::string state;   // input-available, output-available or output-error
    std::string output;  // the result's text (output-available) or errorText
    std::string output_json;  // instead: the JSON value of an AI SDK `json` output
    std::string provider;     // the call's callProviderMetadata (JSON), or empty
  };

  void start(const Message& message, std::string_view role);
  void add_assistant(const Message& message);
  // Joins the tool results of `message` to the calls they answer.
  void add_results(const Message& message, const Content& results);
  void add_part(const Message& message, const Block& block, bool system);
  std::string id_for(const Message& message);

  Drop m_drop;
  bool m_open = false;
  std::string m_id;
  std::string m_role;
  std::vector<Part> m_parts;
  std::size_t m_made = 0;  // UIMessages begun
};

}  // namespace convo::ai_sdk
