#include "io/input_list.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "error.h"

namespace convo {

namespace fs = std::filesystem;

namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

[[noreturn]] void cannot_read(const fs::path& where, const std::error_code& error) {
  throw Error(fmt::format("{}: cannot read directory: {}", where.string(), error.message()));
}

void walk(const fs::path& directory, std::vector<std::string>& found) {
  std::error_code error;
  fs::directory_iterator it(directory, error);
  if (error) {
    cannot_read(directory, error);
  }
  for (; it != fs::directory_iterator(); it.increment(error)) {
    if (error) {
      cannot_read(directory, error);
    }
    const fs::directory_entry& entry = *it;
    std::string name = entry.path().filename().string();
    if (name.empty() || name[0] == '.') {
      continue;
    }
    std::error_code status_error;
    if (entry.is_symlink(status_error)) {
      // A link is read when it leads to a file, never walked into.
      if (is_transcript_file_name(name) && entry.is_regular_file(status_error)) {
        found.push_back(entry.path().string());
      }
      continue;
    }
    if (entry.is_directory(status_error)) {
      walk(entry.path(), found);
    } else if (is_transcript_file_name(name) && entry.is_regular_file(status_error)) {
      found.push_back(entry.path().string());
    }
  }
}

}  // namespace

bool is_transcript_file_name(const std::string& name) {
  return ends_with(name, ".jsonl") || ends_with(name, ".jsonl.gz") ||
         ends_with(name, ".jsonl.zst");
}

std::vector<std::string> expand_inputs(const std::vector<std::string>& inputs) {
  std::vector<std::string> out;
  out.reserve(inputs.size());
  for (const std::string& input : inputs) {
    std::error_code error;
    if (input == "-" || !fs::is_directory(input, error)) {
      out.push_back(input);
      continue;
    }
    std::vector<std::string> found;
    walk(fs::path(input), found);
    if (found.empty()) {
      throw Error(fmt::format("{}: no *.jsonl, *.jsonl.gz or *.jsonl.zst file in this directory",
                              input));
    }
    std::sort(found.begin(), found.end());
    out.insert(out.end(), std::make_move_iterator(found.begin()),
               std::make_move_iterator(found.end()));
  }
  return out;
}

}  // namespace convo
