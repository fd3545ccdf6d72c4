// Older OpenCode storage (formats.md §6): one JSON file per message,
// storage/message/<sessionID>/<messageID>.json, and its parts apart, one file each,
// storage/part/<messageID>/<partID>.json. A message file read alone gets its parts
// from there.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace convo {

// The message in `message_json`, read from `message_file`, joined with its stored
// parts as one OpenCode `{"info":...,"parts":[...]}` object (parts in id order), when
// `message_file`'s ../../part/<messageID>/ directory exists; nullopt when it does not.
// Throws convo::Error for a part file that cannot be read.
std::optional<std::string> opencode_with_stored_parts(std::string_view message_json,
                                                      std::string_view message_id,
                                                      const std::string& message_file);

}  // namespace convo
