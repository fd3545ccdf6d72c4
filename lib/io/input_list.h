// Which files a list of command-line inputs means: files as named, and for a
// directory every transcript file below it, in a stable order.
#pragma once

#include <string>
#include <vector>

#include "diagnostics.h"

namespace convo {

// True for the names a directory walk picks up: `*.jsonl`, `*.jsonl.gz`, `*.jsonl.zst`,
// and Gemini CLI's saved chats `session-*.json` (one JSON document each).
bool is_transcript_file_name(const std::string& name);

// Expands `inputs` in order: "-" and files stay as they are (whatever their name;
// compression is told by content), a directory becomes every file below it whose
// name `is_transcript_file_name`, sorted by path (byte order), so that the same tree
// always gives the same order. Below a directory argument, entries whose name starts
// with '.' (hidden files, `.git`) are left out, and symbolic links to directories are
// not followed (no cycles, no leaving the tree); links to files are read. Throws
// convo::Error (ExitCode::input) for a directory that cannot be read or holds no
// transcript file. Paths that do not exist are kept, so that opening them reports it.
// An entry with a transcript's name that cannot be read as a file (a dangling link, a
// link loop, a FIFO or socket) is left out with a warning to `diagnostics`; without
// `diagnostics`, it is an error.
std::vector<std::string> expand_inputs(const std::vector<std::string>& inputs,
                                       Diagnostics* diagnostics = nullptr);

}  // namespace convo
