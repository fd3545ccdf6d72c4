// convo trim: fit each conversation into a token budget without breaking it apart.
#include <charconv>
#include <cstdint>
#include <limits>
#include <memory>

#include <fmt/format.h>

#include "common.h"
#include "message_types.h"
#include "stages/trim.h"
#include "tokens.h"

namespace convo::cli {

namespace {

struct TrimArgs {
  InputArgs input;
  OutputArgs output;
  ConversationArgs conversation;
  std::int64_t max_tokens = -1;
  std::string strategy = "last";
  bool include_system = false;
  bool allow_partial = false;
  std::string start_on;
  std::string end_on;
  std::string text_splitter = "newline";
  std::string token_counter = "approx";
  double chars_per_token = k_chars_per_token;
  bool chars_per_token_given = false;
};

// --chars-per-token's range: wide enough for any tokenizer (a token is rarely below
// one character or above a few dozen), narrow enough that a gigabyte of text
// counts to a finite int64 number of tokens.
constexpr double k_min_chars_per_token = 0.01;
constexpr double k_max_chars_per_token = 1e6;

constexpr const char* k_trim_help = R"(Keep the part of each conversation that fits in a token budget.

Examples:
  convo trim --max-tokens 300 session.jsonl
  convo trim --max-tokens 100 --include-system --start-on human chat.jsonl
  convo trim --max-tokens 135 --strategy first --end-on ai chat.jsonl
  convo trim --max-tokens 30 --allow-partial notes.jsonl
  convo trim --max-tokens 6 --token-counter messages chat.jsonl
  convo trim --max-tokens 300 --token-counter usage session.jsonl

LangChain's trim_messages semantics (strategy last by default), except that a
tool call and its results, and the records of one API response, are kept or
dropped together: the output never has a result without its call or a call
without its results. Tokens are counted as LangChain's count_tokens_approximately
does unless --token-counter says otherwise. Each input file (each Claude Code
session) is trimmed on its own; kept records are written byte for byte. See
convo-trim(1) for every rule.)";

TrimOptions trim_options(const TrimArgs& args) {
  TrimOptions options;
  options.max_tokens = args.max_tokens;
  options.strategy = args.strategy == "first" ? TrimStrategy::first : TrimStrategy::last;
  options.include_system = args.include_system;
  options.allow_partial = args.allow_partial;
  options.start_on = TypeSet::parse(args.start_on);
  options.end_on = TypeSet::parse(args.end_on);
  options.text_splitter = *parse_text_splitter(args.text_splitter);
  return options;
}

TokenCountOptions token_count_options(const TrimArgs& args) {
  TokenCountOptions counting;
  counting.kind = *parse_token_counter(args.token_counter);
  counting.chars_per_token = args.chars_per_token;
  return counting;
}

int run_trim(const TrimArgs& args) {
  std::shared_ptr<const TokenCounter> counter = make_token_counter(token_count_options(args));
  GroupBy grouping = group_by(args.conversation);
  std::optional<Format> to = stream_options(args.input, args.output).to;
  TrimOptions counted = trim_options(args);
  counted.emptied = std::make_shared<std::atomic<std::uint64_t>>(0);
  int code = run_stream_command(args.input, args.output, [counted, counter, grouping, to] {
    return make_trim_stage(counted, counter, grouping, to);
  });
  if (std::uint64_t emptied = *counted.emptied; emptied > 0) {
    StderrDiagnostics().warning(
        Location{}, fmt::format("kept nothing of {} conversation{}: not one message fits in "
                                "{} tokens (--allow-partial may keep part of one)",
                                emptied, emptied == 1 ? "" : "s", counted.max_tokens));
  }
  return code;
}

}  // namespace

void add_trim(CLI::App& app, Runner& run) {
  auto args = std::make_shared<TrimArgs>();
  CLI::App* sub = app.add_subcommand("trim", "Keep what fits in a token budget, tool calls whole");
  sub->description(k_trim_help);
  sub->add_option("--max-tokens", args->max_tokens, "The token budget of each conversation")
      ->required()
      ->option_text("N")
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            // Decimal digits only: CLI11 alone takes '' (as 0), hex (0x10) and
            // spaces, and clamps 99999999999999999999 to the largest int64.
            std::int64_t n = 0;
            auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), n);
            if (value.empty() || value[0] == '-' || value[0] == '+' || end != value.data() + value.size()) {
              return "must be a whole number of tokens, 0 or more";
            }
            if (error == std::errc::result_out_of_range) {
              return fmt::format("{} is too large (at most {})", value,
                                 std::numeric_limits<std::int64_t>::max());
            }
            return error == std::errc() ? "" : "must be a whole number of tokens, 0 or more";
          },
          ""));
  sub->add_option("--strategy", args->strategy,
                  "last: keep the newest messages that fit; first: the oldest")
      ->capture_default_str()
      ->check(one_of({"first", "last"}, "strategy"));
  sub->add_flag("--include-system", args->include_system,
                "Keep a leading system message, counted against the budget (strategy last)");
  sub->add_flag("--allow-partial", args->allow_partial,
                "Keep part of the message at the cut when a whole one does not fit");
  sub->add_option("--start-on", args->start_on,
                  "Drop the oldest kept messages until one of these types starts the window "
                  "(strategy last)")
      ->check(type_names());
  sub->add_option("--end-on", args->end_on,
                  "Drop the newest kept messages until one of these types ends the window")
      ->check(type_names());
  sub->add_option("--text-splitter", args->text_splitter,
                  "Where --allow-partial may cut a text: newline, space or char")
      ->capture_default_str()
      ->check(one_of(text_splitter_names(), "text splitter"));
  sub->add_option("--token-counter", args->token_counter,
                  "approx (LangChain's count_tokens_approximately), messages (1 each), or "
                  "usage (recorded output tokens of responses, approx for the rest)")
      ->capture_default_str()
      ->check(one_of(token_counter_names(), "token counter"));
  sub->add_option("--chars-per-token", args->chars_per_token,
                  "Characters per token for approx and usage's fallback (default 4)")
      ->capture_default_str()
      ->option_text("X")
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            // Bounded, so that a count (characters / X) stays a finite number of
            // tokens: 1e-300 made every message infinitely long, and the budget moot.
            double x = 0;
            auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), x);
            bool number = error == std::errc() && end == value.data() + value.size();
            return number && x >= k_min_chars_per_token && x <= k_max_chars_per_token
                       ? ""
                       : fmt::format("must be a number from {} to {}", k_min_chars_per_token,
                                     k_max_chars_per_token);
          },
          ""));
  add_conversation_flags(*sub, args->conversation);
  add_output_flags(*sub, args->output);
  add_input_flags(*sub, args->input);
  sub->callback([args, sub, &run] {
    args->chars_per_token_given = sub->count("--chars-per-token") > 0;
    if (args->chars_per_token_given &&
        token_count_options(*args).kind == TokenCounterKind::messages) {
      throw CLI::ValidationError("--chars-per-token",
                                 "applies to the approx and usage counters, not messages");
    }
    try {
      check_trim_options(trim_options(*args));
    } catch (const Error& e) {
      throw CLI::ValidationError(e.what());
    }
    run = [args] { return run_trim(*args); };
  });
}

}  // namespace convo::cli
