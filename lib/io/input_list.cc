#include "io/input_list.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>

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

// Entries with a transcript's name that are not read, and why: said (in path order,
// like the files), never skipped silently.
using Unreadable = std::vector<std::pair<std::string, std::string>>;

void report_unreadable(Unreadable& entries, Diagnostics* diagnostics) {
  std::sort(entries.begin(), entries.end());
  for (const auto& [path, why] : entries) {
    std::string what = fmt::format("left out: {}", why);
    if (diagnostics == nullptr) {
      throw Error(fmt::format("{}: {}", path, what));
    }
    diagnostics->warning(Location{std::make_shared<const std::string>(path)}, what);
  }
}

// Why `entry` (named like a transcript) cannot be read as a file, or "" when it can.
std::string not_a_file(const fs::directory_entry& entry) {
  std::error_code error;
  fs::file_status status = fs::status(entry.path(), error);
  if (error) {
    if (entry.is_symlink()) {
      return error == std::errc::too_many_symbolic_link_levels
                 ? "a symbolic link loop"
                 : fmt::format("a symbolic link that leads nowhere ({})", error.message());
    }
    return error.message();
  }
  switch (status.type()) {
    case fs::file_type::regular:
      return "";
    case fs::file_type::directory:
      return entry.is_symlink() ? "" : "a directory";
    case fs::file_type::fifo:
      return "a FIFO (named pipe), not a file";
    case fs::file_type::socket:
      return "a socket, not a file";
    case fs::file_type::block:
    case fs::file_type::character:
      return "a device, not a file";
    default:
      return "not a regular file";
  }
}

void walk(const fs::path& directory, std::vector<std::string>& found, Unreadable& unreadable) {
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
    bool link = entry.is_symlink(status_error);
    if (!link && entry.is_directory(status_error)) {
      walk(entry.path(), found, unreadable);
      continue;
    }
    if (!is_transcript_file_name(name)) {
      continue;
    }
    // A link is read when it leads to a file, never walked into.
    std::string why = not_a_file(entry);
    if (why.empty()) {
      if (!fs::is_directory(entry.path(), status_error)) {
        found.push_back(entry.path().string());
      }
    } else {
      unreadable.emplace_back(entry.path().string(), std::move(why));
    }
  }
}

}  // namespace

bool is_transcript_file_name(const std::string& name) {
  return ends_with(name, ".jsonl") || ends_with(name, ".jsonl.gz") ||
         ends_with(name, ".jsonl.zst") ||
         (name.starts_with("session-") && ends_with(name, ".json"));  // Gemini CLI's chats
}

std::vector<std::string> expand_inputs(const std::vector<std::string>& inputs,
                                       Diagnostics* diagnostics) {
  std::vector<std::string> out;
  out.reserve(inputs.size());
  for (const std::string& input : inputs) {
    std::error_code error;
    if (input == "-" || !fs::is_directory(input, error)) {
      out.push_back(input);
      continue;
    }
    std::vector<std::string> found;
    Unreadable unreadable;
    walk(fs::path(input), found, unreadable);
    report_unreadable(unreadable, diagnostics);
    if (found.empty()) {
      throw Error(fmt::format(
          "{}: no *.jsonl, *.jsonl.gz, *.jsonl.zst or session-*.json file in this directory",
          input));
    }
    std::sort(found.begin(), found.end());
    out.insert(out.end(), std::make_move_iterator(found.begin()),
               std::make_move_iterator(found.end()));
  }
  return out;
}

}  // namespace convo
