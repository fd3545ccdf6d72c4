// convo redact: write transcripts with the credentials check --secrets finds
// replaced by [REDACTED:rule].
#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "common.h"
#include "secrets_flags.h"
#include "stages/convert.h"
#include "stages/redact.h"

namespace convo::cli {

namespace {

struct RedactArgs {
  InputArgs input;
  SecretsArgs secrets;
  bool dry_run = false;
};

constexpr const char* k_redact_help =
    R"(Replace the credentials check --secrets finds with [REDACTED:rule].

Examples:
  convo redact session.jsonl -o clean.jsonl
  convo redact --dry-run session.jsonl

Each secret is replaced inside the decoded string that holds it, and the string
written escaped again, so the output stays valid JSON in its format; in JSON
carried in a string (an OpenAI tool call's arguments) the inner string is
redacted and the JSON written again. Records without secrets are written byte
for byte; a record with one is written compact, its members in their order.
Bad records pass as they are. The count goes to stderr ("convo: redacted 3
secrets in 2 records"). --dry-run writes, instead of the transcript, what would
change: FILE:LINE: RULE: PATH: MASKED. The rules and flags are check's; see
convo-redact(1).)";

int run_redact(const RedactArgs& args) {
  std::shared_ptr<const SecretScanner> scanner = make_scanner(args.secrets);
  StreamOptions stream;
  stream.inputs = args.input.files;
  stream.read = read_options(args.input);
  // A bad record is written as it is: redact changes secrets, nothing else.
  stream.read.on_error = OnError::keep;
  auto tally = std::make_shared<RedactTally>();
  int code = with_output(args.input, [&](Output& out) {
    NullDiagnostics quiet;
    run_stream(
        stream, [] { return std::make_unique<PassThrough>(); },
        redact_sink(scanner, args.dry_run, tally), out, quiet);
    return static_cast<int>(ExitCode::ok);
  });
  if (!args.input.quiet) {
    std::fflush(stdout);
    std::string line = fmt::format("convo: {} {} secret{} in {} record{}\n",
                                   args.dry_run ? "would redact" : "redacted",
                                   tally->secrets.load(), tally->secrets == 1 ? "" : "s",
                                   tally->records.load(), tally->records == 1 ? "" : "s");
    std::fputs(line.c_str(), stderr);
  }
  return code;
}

}  // namespace

void add_redact(CLI::App& app, Runner& run) {
  auto args = std::make_shared<RedactArgs>();
  CLI::App* sub =
      app.add_subcommand("redact", "Replace credentials in transcripts with [REDACTED:rule]");
  sub->description(k_redact_help);
  sub->add_flag("--dry-run", args->dry_run, "Write what would change (masked), not the transcript");
  add_secrets_flags(*sub, args->secrets);
  add_input_flags(*sub, args->input);
  sub->callback([args, &run] {
    check_secrets_flags(args->secrets);
    run = [args] { return run_redact(*args); };
  });
}

}  // namespace convo::cli
