// OpenCode's record shapes and part kinds, for the opencode format's decoder and
// encoder only.
#pragma once

#include <string_view>

#include "json.h"

namespace convo::opencode {

// Step-start, step-finish, snapshot, patch and retry parts: they record how a
// message came about rather than what it says.
bool is_bookkeeping_part(std::string_view type);

// A message with its parts: `{"info": {... "role" ...}, "parts": [...]}`.
bool is_with_parts(const JsonValue& record);

// The document `opencode export` prints: `{"info": session, "messages": [...]}`.
bool is_export(const JsonValue& record);

// A message file of the older storage layout (a message's info alone).
bool is_message_info(const JsonValue& record);

}  // namespace convo::opencode
