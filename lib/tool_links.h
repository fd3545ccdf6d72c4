// Which records belong together around tool calls and API responses: a tool_use
// block is a call with an id; tool_result blocks answer the call they name; Claude
// Code's progress and system records that run during a call name it in their
// envelope; and Claude Code writes each content block of one API response as its
// own assistant record, all sharing the response's id.
#pragma once

#include <string_view>

#include "message.h"

namespace convo {

// The id of the tool call `block` answers (a tool_result's tool_use_id), or "" for
// any other block.
std::string_view answered_call(const Block& block);

// The id of the tool call a record that is not a conversation turn belongs to: a
// Claude Code progress record's parentToolUseID or a system record's toolUseID
// (hook notices, agent progress). "" for turns and for records of no call. Such ids
// are not always tool_use ids (session hooks name a uuid), so only compare them
// with ids of calls.
std::string_view owning_call(const Message& message);

// True when `a` and `b` are pieces of one API response: assistant records with the
// same, non-empty response id (`message.id` in Claude Code).
bool same_response(const Message& a, const Message& b);

}  // namespace convo
