// convo check: report what an API would reject in recorded conversations, for CI.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common.h"
#include "io/input_list.h"
#include "io/output.h"
#include "secrets_flags.h"
#include "stages/check_report.h"
#include "stages/secrets_check.h"

namespace convo::cli {

namespace {

struct CheckArgs {
  InputArgs input;
  ConversationArgs conversation;
  std::string target;  // empty: by each input's format
  std::string format = "text";
  std::vector<std::string> select;
  std::vector<std::string> ignore;
  bool secrets = false;
  std::uint64_t max_tokens = 0;
  bool max_tokens_given = false;
  double max_cost = 0;
  bool max_cost_given = false;
  std::vector<std::string> forbid_tools;
  std::uint64_t max_tool_errors = 0;
  bool max_tool_errors_given = false;
  SecretsArgs secrets_args;
};

// `secrets` in --select or --ignore names every secret-* rule at once, as ruff's
// rule prefixes name a family: a CI job scanning for credentials alone need not
// list fifteen names.
constexpr std::string_view k_secret_rules = "secrets";

// The rules a --select or --ignore list names, `secrets` spelled out.
std::vector<std::string> expand_rules(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& name : names) {
    if (name != k_secret_rules) {
      out.push_back(name);
      continue;
    }
    for (const CheckRule& rule : check_rules()) {
      if (is_secret_rule(rule.name)) {
        out.emplace_back(rule.name);
      }
    }
  }
  return out;
}

// A check that each of a comma-separated list is a rule's name, with a hint for a
// near miss.
CLI::Validator rule_names() {
  std::vector<std::string> names{std::string(k_secret_rules)};
  for (const CheckRule& rule : check_rules()) {
    names.emplace_back(rule.name);
  }
  return CLI::Validator(
      [names](std::string& value) -> std::string {
        if (std::find(names.begin(), names.end(), value) != names.end()) {
          return "";
        }
        std::string hint = closest_match(value, names);
        return hint.empty() ? fmt::format("unknown rule '{}' (see convo-check(1), RULES)", value)
                            : fmt::format("unknown rule '{}' (did you mean '{}'?)", value, hint);
      },
      "RULE,...");
}

ReportFormat report_format(const std::string& name) {
  if (name == "json") {
    return ReportFormat::json;
  }
  if (name == "github") {
    return ReportFormat::github;
  }
  if (name == "sarif") {
    return ReportFormat::sarif;
  }
  if (name == "junit") {
    return ReportFormat::junit;
  }
  return ReportFormat::text;
}

constexpr const char* k_check_help =
    R"(Check conversations against an API's rules and the files' own integrity.

Examples:
  convo check session.jsonl
  convo check --for openai --format json chat.jsonl
  convo normalize-for-api session.jsonl | convo check

Reports every problem as FILE:LINE: SEVERITY: RULE: MESSAGE (or a JSON object
per line with --format json; for CI systems, GitHub annotations with --format
github, one SARIF 2.1.0 log with --format sarif, one JUnit XML report with
--format junit), then a summary on stderr ("12 problems (10 errors,
2 warnings) in 3 of 40 files"), and exits 1 when there are any, 0 when there
are none, 3 when an input cannot be read. duplicate-uuid and dangling-parent are
warnings (the file's own bookkeeping, which no API sees), every other rule an
error; both make the exit status 1. --select and --ignore choose the rules to
report; -q reports nothing, for the exit status alone. Bad records are reported
(malformed-line), not fatal.
A Claude Code session is checked as the request it would become if it were sent
as recorded: its main thread and each subagent's, the records of one response
joined, nothing repaired. See convo-check(1) for every rule.)";

int run_check(const CheckArgs& args) {
  const std::vector<std::string> select = expand_rules(args.select);
  // --secrets, or a secret-* rule named in --select, or patterns of one's own.
  bool secrets = args.secrets || !args.secrets_args.patterns.empty() ||
                 !args.secrets_args.file.empty() ||
                 std::any_of(select.begin(), select.end(),
                             [](const std::string& rule) { return is_secret_rule(rule); });
  std::shared_ptr<const SecretScanner> scanner;
  if (secrets) {
    scanner = make_scanner(args.secrets_args);
  }
  ReportOptions options;
  if (args.max_tokens_given) {
    options.budgets.max_tokens = args.max_tokens;
  }
  if (args.max_cost_given) {
    options.budgets.max_cost = args.max_cost;
  }
  if (args.max_tool_errors_given) {
    options.budgets.max_tool_errors = args.max_tool_errors;
  }
  options.budgets.forbid_tools = args.forbid_tools;
  options.check.target = args.target == "openai" ? CheckTarget::openai : CheckTarget::anthropic;
  options.check.by_format = args.target.empty();
  options.format = report_format(args.format);
  options.select = select;
  options.ignore = expand_rules(args.ignore);
  options.quiet = args.input.quiet;
  StreamOptions stream;
  stream.inputs = args.input.files;
  stream.read = read_options(args.input);
  // A bad record is a problem to report, not a reason to stop.
  stream.read.on_error = OnError::keep;
  GroupBy grouping = group_by(args.conversation);
  auto tally = std::make_shared<CheckTally>();
  // With only secret-* rules reported (--select), nothing needs whole conversations.
  bool conversations = checks_conversations(options);
  // The budgets read every record's content; the rules only the API view's.
  bool as_bytes = !options.budgets.any();
  int code = with_output(args.input, [&](Output& out) {
    // The report says all there is to say about bad records.
    NullDiagnostics quiet;
    run_stream(
        stream,
        [grouping, scanner, conversations, as_bytes]() -> std::unique_ptr<StreamStage> {
          if (scanner) {
            return make_secrets_stage(
                conversations ? make_check_stage(grouping, as_bytes) : nullptr, scanner);
          }
          return make_check_stage(grouping, as_bytes);
        },
        check_report_sink(options, tally), out, quiet);
    // Parent links are resolved across every input, in input order.
    std::vector<std::string> inputs{"-"};
    if (!stream.inputs.empty()) {
      inputs = expand_inputs(stream.inputs, &quiet);
    }
    report_dangling_parents(out, options, *tally, inputs);
    // SARIF and JUnit are one document for the whole run, written at its end.
    std::string whole = whole_run_report(options.format, *tally, CONVO_VERSION);
    if (!whole.empty() && !args.input.quiet) {
      out.write_line(whole);
    }
    return static_cast<int>(tally->problems() > 0 ? ExitCode::problems : ExitCode::ok);
  });
  // The summary, for a CI log: on stderr, so that the report stays parseable.
  if (tally->problems() > 0 && !args.input.quiet) {
    std::fflush(stdout);
    std::string line = fmt::format("convo: {}\n", check_summary(*tally));
    std::fputs(line.c_str(), stderr);
  }
  return code;
}

}  // namespace

void add_check(CLI::App& app, Runner& run) {
  auto args = std::make_shared<CheckArgs>();
  CLI::App* sub = app.add_subcommand("check", "Check conversations against an API's rules, for CI");
  sub->description(k_check_help);
  sub->add_option("--for", args->target,
                  "Whose rules: anthropic or openai (default: the API each input's format feeds)")
      ->check(one_of({"anthropic", "openai"}, "--for value"));
  sub->add_option("--format", args->format,
                  "Report format: text (FILE:LINE: SEVERITY: RULE: MESSAGE), json (one object per "
                  "line), github (workflow annotations), sarif (SARIF 2.1.0) or junit (JUnit XML)")
      ->capture_default_str()
      ->check(one_of({"text", "json", "github", "sarif", "junit"}, "--format value"));
  sub->add_option("--select", args->select,
                  "Report only these rules (comma-separated; secrets: every secret-* rule)")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->option_text("RULE,...")
      ->check(rule_names());
  sub->add_option("--ignore", args->ignore, "Do not report these rules (comma-separated)")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->option_text("RULE,...")
      ->check(rule_names());
  sub->add_flag("--secrets", args->secrets,
                "Also report credentials in every decoded string (the secret-* rules)");
  add_secrets_flags(*sub, args->secrets_args);
  sub->add_option("--max-tokens", args->max_tokens,
                  "Report a conversation whose recorded usage (input, output, cache) passes N "
                  "tokens (max-tokens)")
      ->option_text("N");
  sub->add_option("--max-cost", args->max_cost,
                  "Report a conversation whose recorded usage costs more than USD, priced as "
                  "convo usage prices (max-cost)")
      ->option_text("USD")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--forbid-tools", args->forbid_tools,
                  "Report each call of these tools (comma-separated; forbidden-tool)")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->option_text("NAME,...");
  sub->add_option("--max-tool-errors", args->max_tool_errors,
                  "Report a conversation with more than N failed tool results (max-tool-errors)")
      ->option_text("N");
  add_conversation_flags(*sub, args->conversation);
  add_input_flags(*sub, args->input);
  sub->callback([args, sub, &run] {
    check_secrets_flags(args->secrets_args);
    args->max_tokens_given = sub->count("--max-tokens") > 0;
    args->max_tool_errors_given = sub->count("--max-tool-errors") > 0;
    args->max_cost_given = sub->count("--max-cost") > 0;
    run = [args] { return run_check(*args); };
  });
}

}  // namespace convo::cli
