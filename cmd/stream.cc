// convo stream: messages and response bodies written as one API's event stream,
// and live streams translated from one protocol to another.
#include <memory>

#include "common.h"
#include "formats/stream.h"
#include "io/output.h"
#include "stages/stream.h"

namespace convo::cli {

namespace {

struct StreamArgs {
  InputArgs input;
  std::string to;
  std::size_t chunk_size = 32;
  bool include_usage = false;
  bool strict = false;
};

constexpr const char* k_stream_help = R"(Write an API's event stream, or translate a live stream to another API's.

Examples:
  convo stream --to anthropic response.json
  convo stream --to openai --chunk-size 8 message.jsonl
  convo stream --to anthropic openai-stream.sse
  convo stream --to openai-responses --chunk-size 8 message.jsonl
  convo stream --to anthropic responses-stream.sse
  convo stream --to gemini response.json
  curl -sN ... | convo stream --to anthropic | client

From messages or response bodies (an Anthropic message, an OpenAI
chat.completion, a transcript of any format), each assistant message is written
as the stream its API would have sent: text, thinking and tool input cut into
deltas of --chunk-size characters; the items of one Responses body are one
response. From a stream (SSE or one event per line) of Anthropic, OpenAI Chat,
OpenAI Responses or Gemini, each event is translated as it arrives and written
at once. Gemini is written as the API's alt=sse chunks: a chunk a text delta, a
tool call whole in one chunk, the finishReason and usage in the last. A stream
that reports an error or is cut off ends with the target's error
event, and convo exits 3. See convo-stream(1).)";

// The formats convo writes streams of: "anthropic`last`openai".
std::vector<std::string> writer_names() {
  std::vector<std::string> names;
  for (const FormatInfo& info : all_formats()) {
    if (info.make_stream_writer != nullptr) {
      names.emplace_back(info.name);
    }
  }
  return names;
}

std::vector<std::string> reader_names() {
  std::vector<std::string> names{"auto"};
  for (const FormatInfo& info : all_formats()) {
    names.emplace_back(info.name);
  }
  return names;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) {
    out += (out.empty() ? "" : ", ") + name;
  }
  return out;
}

}  // namespace

void add_stream(CLI::App& app, Runner& run) {
  auto args = std::make_shared<StreamArgs>();
  CLI::App* sub = app.add_subcommand("stream", "Write or translate API event streams");
  sub->description(k_stream_help);
  sub->add_option("--to", args->to, "The stream to write: " + joined(writer_names()))
      ->required()
      ->check(one_of(writer_names(), "stream format"));
  sub->add_option("--chunk-size", args->chunk_size,
                  "From messages: characters (code points) of text, thinking or tool input "
                  "a delta carries; 0: each block in one delta")
      ->capture_default_str()
      ->option_text("N");
  sub->add_flag("--include-usage", args->include_usage,
                "OpenAI: end with a usage chunk, as the API does for "
                "stream_options.include_usage");
  sub->add_flag("--strict", args->strict,
                "Fail (exit 3) instead of dropping what the stream cannot hold");
  sub->add_option("FILE", args->input.files,
                  "Messages, response bodies or streams to read (gzip or zstd too) and "
                  "directories; none or - reads standard input");
  sub->add_option("--from", args->input.from,
                  "Input format: auto (each input's own), " + joined(reader_names()).substr(6) +
                      "; an input in another format is an error")
      ->capture_default_str()
      ->check(one_of(reader_names(), "format"));
  sub->add_option("-o,--output", args->input.output,
                  "Write to FILE instead of standard output; FILE appears only when the run "
                  "succeeds")
      ->option_text("FILE");
  sub->callback([args, &run] {
    run = [args] {
      StreamCommandOptions options;
      options.inputs = args->input.files;
      options.to = *parse_format(args->to);
      if (args->input.from != "auto") {
        options.from = parse_format(args->input.from);
      }
      options.chunk_size = args->chunk_size;
      options.writer.include_usage = args->include_usage;
      options.strict = args->strict;
      args->input.quiet = true;  // a live stream's output is its progress
      return with_output(args->input, [&](Output& out) {
        StderrDiagnostics diagnostics;
        write_streams(options, out, diagnostics);
        return static_cast<int>(ExitCode::ok);
      });
    };
  });
}

}  // namespace convo::cli
