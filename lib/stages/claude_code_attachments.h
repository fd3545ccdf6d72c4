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

}  // namespace convo
