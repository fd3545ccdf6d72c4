// Anthropic-shaped content (a string or a list of typed blocks), shared by the
// anthropic and claude-code formats, whose `message.content` is the same thing.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "formats/format.h"
#include "message.h"

namespace convo {

// Called with a plural noun phrase ("audio blocks") for each thing that cannot be
// written.
using DropFn = std::function<void(std::string_view what)>;

// True for formats whose content blocks are Anthropic blocks, so a block from one
// keeps its unmodelled members when written in another.
bool uses_anthropic_blocks(Format format);

// True for formats whose tool calls are calls of Claude Code's own tools (its session
// logs), so that a tool Claude Code has since renamed goes under its new name.
bool calls_claude_code_tools(Format format);

// Whether the anthropic encoder writes `block` (else it drops and counts it): blocks
// of its own (`keep_members`: the block came from an Anthropic-block format and
// keeps its JSON), and the media and blocks of other formats it can convert.
bool anthropic_can_hold(const Block& block, bool keep_members);

// Decodes `value` (the `content` member, or nullptr when it is missing) found at JSON
// pointer `path` of `source`'s document.
void decode_anthropic_content(const JsonValue* value, const std::string& path,
                              const std::shared_ptr<const Source>& source, Content& out);

// Reads the `source` member of a media block at `path` (base64, url, file or text;
// AgentScope's blocks have the same) into `out`; leaves it empty when there is none.
void decode_anthropic_source(const JsonValue& block, const std::string& path, MediaSource& out);

// Reads the members of an Anthropic response object at `path` (id, model,
// stop_reason, usage) into `message`, where present.
void decode_anthropic_response_fields(const JsonValue& object, const std::string& path,
                                      Message& message);

// Reads an Anthropic `role` string into `message.role` (unknown roles are custom).
void decode_anthropic_role(std::string_view role, Message& message);

// Writes `source` as an Anthropic media block's `source` object (base64, url, file or
// text; AgentScope's blocks have the same), with a `media_type` for a URL too when
// `url_media_type` says so (AgentScope 2.x).
void write_anthropic_source(JsonWriter& w, const MediaSource& source, bool url_media_type = false);

// Writes `content` as Anthropic content. `keep_members` says the blocks came from an
// Anthropic-shaped format and keep what convo does not model.
void write_anthropic_content(JsonWriter& writer, const Content& content, bool keep_members,
                             const DropFn& drop);
// Writes `blocks` as Anthropic content, a list: some blocks of a message's content.
void write_anthropic_blocks(JsonWriter& writer, std::span<const Block> blocks, bool keep_members,
                            const DropFn& drop);

// True when `content` is blocks of which Anthropic can hold none (an encrypted
// Responses reasoning item), after counting each through `drop`: the caller then
// writes no message, rather than an empty one the API rejects and that would read
// back as a turn of its own.
bool anthropic_drops_all(const Content& content, bool keep_members, const DropFn& drop);

// Calls `unheld` with each member of `content`'s text, thinking, tool_use and
// tool_result blocks (read from an Anthropic-block format) that convo does not model
// ("caller of tool_use blocks", "citations of text blocks"), for the loss report of a
// conversion to a format whose blocks are not Anthropic's.
void anthropic_block_members(const Content& content, const DropFn& unheld);

}  // namespace convo
