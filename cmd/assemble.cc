// convo assemble: recorded streaming responses to the messages they spell.
#include <memory>

#include "common.h"
#include "io/output.h"
#include "stages/assemble.h"

namespace convo::cli {

namespace {

struct AssembleArgs {
  InputArgs input;
  OutputArgs output;
};

constexpr const char* k_assemble_help = R"(Assemble recorded streaming responses into messages.

Examples:
  convo assemble response.sse
  convo assemble --to openai anthropic-stream.sse
  convo assemble chunks.jsonl

Reads Anthropic Messages streams (event:/data: lines, or one event per line),
OpenAI chat completion chunks (data: lines or one chunk per line) and LangChain
AIMessageChunk records, and writes each response whole: an Anthropic message,
an OpenAI chat.completion, a LangChain AIMessage (or, with --to, in that
format). A stream that is cut
off or reports an error is written as far as it arrived, then the error names
the place (exit 3; --on-error skip makes it a warning). See convo-assemble(1).)";

}  // namespace

void add_assemble(CLI::App& app, Runner& run) {
  auto args = std::make_shared<AssembleArgs>();
  CLI::App* sub = app.add_subcommand("assemble", "Assemble streamed responses into messages");
  sub->description(k_assemble_help);
  add_output_flags(*sub, args->output);
  sub->add_option("FILE", args->input.files, "Streams to read; none or - reads standard input");
  sub->add_option("--on-error", args->input.on_error,
                  "A stream that is cut off or reports an error: fail (write what arrived, "
                  "then stop with exit 3), skip or keep (write what arrived, warn, go on)")
      ->capture_default_str()
      ->check(one_of({"fail", "skip", "keep"}, "--on-error value"));
  sub->add_option("-o,--output", args->input.output,
                  "Write to FILE instead of standard output; FILE appears only when the run "
                  "succeeds")
      ->option_text("FILE");
  sub->callback([args, &run] {
    run = [args] {
      AssembleOptions options;
      options.inputs = args->input.files;
      options.on_error = read_options(args->input).on_error;
      if (!args->output.to.empty()) {
        options.to = parse_format(args->output.to);
      }
      options.strict = args->output.strict;
      return with_output(args->input, [&](Output& out) {
        StderrDiagnostics diagnostics;
        assemble(options, out, diagnostics);
        return static_cast<int>(ExitCode::ok);
      });
    };
  });
}

}  // namespace convo::cli
