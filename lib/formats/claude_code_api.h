// How Claude Code turns its session records into what the model sees when it
// resumes a session (what normalize-for-api reproduces): attachment records rendered
// as user text (its normalizeAttachmentForAPI; the table of kinds grows with each
// Claude Code release), task notifications framed, tool searches marked, API error
// records and tombstones left out.
#pragma once

#include <string>
#include <vector>

#include "json.h"
#include "message.h"

namespace convo {

// The text the model saw for an attachment (the record's `attachment` member), or ""
// for kinds that carry nothing for it. Without the <system-reminder> wrapping.
std::string claude_code_attachment_text(const JsonValue& attachment);

// How Claude Code sends the text of a task notification (a user record whose
// origin.kind is "task-notification"): framed as a system notification, not user input.
std::string claude_code_task_notification(std::string_view text);

// Whether a Claude Code record (its JSON) is a task notification Claude Code frames so.
bool is_claude_code_task_notification(const JsonValue& record);

// Follows the result of a tool search (a tool_result holding tool_reference blocks)
// with the text "Tool loaded.", as Claude Code does, unless the record has it.
void mark_tools_loaded(Message& record);

// Frames a task notification's text as Claude Code sends it: string content stays a
// string; the text blocks of a list become one, ahead of the other blocks.
void frame_task_notification(Message& record);

// Whether Claude Code leaves `record` out as an API error message: it must be marked
// isApiErrorMessage and its model be <synthetic>; other formats' error records carry
// the flag alone.
bool is_api_error_message(const Message& record);

// Applies tombstone records ({"type":"tombstone","message":{"uuid":...}}, in Claude
// Code's SDK stream output): each takes back the last message before it with that
// uuid (made Kind::unknown, so that its place in the session tree stays).
void apply_tombstones(std::vector<Message>& records);

}  // namespace convo
