// convo convert: transcripts from one format to another.
#include <unistd.h>

#include <memory>

#include "common.h"
#include "io/output.h"
#include "stages/convert.h"

namespace convo::cli {

namespace {

struct ConvertArgs {
  InputArgs input;
  std::string to;
  bool strict = false;
};

int run_convert(const ConvertArgs& args) {
  ConvertOptions options;
  options.inputs = args.input.files;
  options.read = read_options(args.input);
  options.to = *parse_format(args.to);
  options.strict = args.strict;
  FdOutput out(STDOUT_FILENO);
  StderrDiagnostics diagnostics;
  convert(options, out, diagnostics);
  return static_cast<int>(ExitCode::ok);
}

constexpr const char* k_help = R"(Convert transcripts between formats.

Examples:
  convo convert --to openai session.jsonl > chat.jsonl
  convo convert --to anthropic --strict chat.jsonl
  convo convert --from anthropic --to claude-code request.json

Messages that were not changed and are written in their own format come out
byte for byte. What the target format cannot hold (thinking blocks in openai,
progress records in anthropic, ...) is dropped and counted on stderr; --strict
makes any loss an error. See convo-convert(1) for every mapping.)";

}  // namespace

void add_convert(CLI::App& app, Runner& run) {
  auto args = std::make_shared<ConvertArgs>();
  CLI::App* sub = app.add_subcommand("convert", "Convert transcripts between formats");
  sub->description(k_help);
  sub->add_option("--to", args->to, "Output format: " + format_names())
      ->required()
      ->check(one_of(format_choices(false), "format"));
  sub->add_flag("--strict", args->strict,
                "Fail (exit 3) instead of dropping what the output format cannot hold");
  add_input_flags(*sub, args->input);
  sub->callback([args, &run] { run = [args] { return run_convert(*args); }; });
}

}  // namespace convo::cli
