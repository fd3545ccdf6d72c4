// convo check: report what an API would reject in recorded conversations, for CI.
#include <atomic>
#include <memory>

#include "common.h"
#include "stages/check.h"

namespace convo::cli {

namespace {

struct CheckArgs {
  InputArgs input;
  ConversationArgs conversation;
  std::string target;  // empty: by each input's format
  std::string format = "text";
};

constexpr const char* k_check_help =
    R"(Check conversations against an API's rules and the files' own integrity.

Examples:
  convo check session.jsonl
  convo check --for openai --format json chat.jsonl
  convo normalize-for-api session.jsonl | convo check

Reports every problem as FILE:LINE: rule: message (or a JSON object per line with
--format json) and exits 1 when there are any, 0 when there are none, 3 when an
input cannot be read. Bad records are reported (malformed-line), not fatal.
A Claude Code session is checked as the request it would become if it were sent
as recorded: its main thread and each subagent's, the records of one response
joined, nothing repaired. See convo-check(1) for every rule.)";

}  // namespace

void add_check(CLI::App& app, Runner& run) {
  auto args = std::make_shared<CheckArgs>();
  CLI::App* sub = app.add_subcommand("check", "Check conversations against an API's rules, for CI");
  sub->description(k_check_help);
  sub->add_option("--for", args->target,
                  "Whose rules: anthropic or openai (default: the API each input's format feeds)")
      ->check(one_of({"anthropic", "openai"}, "--for value"));
  sub->add_option("--format", args->format,
                  "Report format: text (FILE:LINE: rule: message) or json (one object per line)")
      ->capture_default_str()
      ->check(one_of({"text", "json"}, "--format value"));
  add_conversation_flags(*sub, args->conversation);
  add_input_flags(*sub, args->input);
  sub->callback([args, &run] {
    run = [args] {
      CheckOptions options;
      options.target = args->target == "openai" ? CheckTarget::openai : CheckTarget::anthropic;
      options.by_format = args->target.empty();
      ReportFormat format = args->format == "json" ? ReportFormat::json : ReportFormat::text;
      StreamOptions stream;
      stream.inputs = args->input.files;
      stream.read = read_options(args->input);
      // A bad record is a problem to report, not a reason to stop.
      stream.read.on_error = OnError::keep;
      GroupBy grouping = group_by(args->conversation);
      auto problems = std::make_shared<std::atomic<std::uint64_t>>(0);
      return with_output(args->input, [&](Output& out) {
        // The report says all there is to say about bad records.
        NullDiagnostics quiet;
        run_stream(
            stream, [grouping] { return make_check_stage(grouping); },
            check_sink(options, format, problems), out, quiet);
        return static_cast<int>(*problems > 0 ? ExitCode::problems : ExitCode::ok);
      });
    };
  });
}

}  // namespace convo::cli
