// convo usage: token and cost reports from the usage transcripts recorded, by day,
// month, session, 5-hour billing block or model, as ccusage gives them.
//
// A streaming stage feeding a ledger: `UsageStage` passes nothing on and hands each
// record to a `UsageLedger`, which keeps one small entry per response (not the
// records), so memory grows with the number of responses, not with the input.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "message.h"
#include "pipeline.h"
#include "prices.h"

namespace convo {

enum class UsageBy : std::uint8_t { day, month, session, block, model };

// Which record of a response split over several (one message id and request id)
// gives its usage.
enum class SplitUsage : std::uint8_t {
  largest,  // the largest count of each field among them (the final one)
  first,    // the first read, as ccusage 18 counts
};

struct UsageOptions {
  UsageBy by = UsageBy::day;
  bool local_time = true;           // dates in the process's time zone (TZ); false: UTC
  std::optional<int> since, until;  // YYYYMMDD, inclusive
  SplitUsage split = SplitUsage::largest;
  const PriceTable* prices = nullptr;  // null: PriceTable::builtin()
};

// Tokens and cost counted for a response or a sum of them. `input` excludes cache
// reads and writes; `reasoning` is part of `output` (shown, not added again).
struct UsageCount {
  std::int64_t input = 0, output = 0, cache_write = 0, cache_read = 0, reasoning = 0;
  double cost = 0;

  // input + output + cache_write + cache_read, as ccusage's totalTokens.
  std::int64_t total() const { return input + output + cache_write + cache_read; }
  void add(const UsageCount& other);
};

// What `record`'s usage counts, as `convo usage` counts it: `input` without the
// cache reads a format counts inside it (FormatInfo::usage_input_includes_cache).
// No cost.
UsageCount usage_count(const Message& record);

// The cost of one response: `recorded` when the transcript recorded it, else
// `count` priced for `model` at `prices` (0 when `model` has none).
double usage_cost(const UsageCount& count, const std::optional<double>& recorded,
                  const std::string& model, const PriceTable& prices);

// One line of a report.
struct UsageRow {
  // The day ("2025-06-01"), month ("2025-06"), session id, model, or for a block
  // its start as ISO 8601 (ccusage's id; "gap-..." for a gap).
  std::string key;
  std::string project;        // session: the project directory of its first file
  std::string last_activity;  // session: the date of its last response
  // block: start, end (start + 5 h), last response, in ms since the epoch
  std::int64_t start = 0, end = 0, actual_end = 0;
  bool is_gap = false, is_active = false;
  std::size_t entries = 0;  // responses counted
  UsageCount sum;
  std::vector<std::string> models_used;  // in order of first use, no "<synthetic>"
  // Per model (missing: "unknown"), by cost, highest first; no "<synthetic>".
  std::vector<std::pair<std::string, UsageCount>> breakdown;
};

struct UsageReport {
  UsageBy by = UsageBy::day;
  std::vector<UsageRow> rows;
  UsageCount totals;
};

// Counts the usage records carry. Not thread-safe: feed it from one thread.
class UsageLedger {
 public:
  explicit UsageLedger(UsageOptions options);

  // Counts `record`'s usage, if it has any: once per response (message id and
  // request id, as ccusage), attributed to its session (`sessionId`, else its file).
  void add(const Message& record);
  UsageReport report() const;
  // The models no price was found for (their cost counts as 0), sorted.
  std::vector<std::string> unpriced_models() const;

 private:
  struct Entry {
    std::int64_t time = 0;  // ms since the epoch; k_no_time when the record had none
    std::uint32_t session = 0, model = 0;
    UsageCount count;
    std::optional<double> recorded_cost;
  };
  static constexpr std::int64_t k_no_time = INT64_MIN;

  std::uint32_t intern(std::vector<std::string>& names,
                       std::unordered_map<std::string, std::uint32_t>& index,
                       const std::string& name);
  double cost_of(const Entry& entry) const;
  int date_of_entry(const Entry& entry) const;
  bool in_range(int date) const;

  UsageOptions m_options;
  const PriceTable* m_prices;
  std::vector<Entry> m_entries;
  std::unordered_map<std::uint64_t, std::uint32_t> m_responses;  // id hash -> entry
  std::vector<std::string> m_sessions, m_models, m_projects;
  std::unordered_map<std::string, std::uint32_t> m_session_index, m_model_index;
};

// The stage: gives every record to `ledger`, passes nothing on.
class UsageStage final : public StreamStage {
 public:
  explicit UsageStage(std::shared_ptr<UsageLedger> ledger) : m_ledger(std::move(ledger)) {}
  void push(Message&& message, MessageSink& next) override;

 private:
  std::shared_ptr<UsageLedger> m_ledger;
};

// The report as ccusage's `--json` writes it: {"daily"|"monthly"|"sessions"|
// "blocks"|"models": [...], "totals": {...}} with its field names.
std::string usage_json(const UsageReport& report);
// One header line and a line per row: key, tokens, cost, models.
std::string usage_csv(const UsageReport& report);
// An aligned table for a terminal, with a Total line.
std::string usage_table(const UsageReport& report);

}  // namespace convo
