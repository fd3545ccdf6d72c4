// convo merge-runs: consecutive messages of one role become one message.
#include <memory>

#include "common.h"
#include "stages/merge_runs.h"

namespace convo::cli {

namespace {

struct MergeRunsArgs {
  InputArgs input;
  OutputArgs output;
  std::string separator = "\\n";
};

constexpr const char* k_merge_runs_help = R"(Merge consecutive messages of one role (LangChain's merge_message_runs).

Examples:
  convo merge-runs chat.jsonl
  convo merge-runs --separator ' ' chat.jsonl
  convo merge-runs session.jsonl | convo buffer-string

Texts are joined with the separator (a newline by default) when both are
non-empty; block contents are concatenated; tool calls follow in order; tool
results are never merged; messages with different names are not merged.
Records that are not conversation turns pass through and do not break a run.
See convo-merge-runs(1) for ids, names, usage and Claude Code links.)";

// The separator with the escapes \n, \t and \\ read as the characters they name.
std::string unescape(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      char next = text[i + 1];
      if (next == 'n' || next == 't' || next == '\\') {
        out += next == 'n' ? '\n' : next == 't' ? '\t' : '\\';
        ++i;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

int run_merge_runs(const MergeRunsArgs& args) {
  MergeRunsOptions options;
  options.separator = unescape(args.separator);
  return run_stream_command(args.input, args.output,
                            [options] { return std::make_unique<MergeRuns>(options); });
}

}  // namespace

void add_merge_runs(CLI::App& app, Runner& run) {
  auto args = std::make_shared<MergeRunsArgs>();
  CLI::App* sub =
      app.add_subcommand("merge-runs", "Merge consecutive messages of one role into one");
  sub->description(k_merge_runs_help);
  sub->add_option("--separator", args->separator,
                  "Put between two merged texts when both are non-empty; \\n, \\t and \\\\ "
                  "are read as newline, tab and backslash")
      ->capture_default_str()
      ->option_text("TEXT");
  add_output_flags(*sub, args->output);
  add_input_flags(*sub, args->input);
  sub->callback([args, &run] { run = [args] { return run_merge_runs(*args); }; });
}

}  // namespace convo::cli
