// What the ai-sdk decoder and encoder share: how a part's media and tool output map
// to blocks, so that the encoder can tell whether a part it read is unchanged.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "json.h"
#include "message.h"

namespace convo::ai_sdk {

// True when `record` is a UIMessage (it has `parts`).
bool is_ui_message(const JsonValue& record);

// The block type of a file of `media_type`: image/*, audio/*, video/*, a document
// (PDF, text/*) or any other file.
BlockType media_block_type(std::string_view media_type);

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

}  // namespace convo::ai_sdk
