// convo usage: the ledger's counting rules, prices, blocks and report shapes.
#include <catch2/catch.hpp>

#include "prices.h"
#include "stages/usage.h"
#include "test_util.h"
#include "timestamps.h"

using namespace convo;

namespace {

std::string assistant(const std::string& id, const std::string& req, const std::string& model,
                      int in, int out, int cw, int cr, const std::string& ts,
                      const std::string& session = "s1") {
  return R"({"type":"assistant","sessionId":")" + session + R"(","requestId":")" + req +
         R"(","timestamp":")" + ts + R"(","uuid":"u-)" + id + std::to_string(out) +
         R"(","message":{"id":")" + id + R"(","role":"assistant","model":")" + model +
         R"(","content":[{"type":"text","text":"x"}],"usage":{"input_tokens":)" +
         std::to_string(in) + R"(,"output_tokens":)" + std::to_string(out) +
         R"(,"cache_creation_input_tokens":)" + std::to_string(cw) +
         R"(,"cache_read_input_tokens":)" + std::to_string(cr) + "}}}\n";
}

UsageReport report_of(const std::string& text, UsageOptions options) {
  options.local_time = false;
  UsageLedger ledger(options);
  for (Message& message : test::read_messages(text)) {
    ledger.add(message);
  }
  return ledger.report();
}

}  // namespace

TEST_CASE("usage counts a split response once, with its largest counts", "[usage]") {
  std::string text = assistant("m1", "r1", "claude-sonnet-4-20250514", 3, 8, 100, 50,
                               "2025-06-01T10:00:00Z") +
                     assistant("m1", "r1", "claude-sonnet-4-20250514", 3, 120, 100, 50,
                               "2025-06-01T10:00:02Z");
  UsageReport largest = report_of(text, {});
  REQUIRE(largest.rows.size() == 1);
  CHECK(largest.rows[0].key == "2025-06-01");
  CHECK(largest.rows[0].sum.output == 120);
  CHECK(largest.rows[0].sum.input == 3);
  CHECK(largest.totals.total() == 3 + 120 + 100 + 50);
  UsageOptions first;
  first.split = SplitUsage::first;
  CHECK(report_of(text, first).totals.output == 8);
}

TEST_CASE("usage counts records without a request id each", "[usage]") {
  std::string text = R"({"type":"assistant","sessionId":"s","timestamp":"2025-06-01T10:00:00Z","message":{"id":"m","role":"assistant","model":"x","content":[],"usage":{"input_tokens":1,"output_tokens":2}}}
{"type":"assistant","sessionId":"s","timestamp":"2025-06-01T10:00:00Z","message":{"id":"m","role":"assistant","model":"x","content":[],"usage":{"input_tokens":1,"output_tokens":2}}}
)";
  CHECK(report_of(text, {}).totals.output == 4);
}

TEST_CASE("usage prices tokens as ccusage, tiered above 200k", "[usage]") {
  const ModelPrice* sonnet = PriceTable::builtin().find("claude-sonnet-4-20250514");
  REQUIRE(sonnet != nullptr);
  CHECK(sonnet->input == 3e-6);
  CHECK(sonnet->input_above);
  double cost = PriceTable::cost(*sonnet, TokenCounts{300000, 0, 0, 0});
  CHECK(cost == Approx(200000 * 3e-6 + 100000 * *sonnet->input_above));
  // Found through a prefix, then by containment.
  CHECK(PriceTable::builtin().find("sonnet-4-20250514") != nullptr);
  CHECK(PriceTable::builtin().find("gpt-4o") != nullptr);
  CHECK(PriceTable::builtin().find("gemini-2.5-pro") != nullptr);
  CHECK(PriceTable::builtin().find("no-such-model-anywhere") == nullptr);
}

TEST_CASE("usage reads a price table in LiteLLM's shape", "[usage]") {
  PriceTable table = PriceTable::parse(
      R"({"_source":"test","m":{"input_cost_per_token":1,"output_cost_per_token":2},"sample_spec":{"mode":"chat"}})",
      "p.json");
  CHECK(table.size() == 1);
  REQUIRE(table.find("m") != nullptr);
  CHECK(PriceTable::cost(*table.find("m"), TokenCounts{1, 1, 0, 0}) == 3);
  CHECK_THROWS_AS(PriceTable::parse("[1]", "p.json"), Error);
}

TEST_CASE("usage by session puts a subagent's records with their session", "[usage]") {
  std::string text = assistant("m1", "r1", "claude-sonnet-4-20250514", 1, 1, 0, 0,
                               "2025-06-01T10:00:00Z", "main") +
                     assistant("m2", "r2", "claude-3-5-haiku-20241022", 5, 5, 0, 0,
                               "2025-06-02T10:00:00Z", "main") +
                     assistant("m3", "r3", "claude-sonnet-4-20250514", 2, 2, 0, 0,
                               "2025-06-01T11:00:00Z", "other");
  UsageOptions options;
  options.by = UsageBy::session;
  UsageReport report = report_of(text, options);
  REQUIRE(report.rows.size() == 2);
  CHECK(report.rows[0].key == "main");  // latest activity first, as ccusage
  CHECK(report.rows[0].last_activity == "2025-06-02");
  CHECK(report.rows[0].sum.input == 6);
  CHECK(report.rows[0].models_used.size() == 2);
}

TEST_CASE("usage blocks are 5 hours from the hour of their first response", "[usage]") {
  std::string text = assistant("m1", "r1", "x", 1, 1, 0, 0, "2025-06-01T10:30:00Z") +
                     assistant("m2", "r2", "x", 1, 1, 0, 0, "2025-06-01T14:59:00Z") +
                     assistant("m3", "r3", "x", 1, 1, 0, 0, "2025-06-01T15:01:00Z") +
                     assistant("m4", "r4", "x", 1, 1, 0, 0, "2025-06-02T01:00:00Z");
  UsageOptions options;
  options.by = UsageBy::block;
  UsageReport report = report_of(text, options);
  REQUIRE(report.rows.size() == 4);
  CHECK(report.rows[0].key == "2025-06-01T10:00:00.000Z");
  CHECK(report.rows[0].entries == 2);
  CHECK(report.rows[1].key == "2025-06-01T15:00:00.000Z");
  CHECK(report.rows[2].is_gap);
  CHECK(report.rows[2].key == "gap-2025-06-01T20:01:00.000Z");
  CHECK(report.rows[3].key == "2025-06-02T01:00:00.000Z");
  CHECK(report.totals.input == 4);
}

TEST_CASE("usage filters days with since and until", "[usage]") {
  std::string text = assistant("m1", "r1", "x", 1, 1, 0, 0, "2025-05-31T23:00:00Z") +
                     assistant("m2", "r2", "x", 2, 2, 0, 0, "2025-06-01T01:00:00Z") +
                     assistant("m3", "r3", "x", 4, 4, 0, 0, "2025-06-02T01:00:00Z");
  UsageOptions options;
  options.since = 20250601;
  options.until = 20250601;
  UsageReport report = report_of(text, options);
  REQUIRE(report.rows.size() == 1);
  CHECK(report.totals.input == 2);
}

TEST_CASE("usage JSON has ccusage's field names", "[usage]") {
  UsageReport report = report_of(
      assistant("m1", "r1", "claude-sonnet-4-20250514", 1, 2, 3, 4, "2025-06-01T10:00:00Z"), {});
  std::string json = usage_json(report);
  for (const char* field : {"\"daily\": [", "\"date\": \"2025-06-01\"", "\"inputTokens\": 1",
                            "\"outputTokens\": 2", "\"cacheCreationTokens\": 3",
                            "\"cacheReadTokens\": 4", "\"totalTokens\": 10", "\"totalCost\": ",
                            "\"totals\": {"}) {
    CHECK(json.find(field) != std::string::npos);
  }
  CHECK(usage_csv(report).substr(0, 17) == "date,inputTokens,");
}

TEST_CASE("timestamps parse ISO 8601 with zones", "[usage]") {
  CHECK(parse_timestamp("1970-01-01T00:00:01.5Z") == 1500);
  CHECK(parse_timestamp("2025-06-01T02:00:00+02:00") == parse_timestamp("2025-06-01T00:00:00Z"));
  CHECK(!parse_timestamp("yesterday"));
  CHECK(iso_timestamp(*parse_timestamp("2025-06-01T10:30:00.250Z")) == "2025-06-01T10:30:00.250Z");
  CHECK(parse_date("20250601") == 20250601);
  CHECK(parse_date("2025-06-01") == 20250601);
  CHECK(!parse_date("2025/06/01"));
}

TEST_CASE("usage caps absurd counts instead of overflowing", "[usage]") {
  std::string text;
  for (const char* id : {"m1", "m2"}) {
    std::string record = assistant(id, id, "x", 0, 0, 0, 0, "2025-06-01T10:00:00Z");
    record.replace(record.find("\"input_tokens\":0"), 16, "\"input_tokens\":9223372036854775807");
    text += record;
  }
  UsageReport report = report_of(text, {});
  CHECK(report.totals.input == 2 * (std::int64_t{1} << 40));
}
