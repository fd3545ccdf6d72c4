#include "test_util.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/output.h"
#include "stages/convert.h"

namespace convo::test {

void CollectingDiagnostics::warning(const Location& where, std::string_view what) {
  std::string place = where.str();
  lines.push_back(place.empty() ? std::string(what) : place + ": " + std::string(what));
}

Opener memory_files(std::map<std::string, std::string> files) {
  return [files = std::move(files)](const std::string& path) {
    auto it = files.find(path);
    if (it == files.end()) {
      throw Error(path + ": cannot open: No such file or directory");
    }
    return memory_source(it->second);
  };
}

namespace {
class Collect final : public InputHandler {
 public:
  void message(Message&& message) override { messages.push_back(std::move(message)); }
  std::vector<Message> messages;
};
}  // namespace

std::vector<Message> read_messages(const std::string& text, ReadOptions options) {
  Collect collect;
  NullDiagnostics diagnostics;
  read_inputs({"in.jsonl"}, options, collect, diagnostics, memory_files({{"in.jsonl", text}}));
  return std::move(collect.messages);
}

ConvertResult convert_text(const std::string& text, Format to, ReadOptions options, bool strict) {
  StreamOptions convert_options;
  convert_options.inputs = {"in.jsonl"};
  convert_options.read = options;
  convert_options.to = to;
  convert_options.strict = strict;
  StringOutput out;
  CollectingDiagnostics diagnostics;
  convert(convert_options, out, diagnostics, memory_files({{"in.jsonl", text}}));
  return {out.str(), diagnostics.lines};
}

std::string cc_line(std::string_view type, std::string_view uuid, std::string_view parent,
                    std::string_view members) {
  std::string parent_json = parent.empty() ? "null" : "\"" + std::string(parent) + "\"";
  return "{\"type\":\"" + std::string(type) + "\",\"uuid\":\"" + std::string(uuid) +
         "\",\"parentUuid\":" + parent_json + ",\"sessionId\":\"s\"" +
         (members.empty() ? "" : ",") + std::string(members) + "}\n";
}

std::string cc_user(std::string_view uuid, std::string_view parent, std::string_view content) {
  return cc_line("user", uuid, parent,
                 "\"message\":{\"role\":\"user\",\"content\":" + std::string(content) + "}");
}

std::string cc_assistant(std::string_view uuid, std::string_view parent,
                         std::string_view message_id, std::string_view content) {
  return cc_line("assistant", uuid, parent,
                 "\"message\":{\"id\":\"" + std::string(message_id) +
                     "\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-test\","
                     "\"content\":" +
                     std::string(content) + "}");
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

namespace {

bool accepted(const std::string& request) {
  std::string base = request.substr(0, request.size() - std::strlen(".request.json"));
  namespace fs = std::filesystem;
  if (fs::exists(base + ".response.json")) {
    JsonDoc response;
    std::string text = read_file(base + ".response.json");
    return !parse_json(text, response) && (string_member(response, "type") == "message" ||
                                           find_member(response, "choices") != nullptr);
  }
  if (fs::exists(base + ".response.sse")) {
    return read_file(base + ".response.sse").find("event: error") == std::string::npos;
  }
  return false;
}

}  // namespace

std::vector<std::string> accepted_requests(const std::string& folder) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (const auto& entry : fs::recursive_directory_iterator(folder)) {
    std::string path = entry.path().string();
    constexpr std::string_view k_suffix = ".request.json";
    if (path.size() > k_suffix.size() &&
        path.compare(path.size() - k_suffix.size(), k_suffix.size(), k_suffix) == 0 &&
        accepted(path)) {
      out.push_back(path);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

StageResult run_stage_on(const std::string& text, const StageFactory& make_stage,
                         const SinkFactory& make_sink, ReadOptions options) {
  StreamOptions stream;
  stream.inputs = {"in.jsonl"};
  stream.read = options;
  StringOutput out;
  CollectingDiagnostics diagnostics;
  run_stream(stream, make_stage, make_sink ? make_sink : format_sink(std::nullopt), out,
             diagnostics, memory_files({{"in.jsonl", text}}));
  return {out.str(), diagnostics.lines};
}

std::vector<CorpusFile> corpus_files() {
  namespace fs = std::filesystem;
  static constexpr std::pair<const char*, Format> k_folders[] = {
      {"claude-code", Format::claude_code},
      {"anthropic-api", Format::anthropic},
      {"openai-chat", Format::openai},
  };
  std::vector<CorpusFile> files;
  fs::path root = CONVO_CORPUS_DIR;
  if (!fs::is_directory(root)) {
    return files;
  }
  for (const auto& [folder, format] : k_folders) {
    for (const auto& entry : fs::recursive_directory_iterator(root / folder)) {
      const fs::path& path = entry.path();
      if (!entry.is_regular_file() ||
          (path.extension() != ".jsonl" && path.extension() != ".json")) {
        continue;
      }
      std::ifstream in(path, std::ios::binary);
      std::ostringstream text;
      text << in.rdbuf();
      files.push_back({path.string(), text.str(), format});
    }
  }
  return files;
}

std::string encode_all(std::vector<Message>& messages, Format to) {
  StringOutput out;
  LossReport loss;
  auto encoder = format_info(to).make_encoder(loss);
  for (Message& message : messages) {
    encoder->write(std::move(message), out);
  }
  encoder->finish(out);
  return out.str();
}

namespace {
std::vector<std::unique_ptr<JsonDoc>> parse_all(const std::string& text) {
  std::vector<std::unique_ptr<JsonDoc>> docs;
  std::size_t pos = 0;
  while (true) {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\n' || text[pos] == '\r' ||
                                 text[pos] == '\t')) {
      ++pos;
    }
    if (pos >= text.size()) {
      break;
    }
    auto doc = std::make_unique<JsonDoc>();
    std::size_t consumed = 0;
    if (parse_json_prefix(std::string_view(text).substr(pos), *doc, consumed)) {
      return {};
    }
    pos += consumed;
    docs.push_back(std::move(doc));
  }
  return docs;
}
}  // namespace

bool json_equal_documents(const std::string& a, const std::string& b) {
  auto x = parse_all(a);
  auto y = parse_all(b);
  if (x.size() != y.size() || x.empty()) {
    return false;
  }
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (*x[i] != *y[i]) {
      return false;
    }
  }
  return true;
}

}  // namespace convo::test
