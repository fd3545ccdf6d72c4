// convo split-blocks: one record per content block, as Claude Code's UI sees a session.
#include <memory>

#include "common.h"
#include "stages/split_blocks.h"

namespace convo::cli {

namespace {

struct SplitBlocksArgs {
  InputArgs input;
  OutputArgs output;
};

constexpr const char* k_split_blocks_help =
    R"(Split every message into one record per content block, as Claude Code's UI does.

Examples:
  convo split-blocks session.jsonl
  convo split-blocks --to anthropic session.jsonl

Each block keeps its record's envelope and gets a uuid of its own (Claude Code's
deriveUUID: the record's first 24 characters and the block index in 12 hex
digits) and, in Claude Code output, a "shortId" (deriveShortMessageId, the
6-character id Claude Code shows the model as [id:...]). parentUuid links follow
the new ids. See convo-split-blocks(1).)";

int run_split_blocks(const SplitBlocksArgs& args) {
  return run_stream_command(args.input, args.output,
                            [] { return std::make_unique<SplitBlocks>(); });
}

}  // namespace

void add_split_blocks(CLI::App& app, Runner& run) {
  auto args = std::make_shared<SplitBlocksArgs>();
  CLI::App* sub =
      app.add_subcommand("split-blocks", "Split messages into one record per content block");
  sub->description(k_split_blocks_help);
  add_output_flags(*sub, args->output);
  add_input_flags(*sub, args->input);
  sub->callback([args, &run] { run = [args] { return run_split_blocks(*args); }; });
}

}  // namespace convo::cli
