// Claude Code's attachment records rendered as the user text the model saw
// (its normalizeAttachmentForAPI): a part of normalize-for-api, apart because the
// table of kinds grows with each Claude Code release.
#pragma once

#include <string>

#include "json.h"

namespace convo {

// The text the model saw for an attachment (the record's `attachment` member), or ""
// for kinds that carry nothing for it. Without the <system-reminder> wrapping.
std::string claude_code_attachment_text(const JsonValue& attachment);

// How Claude Code sends the text of a task notification (a user record whose
// origin.kind is "task-notification"): framed as a system notification, not user input.
std::string claude_code_task_notification(std::string_view text);

// Whether a Claude Code record (its JSON) is a task notification Claude Code frames so.
bool is_claude_code_task_notification(const JsonValue& record);

}  // namespace convo
