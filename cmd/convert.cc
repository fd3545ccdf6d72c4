// convo convert: transcripts from one format to another.
#include <memory>

#include "common.h"
#include "stages/convert.h"

namespace convo::cli {

namespace {

struct ConvertArgs {
  InputArgs input;
  OutputArgs output;
  std::string ai_sdk_shape;  // --ai-sdk-shape: ui or model; empty: as read
};

constexpr const char* k_convert_help = R"(Convert transcripts between formats.

Examples:
  convo convert --to openai session.jsonl > chat.jsonl
  convo convert --to anthropic --strict chat.jsonl
  convo convert --from anthropic --to claude-code request.json
  convo convert --to ai-sdk --ai-sdk-shape ui session.jsonl

Messages that were not changed and are written in their own format come out
byte for byte. What the target format cannot hold (thinking blocks in openai,
progress records in anthropic, ...) is dropped and counted on stderr; --strict
makes any loss an error. --ai-sdk-shape ui writes the AI SDK's UIMessages (what
useChat stores), model its ModelMessages; by default a message read as a UIMessage
stays one and every other is a ModelMessage. See convo-convert(1) for every mapping.)";

int run_convert(const ConvertArgs& args) {
  EncodeOptions options = encode_options(read_options(args.input));
  if (args.ai_sdk_shape == "ui") {
    options.ai_sdk_shape = AiSdkShape::ui;
  } else if (args.ai_sdk_shape == "model") {
    options.ai_sdk_shape = AiSdkShape::model;
  }
  return run_stream_command(args.input, args.output,
                            [] { return std::make_unique<PassThrough>(); },
                            format_sink(parse_format(args.output.to), options));
}

}  // namespace

void add_convert(CLI::App& app, Runner& run) {
  auto args = std::make_shared<ConvertArgs>();
  CLI::App* sub = app.add_subcommand("convert", "Convert transcripts between formats");
  sub->description(k_convert_help);
  add_output_flags(*sub, args->output, /*to_required=*/true);
  sub->add_option("--ai-sdk-shape", args->ai_sdk_shape,
                  "With --to ai-sdk: ui (UIMessages: id, role, parts) or model (ModelMessages: "
                  "role, content) for every message (default: a UIMessage stays one, the rest "
                  "are ModelMessages)")
      ->check(one_of({"ui", "model"}, "--ai-sdk-shape value"));
  add_input_flags(*sub, args->input);
  sub->callback([args, &run] {
    if (!args->ai_sdk_shape.empty() && args->output.to != "ai-sdk") {
      throw CLI::ValidationError("--ai-sdk-shape", "applies to --to ai-sdk, not " + args->output.to);
    }
    run = [args] { return run_convert(*args); };
  });
}

}  // namespace convo::cli
