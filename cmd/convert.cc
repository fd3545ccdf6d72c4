// convo convert: transcripts from one format to another.
#include <memory>

#include "common.h"
#include "stages/convert.h"

namespace convo::cli {

namespace {

struct ConvertArgs {
  InputArgs input;
  OutputArgs output;
};

constexpr const char* k_convert_help = R"(Convert transcripts between formats.

Examples:
  convo convert --to openai session.jsonl > chat.jsonl
  convo convert --to anthropic --strict chat.jsonl
  convo convert --from anthropic --to claude-code request.json

Messages that were not changed and are written in their own format come out
byte for byte. What the target format cannot hold (thinking blocks in openai,
progress records in anthropic, ...) is dropped and counted on stderr; --strict
makes any loss an error. See convo-convert(1) for every mapping.)";

int run_convert(const ConvertArgs& args) {
  return run_stream_command(args.input, args.output,
                            [] { return std::make_unique<PassThrough>(); });
}

}  // namespace

void add_convert(CLI::App& app, Runner& run) {
  auto args = std::make_shared<ConvertArgs>();
  CLI::App* sub = app.add_subcommand("convert", "Convert transcripts between formats");
  sub->description(k_convert_help);
  add_output_flags(*sub, args->output, /*to_required=*/true);
  add_input_flags(*sub, args->input);
  sub->callback([args, &run] { run = [args] { return run_convert(*args); }; });
}

}  // namespace convo::cli
