// convo normalize-for-api: any transcript -> Anthropic Messages API messages the API
// accepts (or, with --request, whole request bodies).
#include <memory>

#include "common.h"
#include "stages/normalize_for_api.h"

namespace convo::cli {

namespace {

struct NormalizeForApiArgs {
  InputArgs input;
  ConversationArgs conversation;
  bool strict = false;
  bool request = false;
  std::string model;
  std::int64_t max_tokens = 0;
  bool max_tokens_given = false;
  std::string system;
  bool system_given = false;
  bool prefill = false;
  bool keep_thinking = false;
  bool current_turn_thinking = false;
  std::string tool_names = "current";
  bool drop_thinking = false;
  bool strip_cache_control = false;
  bool sidechains = false;
};

constexpr const char* k_normalize_for_api_help =
    R"(Turn a transcript into Anthropic Messages API messages that the API accepts.

Examples:
  convo normalize-for-api session.jsonl
  convo normalize-for-api --request --max-tokens 1024 session.jsonl > request.json
  convo normalize-for-api --drop-thinking --strip-cache-control chat.jsonl

Takes a Claude Code session's main thread (from the last message back to the latest
compaction; abandoned branches and subagents left out), drops what the API must
not see (progress, system notices, API errors, bookkeeping), turns attachments
into user text, joins the records of one response and messages of one role in a
row, pairs every tool_use with a tool_result, replaces empty content and sends
signed thinking blocks, as Claude Code 2.1.330 does when it resumes a session. Writes one {"role","content"}
message per line, or with --request one request body per conversation. See
convo-normalize-for-api(1) for every rule.)";

int run_normalize_for_api(const NormalizeForApiArgs& args) {
  static StderrDiagnostics diagnostics;
  NormalizeOptions options;
  options.thinking = args.drop_thinking           ? NormalizeOptions::Thinking::drop
                     : args.current_turn_thinking ? NormalizeOptions::Thinking::current_turn
                                                  : NormalizeOptions::Thinking::keep;
  options.tool_names = args.tool_names == "recorded" ? NormalizeOptions::ToolNames::recorded
                                                     : NormalizeOptions::ToolNames::current;
  options.model = args.model;
  options.strip_cache_control = args.strip_cache_control;
  options.sidechains = args.sidechains;
  options.diagnostics = &diagnostics;
  GroupBy grouping = group_by(args.conversation);
  OutputArgs output;
  output.to = "anthropic";
  output.strict = args.strict;
  SinkFactory sink;
  if (args.request) {
    RequestOptions request;
    request.model = args.model;
    if (args.max_tokens_given) {
      request.max_tokens = args.max_tokens;
    }
    request.prefill = args.prefill;
    request.diagnostics = &diagnostics;
    // Thinking blocks need a `thinking` parameter; without one they stay only
    // when asked for by name.
    request.thinking_without_parameter = args.keep_thinking || args.current_turn_thinking;
    if (args.system_given) {
      request.system = text_or_file(args.system);
    }
    sink = request_sink(std::move(request));
  }
  return run_stream_command(
      args.input, output,
      [options, grouping] { return make_normalize_stage(options, grouping); }, sink,
      /*explain_empty=*/true);
}

}  // namespace

void add_normalize_for_api(CLI::App& app, Runner& run) {
  auto args = std::make_shared<NormalizeForApiArgs>();
  CLI::App* sub = app.add_subcommand("normalize-for-api",
                                     "Turn a transcript into messages the Anthropic API accepts");
  sub->description(k_normalize_for_api_help);
  sub->add_flag("--request", args->request,
                "Write one complete request body per conversation (model, max_tokens, "
                "system, messages) instead of one message per line");
  sub->add_option("--model", args->model,
                  "The model the messages go to: the request's, and the one whose signed "
                  "thinking is sent (default: the last model the conversation recorded)");
  sub->add_option("--max-tokens", args->max_tokens,
                  "The request's max_tokens (default: the input request's, else 4096)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--system", args->system,
                  "The request's system prompt: TEXT, or @FILE for a file's contents "
                  "(default: the conversation's own system messages)")
      ->option_text("TEXT|@FILE")
      ->each([args](const std::string&) { args->system_given = true; });
  sub->add_flag("--prefill", args->prefill,
                "With --request, keep final assistant messages as a prefill (default: the "
                "request ends on the last user message; newer models take no prefill)");
  CLI::Option* keep =
      sub->add_flag("--keep-thinking", args->keep_thinking,
                    "Keep every signed thinking block, as Claude Code resends them (the default)");
  CLI::Option* current = sub->add_flag(
      "--current-turn-thinking", args->current_turn_thinking,
      "Keep only the signed thinking blocks of the assistant's current turn, which the API "
      "requires (it ignores earlier ones)");
  CLI::Option* drop =
      sub->add_flag("--drop-thinking", args->drop_thinking, "Remove every thinking block");
  keep->excludes(drop)->excludes(current);
  current->excludes(drop);
  sub->add_option("--tool-names", args->tool_names,
                  "current: Claude Code's tools under the names Claude Code 2.1.330 gives "
                  "them (Task is Agent); recorded: as the session recorded them")
      ->check(CLI::IsMember({"current", "recorded"}))
      ->default_str("current");
  sub->add_flag("--strip-cache-control", args->strip_cache_control,
                "Remove every cache_control marker");
  sub->add_flag("--sidechains", args->sidechains,
                "Also write each subagent's conversation (Claude Code isSidechain records), "
                "after the main one");
  sub->add_flag("--strict", args->strict,
                "Fail (exit 3) instead of dropping what the anthropic format cannot hold");
  add_conversation_flags(*sub, args->conversation);
  add_input_flags(*sub, args->input);
  sub->callback([args, sub, &run] {
    args->max_tokens_given = sub->count("--max-tokens") > 0;
    run = [args] { return run_normalize_for_api(*args); };
  });
}

}  // namespace convo::cli
