// Record timestamps: ISO 8601 text to milliseconds since the epoch and back, and
// the calendar date of an instant in UTC or in the local time zone (TZ).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace convo {

// Milliseconds since 1970-01-01T00:00:00Z of an ISO 8601 timestamp
// ("2025-06-01T12:34:56.789Z", "...+02:00", without zone: UTC); nullopt when
// `text` is not one.
std::optional<std::int64_t> parse_timestamp(std::string_view text);

// `ms` as JavaScript's toISOString writes it: "2025-06-01T12:34:56.789Z".
std::string iso_timestamp(std::int64_t ms);

// The date of the instant `ms` as YYYYMMDD (20250601): in UTC, or with `local` in
// the process's time zone (TZ).
int date_of(std::int64_t ms, bool local);

// "2025-06-01" for 20250601.
std::string date_text(int yyyymmdd);

// A date given as YYYYMMDD or YYYY-MM-DD; nullopt otherwise.
std::optional<int> parse_date(std::string_view text);

}  // namespace convo
