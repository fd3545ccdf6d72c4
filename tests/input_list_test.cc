#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "error.h"
#include "io/input_list.h"

using namespace convo;
namespace fs = std::filesystem;

namespace {

// A fresh directory under the system's temporary folder, removed at the end.
struct TempDir {
  TempDir() {
    path = fs::temp_directory_path() / ("convo-test-" + std::to_string(::getpid()));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  void file(const std::string& name) const {
    fs::create_directories((path / name).parent_path());
    std::ofstream(path / name) << "{}\n";
  }
  fs::path path;
};

}  // namespace

TEST_CASE("transcript file names", "[input_list]") {
  CHECK(is_transcript_file_name("a.jsonl"));
  CHECK(is_transcript_file_name("a.jsonl.gz"));
  CHECK(is_transcript_file_name("a.jsonl.zst"));
  CHECK_FALSE(is_transcript_file_name("a.json"));
  CHECK(is_transcript_file_name("session-2026-01-10T01-46-1deca764.json"));  // Gemini CLI
  CHECK_FALSE(is_transcript_file_name("package.json"));
  CHECK_FALSE(is_transcript_file_name("a.jsonl.bak"));
}

TEST_CASE("a directory becomes its transcripts in path order", "[input_list]") {
  TempDir dir;
  for (const char* name : {"b/2.jsonl", "b/10.jsonl.gz", "a.jsonl", "c/d/e.jsonl.zst", "notes.txt",
                           ".hidden/x.jsonl", "b/.x.jsonl"}) {
    dir.file(name);
  }
  fs::create_directory_symlink(dir.path / "b", dir.path / "c" / "loop");
  fs::create_symlink(dir.path / "a.jsonl", dir.path / "c" / "link.jsonl");
  std::string root = dir.path.string();
  std::vector<std::string> expected = {root + "/a.jsonl", root + "/b/10.jsonl.gz",
                                       root + "/b/2.jsonl", root + "/c/d/e.jsonl.zst",
                                       root + "/c/link.jsonl"};
  CHECK(expand_inputs({root}) == expected);
  // Files and "-" stay as named, in order, around the directory's files.
  std::vector<std::string> mixed = expand_inputs({"-", root + "/notes.txt", root + "/c/d"});
  CHECK(mixed == std::vector<std::string>{"-", root + "/notes.txt", root + "/c/d/e.jsonl.zst"});
  // A missing path is kept, for the open to report.
  CHECK(expand_inputs({"no/such/file"}) == std::vector<std::string>{"no/such/file"});
}

TEST_CASE("a directory without transcripts is an error", "[input_list]") {
  TempDir dir;
  dir.file("x.txt");
  CHECK_THROWS_AS(expand_inputs({dir.path.string()}), Error);
}
