// Every reader on every real transcript of its format in ../shared/corpus: decode
// then encode must give the same records (byte for byte for JSONL lines).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_util.h"

using namespace convo;
using namespace convo::test;
namespace fs = std::filesystem;

namespace {

struct CorpusFormat {
  const char* folder;
  Format format;
};

constexpr CorpusFormat k_corpus[] = {
    {"claude-code", Format::claude_code},
    {"anthropic-api", Format::anthropic},
    {"openai-chat", Format::openai},
    {"langchain", Format::langchain},
    {"opencode", Format::opencode},
    {"openai-responses", Format::openai_responses},
    {"codex", Format::codex},
    {"gemini", Format::gemini},
    {"gemini-cli", Format::gemini_cli},
};

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The input as convo writes it back: non-blank lines, LF-terminated.
std::string as_lines(const std::string& text) {
  std::string out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') {
      line.pop_back();
    }
    if (line.find_first_not_of(" \t") != std::string::npos) {
      out += line + "\n";
    }
  }
  return out;
}

}  // namespace

TEST_CASE("every corpus transcript round-trips through its own format", "[corpus]") {
  fs::path root = CONVO_CORPUS_DIR;
  if (!fs::is_directory(root)) {
    WARN("skipped: no corpus at " << root.string());
    return;
  }
  std::size_t files = 0;
  for (const CorpusFormat& corpus : k_corpus) {
    for (const auto& entry : fs::recursive_directory_iterator(root / corpus.folder)) {
      fs::path path = entry.path();
      if (!entry.is_regular_file() ||
          (path.extension() != ".jsonl" && path.extension() != ".json")) {
        continue;
      }
      ++files;
      std::string text = read_file(path);
      INFO(path.string());
      // Detection must find the format on its own...
      ConvertResult detected = convert_text(text, corpus.format, {std::nullopt, OnError::keep});
      // ...and naming it must give the same.
      ConvertResult named = convert_text(text, corpus.format, {corpus.format, OnError::keep});
      CHECK(detected.out == named.out);
      std::string lines = as_lines(text);
      std::string first_line = lines.substr(0, lines.find('\n'));
      JsonDoc doc;
      if (!parse_json(first_line, doc)) {
        // JSONL: the same bytes, line for line.
        CHECK(detected.out == lines);
      } else {
        // A document spanning lines: the same JSON.
        CHECK(json_equal_documents(text, detected.out));
      }
    }
  }
  CHECK(files > 1000);
}
