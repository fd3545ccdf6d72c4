// convo assemble: recorded streaming responses to the messages they spell.
#include <algorithm>
#include <memory>

#include "common.h"
#include "formats/stream.h"
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
OpenAI chat completion chunks (data: lines or one chunk per line), LangChain
AIMessageChunk records, OpenAI Responses events, AI SDK UI message streams and
Gemini chunks (data: lines, one per line, or a JSON array), and writes each
response whole: an Anthropic message, an OpenAI chat.completion, a LangChain
AIMessage, a Gemini GenerateContentResponse, ... (or, with --to, in that format). A stream that is cut
off or reports an error is written as far as it arrived, then the error names
the place (exit 3; --on-error skip makes it a warning). See convo-assemble(1).)";

// The formats with a stream reader in the registry, "anthropic, openai`last`langchain":
// a format that gains a stream dialect is read here with no change.
std::string stream_format_names(std::string_view last) {
  std::vector<std::string_view> names;
  for (const FormatInfo& info : all_formats()) {
    if (info.make_stream_reader != nullptr) {
      names.push_back(info.name);
    }
  }
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) {
      out += i + 1 == names.size() ? last : ", ";
    }
    out += names[i];
  }
  return out;
}

int run_assemble(const AssembleArgs& args) {
  AssembleOptions options;
  options.inputs = args.input.files;
  ReadOptions read = read_options(args.input);
  options.on_error = read.on_error;
  options.from = read.from;
  options.jobs = read.jobs;
  options.progress = read.progress;
  if (!args.output.to.empty()) {
    options.to = parse_format(args.output.to);
  }
  options.strict = args.output.strict;
  return with_output(args.input, [&](Output& out) {
    StderrDiagnostics diagnostics;
    assemble(options, out, diagnostics);
    return static_cast<int>(ExitCode::ok);
  });
}

}  // namespace

void add_assemble(CLI::App& app, Runner& run) {
  auto args = std::make_shared<AssembleArgs>();
  CLI::App* sub = app.add_subcommand("assemble", "Assemble streamed responses into messages");
  sub->description(k_assemble_help);
  add_output_flags(*sub, args->output);
  add_input_flags(*sub, args->input);
  sub->get_option("FILE")->description("Streams to read (gzip or zstd too) and directories; "
                                       "none or - reads standard input");
  sub->get_option("--from")->description(
      "Stream format: auto (each stream's own, as its events show), " +
      stream_format_names(" or ") + "; a stream in another format is an error");
  sub->get_option("--on-error")
      ->description("A stream that is cut off or reports an error: fail (write what arrived, "
                    "then stop with exit 3), skip or keep (write what arrived, warn, go on)");
  sub->callback([args, &run] {
    std::optional<Format> from = parse_format(args->input.from);
    if (args->input.from != "auto" && (!from || format_info(*from).make_stream_reader == nullptr)) {
      throw CLI::ValidationError("--from", "assemble reads " + stream_format_names(" and ") +
                                           " streams, not " + args->input.from);
    }
    run = [args] { return run_assemble(*args); };
  });
}

}  // namespace convo::cli
