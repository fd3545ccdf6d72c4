// convo usage: tokens and cost from the usage transcripts recorded, by day, month,
// session, 5-hour billing block or model (ccusage's reports).
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <memory>

#include <fmt/format.h>

#include "common.h"
#include "io/output.h"
#include "stages/usage.h"
#include "timestamps.h"

namespace convo::cli {

namespace {

struct UsageArgs {
  InputArgs input;
  std::string by = "day";
  std::string format = "table";
  std::string since, until;
  std::string timezone;  // empty: TZ, as ccusage
  std::string prices;    // empty: the table shipped with convo
  std::string split = "largest";
};

constexpr const char* k_usage_help =
    R"(Report tokens and cost from the usage recorded in transcripts.

Examples:
  convo usage ~/.claude/projects
  convo usage --by session --format json ~/.claude/projects
  convo usage --by block --since 20250601 --timezone UTC session.jsonl

Counts input, output, cache write, cache read and reasoning tokens of every
response whose record carries usage, in any format convo reads. A response
Claude Code split over several records (one message id and request id) counts
once, with the largest count of each field among them (--split-usage first
counts the first record, as ccusage 18 does). Subagent files count with their
session (the sessionId their records carry). Cost is the one recorded, else
tokens times the prices of the table shipped with convo (LiteLLM's, see
convo-usage(1)), or of --prices FILE in LiteLLM's format. Days are in the time
zone TZ says unless --timezone, as ccusage. --format json writes ccusage's JSON
(daily, monthly, sessions, blocks: inputTokens, outputTokens,
cacheCreationTokens, cacheReadTokens, totalTokens, totalCost).)";

UsageBy parse_by(const std::string& by) {
  if (by == "month") {
    return UsageBy::month;
  }
  if (by == "session") {
    return UsageBy::session;
  }
  if (by == "block") {
    return UsageBy::block;
  }
  if (by == "model") {
    return UsageBy::model;
  }
  return UsageBy::day;
}

std::optional<int> date_flag(const std::string& value, const char* flag) {
  if (value.empty()) {
    return std::nullopt;
  }
  std::optional<int> date = parse_date(value);
  if (!date) {
    throw Error(fmt::format("{} '{}': expected a date as YYYYMMDD or YYYY-MM-DD", flag, value),
                ExitCode::usage);
  }
  return date;
}

// Days are counted in `name`'s time: TZ is set for the run, as ccusage's --timezone.
void set_timezone(const std::string& name) {
  if (name.empty()) {
    return;
  }
  bool known = name == "UTC" || (name.find("..") == std::string::npos && name[0] != '/' &&
                                 access(("/usr/share/zoneinfo/" + name).c_str(), R_OK) == 0);
  if (!known) {
    throw Error(fmt::format("--timezone '{}': no such time zone (try UTC or Europe/Paris)", name),
                ExitCode::usage);
  }
  setenv("TZ", name.c_str(), 1);
  tzset();
}

}  // namespace

void add_usage(CLI::App& app, Runner& run) {
  auto args = std::make_shared<UsageArgs>();
  CLI::App* sub = app.add_subcommand("usage",
                                     "Report tokens and cost by day, month, session, "
                                     "block or model");
  sub->description(k_usage_help);
  sub->add_option("--by", args->by,
                  "Rows by day, month, session, block (5-hour billing blocks) or model")
      ->capture_default_str()
      ->check(one_of({"day", "month", "session", "block", "model"}, "--by value"));
  sub->add_option("--format", args->format, "table, json (ccusage's fields) or csv")
      ->capture_default_str()
      ->check(one_of({"table", "json", "csv"}, "--format value"));
  sub->add_option("--since", args->since, "Only from this date (YYYYMMDD or YYYY-MM-DD)")
      ->option_text("DATE");
  sub->add_option("--until", args->until, "Only up to this date, inclusive")->option_text("DATE");
  sub->add_option("--timezone", args->timezone,
                  "Time zone of days and months (default: TZ, the local zone)")
      ->option_text("ZONE");
  sub->add_option("--prices", args->prices,
                  "Prices from FILE (LiteLLM's model_prices_and_context_window.json shape)")
      ->option_text("FILE");
  sub->add_option("--split-usage", args->split,
                  "Which record of a split response counts: largest (each field's largest) "
                  "or first (as ccusage)")
      ->capture_default_str()
      ->check(one_of({"largest", "first"}, "--split-usage value"));
  add_input_flags(*sub, args->input);
  sub->callback([args, &run] {
    run = [args] {
      UsageOptions options;
      options.by = parse_by(args->by);
      options.since = date_flag(args->since, "--since");
      options.until = date_flag(args->until, "--until");
      options.split = args->split == "first" ? SplitUsage::first : SplitUsage::largest;
      set_timezone(args->timezone);
      std::unique_ptr<PriceTable> prices;
      if (!args->prices.empty()) {
        prices = std::make_unique<PriceTable>(PriceTable::read(args->prices));
        options.prices = prices.get();
      }
      auto ledger = std::make_shared<UsageLedger>(options);
      StreamOptions stream;
      stream.inputs = args->input.files;
      stream.read = read_options(args->input);
      stream.read.jobs = 1;  // one ledger, fed in input order
      return with_output(args->input, [&](Output& out) {
        StderrDiagnostics diagnostics;
        run_stream(
            stream, [ledger] { return std::make_unique<UsageStage>(ledger); },
            [](Output&, LossReport&) { return std::make_unique<DiscardSink>(); }, out, diagnostics);
        for (const std::string& model : ledger->unpriced_models()) {
          diagnostics.warning(Location{}, fmt::format("no price for model {}; its cost counts "
                                                      "as 0 (--prices FILE adds one)",
                                                      model));
        }
        UsageReport report = ledger->report();
        out.write(args->format == "json"  ? usage_json(report)
                  : args->format == "csv" ? usage_csv(report)
                                          : usage_table(report));
        return static_cast<int>(ExitCode::ok);
      });
    };
  });
}

}  // namespace convo::cli
