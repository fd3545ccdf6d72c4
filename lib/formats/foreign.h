// Records of formats convo does not read (yet): Gemini, the Vercel AI SDK, API error
// bodies, streams (which `convo assemble` reads), bare content blocks.
// Recognising them lets detection refuse such a file with a hint ("looks like Gemini
// contents (role/parts)") instead of reading it as the nearest format. They are all
// here, in one place, so that a reader for one of them replaces its recogniser.
#pragma once

#include <optional>
#include <string_view>

#include "json.h"

namespace convo {

// What `record` looks like when it is a record of a format convo does not read: a
// phrase for "looks like ...", e.g. "Gemini contents (role/parts)". nullopt when it
// is not recognisably one. Looks at a few members only: cheap enough for a file's
// first records and for records a decoder could not place.
std::optional<std::string_view> looks_foreign(const JsonValue& record);

// What `record` is when it is neither a transcript record convo reads nor a record of a
// known foreign format: "a JSON array", "an object with no \"role\"". For the hint of
// a record nothing claims.
std::string describe_unclaimed(const JsonValue& record);

}  // namespace convo
