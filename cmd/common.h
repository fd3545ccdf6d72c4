// What the subcommands share: the input flags, value checks with "did you mean"
// hints, the stderr diagnostics, and the signature every subcommand file exports.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "conversation.h"
#include "diagnostics.h"
#include "formats/format.h"
#include "pipeline.h"
#include "text_match.h"

namespace convo::cli {

// Set by the chosen subcommand's callback; main() runs it after parsing.
using Runner = std::function<int()>;

// The flags every subcommand has: FILE... (files, directories, -), --from,
// --on-error, --output, and the run-wide -j/--jobs, -q/--quiet, --progress.
struct InputArgs {
  std::vector<std::string> files;
  std::string from = "auto";
  std::string on_error = "fail";
  std::string output;  // empty: standard output
  unsigned jobs = 1;   // inputs processed at once; 0: one per CPU
  bool quiet = false;     // no progress line
  bool progress = false;  // a progress line even when stderr is not a terminal
  std::string max_record_size = "1G";  // --max-record-size: bytes, or with K, M, G
  bool mmap = false;  // --mmap: regular files through a mapping, not read(2)
};

void add_input_flags(CLI::App& sub, InputArgs& args);
// The read options the flags ask for, with the run's progress counters attached
// when a progress line will be shown.
ReadOptions read_options(const InputArgs& args);

// Runs `body` on the output --output names (standard output without it) and returns
// what `body` returns. A file named by --output appears only when `body` returns:
// a run that throws leaves no file behind, and the old file, if any, untouched.
// While `body` runs, the progress line is drawn on stderr when stderr is a terminal
// (or --progress), unless --quiet.
int with_output(const InputArgs& args, const std::function<int(Output& out)>& body);

// The flags of every subcommand that writes transcripts: --to, --strict.
struct OutputArgs {
  std::string to;  // empty: each message in its input's format
  bool strict = false;
};

// Adds --to (required for convert, else optional) and --strict.
void add_output_flags(CLI::App& sub, OutputArgs& args, bool to_required = false);
StreamOptions stream_options(const InputArgs& input, const OutputArgs& output);

// Runs a subcommand: reads the inputs, runs a stage from `make_stage` on each, gives
// what it passes on to sinks from `make_sink` (by default, transcripts written in
// --to or each input's format), writes the output, prints warnings. Returns the exit
// code. With `explain_empty`, an input that gives nothing is warned about, with why
// (ReadOptions::explain_empty).
int run_stream_command(const InputArgs& input, const OutputArgs& output,
                       const StageFactory& make_stage, const SinkFactory& make_sink = {},
                       bool explain_empty = false);

// The flag of the subcommands that work on one whole conversation at a time (trim,
// normalize-for-api, check): --group-by session|file.
struct ConversationArgs {
  std::string group_by = "session";
};

void add_conversation_flags(CLI::App& sub, ConversationArgs& args);
GroupBy group_by(const ConversationArgs& args);

// Format names for --to (and, with `with_auto`, for --from).
std::vector<std::string> format_choices(bool with_auto);

// A check that the value is one of `choices`; a near miss gets a hint:
// "unknown format 'opnai' (did you mean 'openai'?)". The check is named "one_of"
// and its description lists the choices, which is how completions find them.
CLI::Validator one_of(std::vector<std::string> choices, std::string what);

// A check that the value is a list of message type names (convo(1), TYPES), with a
// hint for a near miss.
CLI::Validator type_names();

// Writes `text` to stderr, unbuffered. Never throws and never aborts: a closed or
// full stderr (2>&-, 2>/dev/full) loses the text, and the exit code still tells.
void write_stderr(std::string_view text) noexcept;

// A flag's value given as TEXT or @FILE (`--system @prompt.md`): the text, or the
// contents of FILE (`-` is standard input). Throws convo::Error when FILE cannot be read.
std::string text_or_file(const std::string& argument);

// Prints warnings to stderr: `convo: FILE:LINE:COL: warning: what`.
class StderrDiagnostics final : public Diagnostics {
 public:
  void warning(const Location& where, std::string_view what) override;
};

// One registration function per subcommand file, in the order of man/convo.1.
void add_convert(CLI::App& app, Runner& run);
void add_normalize_for_api(CLI::App& app, Runner& run);
void add_check(CLI::App& app, Runner& run);
void add_redact(CLI::App& app, Runner& run);
void add_usage(CLI::App& app, Runner& run);
void add_sessions(CLI::App& app, Runner& run);
void add_split_blocks(CLI::App& app, Runner& run);
void add_filter(CLI::App& app, Runner& run);
void add_merge_runs(CLI::App& app, Runner& run);
void add_buffer_string(CLI::App& app, Runner& run);
void add_trim(CLI::App& app, Runner& run);
void add_assemble(CLI::App& app, Runner& run);
void add_stream(CLI::App& app, Runner& run);
void add_render(CLI::App& app, Runner& run);
// Not a transcript subcommand: `convo completions SHELL` (cmd/completions.cc).
void add_completions(CLI::App& app, Runner& run);

}  // namespace convo::cli
