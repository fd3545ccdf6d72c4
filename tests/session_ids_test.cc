// Session ids and times that formats write (lib/formats/session_ids.h).
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <ctime>
#include <random>

#include "formats/session_ids.h"

using namespace convo;

namespace {

// iso_utc as it was written with gmtime_r, for comparison.
std::string iso_utc_by_gmtime(std::int64_t ms) {
  std::int64_t millis = ((ms % 1000) + 1000) % 1000;
  auto seconds = static_cast<std::time_t>((ms - millis) / 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900,
                     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, millis);
}

}  // namespace

TEST_CASE("iso_utc writes the time gmtime gives", "[session_ids]") {
  CHECK(iso_utc(0) == "1970-01-01T00:00:00.000Z");
  CHECK(iso_utc(1750310400000) == "2025-06-19T05:20:00.000Z");
  CHECK(iso_utc(-1) == "1969-12-31T23:59:59.999Z");
  CHECK(iso_utc(951782400000) == "2000-02-29T00:00:00.000Z");
  CHECK(iso_utc(253402300799999) == "9999-12-31T23:59:59.999Z");
  CHECK(iso_utc(-62167219200000) == "0000-01-01T00:00:00.000Z");
  CHECK(iso_utc(253402300800000) == iso_utc_by_gmtime(253402300800000));  // year 10000
  CHECK(iso_utc(-62167219200001) == iso_utc_by_gmtime(-62167219200001));  // year -1
  // Every day boundary and leap rule over the years it writes by hand, at random.
  std::mt19937_64 random(16);
  std::uniform_int_distribution<std::int64_t> any(-62167219200000 - 86400000,
                                                  253402300799999 + 86400000);
  for (int i = 0; i < 200000; ++i) {
    std::int64_t ms = any(random);
    INFO(ms);
    REQUIRE(iso_utc(ms) == iso_utc_by_gmtime(ms));
  }
  // A millisecond at a time, as the Codex writer counts (iso_utc keeps the text of
  // the last second): across a second, a day, a year and back again.
  for (std::int64_t start : {std::int64_t{1750310399990}, std::int64_t{1767225599990},
                             std::int64_t{-10}, std::int64_t{253402300799990}}) {
    for (std::int64_t ms = start; ms < start + 20; ++ms) {
      INFO(ms);
      REQUIRE(iso_utc(ms) == iso_utc_by_gmtime(ms));
    }
    REQUIRE(iso_utc(start) == iso_utc_by_gmtime(start));
  }
}
