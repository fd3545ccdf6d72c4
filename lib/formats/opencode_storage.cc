#include "formats/opencode_storage.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <system_error>
#include <vector>

#include "error.h"
#include "json.h"

namespace convo {

std::optional<std::string> opencode_with_stored_parts(std::string_view message_json,
                                                      std::string_view message_id,
                                                      const std::string& message_file) {
  namespace fs = std::filesystem;
  if (message_file.empty() || message_file == "-" || message_id.empty() ||
      message_id.find('/') != std::string_view::npos || message_id == "." || message_id == "..") {
    return std::nullopt;
  }
  std::error_code ec;
  fs::path dir = fs::path(message_file).parent_path() / ".." / ".." / "part" / fs::path(message_id);
  if (!fs::is_directory(dir, ec)) {
    return std::nullopt;
  }
  std::vector<fs::path> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".json" && entry.is_regular_file(ec)) {
      files.push_back(entry.path());
    }
  }
  // Part ids sort in the order they were made.
  std::sort(files.begin(), files.end());
  std::string out = "{\"info\":";
  out += message_json;
  out += ",\"parts\":[";
  bool first = true;
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) {
      throw Error(Location{std::make_shared<const std::string>(file.string())},
                  "cannot read this OpenCode part file");
    }
    JsonDoc doc;
    if (parse_json(text, doc) || !doc.IsObject()) {
      throw Error(Location{std::make_shared<const std::string>(file.string())},
                  "not an OpenCode part: a part file holds one JSON object");
    }
    out += first ? "" : ",";
    out += text;
    first = false;
  }
  out += "]}";
  return out;
}

}  // namespace convo
