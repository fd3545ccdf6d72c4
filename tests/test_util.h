// Helpers for the unit tests: run lib/ on in-memory transcripts.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diagnostics.h"
#include "formats/format.h"
#include "message.h"
#include "pipeline.h"
#include "sanitizer.h"

namespace convo::test {

// True in a build with AddressSanitizer, where code runs about 20 times slower: the
// widest generated sweeps take a deterministic sample there (every case still runs
// in the plain build), so that the sanitizer suite stays within CI's time.
#ifdef CONVO_ASAN
inline constexpr bool k_sanitized = true;
#else
inline constexpr bool k_sanitized = false;
#endif

// Keeps every warning as one line, `where: what`.
class CollectingDiagnostics final : public Diagnostics {
 public:
  void warning(const Location& where, std::string_view what) override;
  std::vector<std::string> lines;
};

// An opener serving `files` (name -> bytes) from memory.
Opener memory_files(std::map<std::string, std::string> files);

// The messages `text` (read as "in.jsonl") decodes to.
std::vector<Message> read_messages(const std::string& text, ReadOptions options = {});

struct ConvertResult {
  std::string out;
  std::vector<std::string> warnings;
};

// `convo convert --to <to>` on `text` (read as "in.jsonl").
ConvertResult convert_text(const std::string& text, Format to, ReadOptions options = {},
                           bool strict = false);

struct StageResult {
  std::string out;
  std::vector<std::string> warnings;
};

// Runs a stage made by `make_stage` on `text` (read as "in.jsonl") and writes what
// it passes on through a sink from `make_sink` (by default, each message in its own
// format, as the subcommands that write transcripts do).
StageResult run_stage_on(const std::string& text, const StageFactory& make_stage,
                         const SinkFactory& make_sink = {}, ReadOptions options = {});

// A real transcript from ../shared/corpus: its path, text and format.
struct CorpusFile {
  std::string path;
  std::string text;
  Format format;
};

// Every transcript of the corpus (.jsonl and .json files of the claude-code,
// anthropic-api and openai-chat folders); empty when there is no corpus.
std::vector<CorpusFile> corpus_files();

// Encodes `messages` (consumed) in `to` and returns the output.
std::string encode_all(std::vector<Message>& messages, Format to);

// A Claude Code record as one JSONL line: its type, uuid and parentUuid (null when
// empty), sessionId "s", and `members` (JSON object members, without braces).
std::string cc_line(std::string_view type, std::string_view uuid, std::string_view parent,
                    std::string_view members);
// A Claude Code user record whose message content is `content` (JSON).
std::string cc_user(std::string_view uuid, std::string_view parent, std::string_view content);
// A Claude Code assistant record, piece of the response `message_id`, content `content` (JSON).
std::string cc_assistant(std::string_view uuid, std::string_view parent,
                         std::string_view message_id, std::string_view content);

// The contents of the file at `path`.
std::string read_file(const std::string& path);

// The NN.request.json files under `folder` (recursively, sorted) that the API
// answered with a response rather than an error (NN.response.json, or an
// NN.response.sse stream without an error event).
std::vector<std::string> accepted_requests(const std::string& folder);

// True when `a` and `b` hold the same sequence of JSON values (one per line, or
// values spanning lines), compared as JSON.
bool json_equal_documents(const std::string& a, const std::string& b);

}  // namespace convo::test
