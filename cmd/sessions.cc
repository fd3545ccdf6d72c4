// convo sessions: one line per conversation, with its first prompt; find sessions
// by text or by the files their tools touched.
#include <memory>

#include "common.h"
#include "io/output.h"
#include "stages/sessions.h"

namespace convo::cli {

namespace {

struct SessionsArgs {
  InputArgs input;
  std::string format = "table";
  SessionsOptions options;
};

constexpr const char* k_sessions_help =
    R"(List the conversations in transcripts, one line each, with their first prompt.

Examples:
  convo sessions ~/.claude/projects
  convo sessions --touching src/main.cc ~/.claude/projects
  convo sessions --grep 'rate limit' --format json session.jsonl

Each line: the session id (Claude Code's sessionId, else the file's name), when
it started, how long it ran, its user and assistant messages, its tokens
(recorded usage, a split response once), its model, git branch, working
directory and first prompt (the first user text that is not a tool result or
command output, on one line). Subagent files count with their session. Sessions
are listed by start time. --grep keeps those whose text, tool inputs or tool
results contain TEXT; --touching those whose tool calls touched PATH: a
file_path, path or notebook_path input that is PATH, lies below it, or ends
with /PATH; for Bash, any word of the command that does (a best effort).)";

}  // namespace

void add_sessions(CLI::App& app, Runner& run) {
  auto args = std::make_shared<SessionsArgs>();
  CLI::App* sub =
      app.add_subcommand("sessions", "List conversations, one line each, with their first prompt");
  sub->description(k_sessions_help);
  sub->add_option("--format", args->format, "table or json (an array, one session a line)")
      ->capture_default_str()
      ->check(one_of({"table", "json"}, "--format value"));
  sub->add_option("--grep", args->options.grep,
                  "Only sessions whose text, tool inputs or results contain TEXT")
      ->option_text("TEXT");
  sub->add_option("--touching", args->options.touching,
                  "Only sessions whose tool calls touched PATH (a file or directory)")
      ->option_text("PATH");
  add_input_flags(*sub, args->input);
  sub->callback([args, &run] {
    run = [args] {
      auto list = std::make_shared<SessionList>(args->options);
      StreamOptions stream;
      stream.inputs = args->input.files;
      stream.read = read_options(args->input);
      stream.read.jobs = 1;  // one list, fed in input order
      return with_output(args->input, [&](Output& out) {
        StderrDiagnostics diagnostics;
        run_stream(
            stream, [list] { return std::make_unique<SessionsStage>(list); },
            [](Output&, LossReport&) { return std::make_unique<DiscardSink>(); }, out, diagnostics);
        std::vector<SessionSummary> sessions = list->sessions();
        out.write(args->format == "json" ? sessions_json(sessions) : sessions_table(sessions));
        return static_cast<int>(ExitCode::ok);
      });
    };
  });
}

}  // namespace convo::cli
