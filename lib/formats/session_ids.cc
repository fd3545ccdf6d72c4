#include "formats/session_ids.h"

#include <fmt/format.h>

// xxHash's functions compiled into this file, from the header alone.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <ctime>
#include <limits>

namespace convo {

namespace {

// Writes the `digits` low hex digits of `value` at `out`, lowercase: fmt's parse of
// a format was a fifth of deriving a record's uuid.
void put_hex(char* out, std::uint64_t value, int digits) {
  static constexpr char k_hex[] = "0123456789abcdef";
  for (int i = digits - 1; i >= 0; --i, value >>= 4) {
    out[i] = k_hex[value & 0xf];
  }
}

std::string uuid_of(std::pair<std::uint64_t, std::uint64_t> hash) {
  auto [hi, lo] = hash;
  hi = (hi & ~0xf000ULL) | 0x8000ULL;                         // version 8
  lo = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // variant 10
  std::string uuid(36, '-');                                  // 8-4-4-4-12
  put_hex(uuid.data(), hi >> 32, 8);
  put_hex(uuid.data() + 9, hi >> 16, 4);
  put_hex(uuid.data() + 14, hi, 4);
  put_hex(uuid.data() + 19, lo >> 48, 4);
  put_hex(uuid.data() + 24, lo, 12);
  return uuid;
}

}  // namespace

// 128 bits of `text`: XXH3's 128-bit hash (xxHash), whose values are the same on
// every machine and in every xxHash release since 0.8.0. Not cryptographic, only
// stable and well spread. A record's uuid hashes the record's content, so this hash
// sets the pace of converting to claude-code: FNV-1a, before it, waited for a
// multiply at every byte and was a quarter of converting the Codex bench file;
// XXH3 takes 32 bytes a step. Changing the hash changes every id derived from it
// (the same input gives the same ids only from one hash to the next).
std::pair<std::uint64_t, std::uint64_t> hash128(std::string_view text) {
  const XXH128_hash_t hash = XXH3_128bits(text.data(), text.size());
  return {hash.high64, hash.low64};
}

// The streaming form gives what the one-shot gives for the pieces joined.
std::pair<std::uint64_t, std::uint64_t> hash128(std::initializer_list<std::string_view> pieces) {
  XXH3_state_t state;
  XXH3_INITSTATE(&state);
  XXH3_128bits_reset(&state);
  for (std::string_view piece : pieces) {
    XXH3_128bits_update(&state, piece.data(), piece.size());
  }
  const XXH128_hash_t hash = XXH3_128bits_digest(&state);
  return {hash.high64, hash.low64};
}

// A UUID made from `text` (RFC 9562 version 8, "custom": the hash above).
std::string derived_uuid(std::string_view text) { return uuid_of(hash128(text)); }

std::string derived_uuid(std::initializer_list<std::string_view> pieces) {
  return uuid_of(hash128(pieces));
}

std::string derived_hex_id(std::string_view prefix,
                           std::initializer_list<std::string_view> pieces) {
  auto [hi, lo] = hash128(pieces);
  std::string id(prefix.size() + 24, '0');
  prefix.copy(id.data(), prefix.size());
  put_hex(id.data() + prefix.size(), hi, 16);
  put_hex(id.data() + prefix.size() + 16, lo >> 32, 8);
  return id;
}

bool is_uuid(std::string_view text) {
  if (text.size() != 36) {
    return false;
  }
  for (std::size_t i = 0; i < text.size(); ++i) {
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    char c = text[i];
    bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    if (dash ? c != '-' : !hex) {
      return false;
    }
  }
  return true;
}

namespace {

// The date `days` after 1970-01-01 in the proleptic Gregorian calendar, as gmtime
// gives it (Howard Hinnant's civil_from_days): gmtime_r was a third of iso_utc.
void civil_from_days(std::int64_t days, std::int64_t& year, int& month, int& day) {
  const std::int64_t z = days + 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<std::int64_t>(z - era * 146097);          // [0, 146096]
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;  // [0, 399]
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);      // [0, 365]
  const std::int64_t mp = (5 * doy + 2) / 153;                          // [0, 11]
  day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  year = yoe + era * 400 + (month <= 2 ? 1 : 0);
}

}  // namespace

// "2025-06-19T05:20:00.000Z" for `ms` after the Unix epoch.
std::string iso_utc(std::int64_t ms) {
  IsoTime text;
  return std::string(iso_utc(ms, text));
}

std::string_view iso_utc(std::int64_t ms, IsoTime& out) {
  std::int64_t millis = ((ms % 1000) + 1000) % 1000;
  const std::int64_t seconds = (ms - millis) / 1000;
  // The text up to the second, kept for the next call: the Codex writer gives each
  // line a time, one millisecond after the last when the source has none, so most
  // calls fall in the second before them, and the date's divisions were most of a
  // call (4% of converting the Responses bench file to codex).
  struct Second {
    std::int64_t seconds = std::numeric_limits<std::int64_t>::min();
    char text[25] = "0000-00-00T00:00:00.000Z";
  };
  thread_local Second last;
  auto put = [](char* at, int value, int digits) {
    for (int i = digits - 1; i >= 0; --i, value /= 10) {
      at[i] = static_cast<char>('0' + value % 10);
    }
  };
  if (seconds != last.seconds) {
    const std::int64_t day_seconds = ((seconds % 86400) + 86400) % 86400;
    std::int64_t year = 0;
    int month = 0;
    int day = 0;
    civil_from_days((seconds - day_seconds) / 86400, year, month, day);
    if (year < 0 || year > 9999) {
      // As gmtime_r gives it (a zeroed time where it fails).
      auto time = static_cast<std::time_t>(seconds);
      std::tm tm{};
      gmtime_r(&time, &tm);
      const auto end = fmt::format_to_n(
          out.data(), out.size(), "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900,
          tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, millis);
      return {out.data(), std::min(end.size, out.size())};
    }
    // By hand: fmt's parse of this format was a tenth of converting a file to Codex,
    // which writes a time on every line.
    put(last.text, static_cast<int>(year), 4);
    put(last.text + 5, month, 2);
    put(last.text + 8, day, 2);
    put(last.text + 11, static_cast<int>(day_seconds / 3600), 2);
    put(last.text + 14, static_cast<int>(day_seconds / 60 % 60), 2);
    put(last.text + 17, static_cast<int>(day_seconds % 60), 2);
    last.seconds = seconds;
  }
  constexpr std::size_t size = sizeof last.text - 1;
  std::memcpy(out.data(), last.text, size);
  put(out.data() + 20, static_cast<int>(millis), 3);
  return {out.data(), size};
}

// Milliseconds since the epoch of a UTC time "YYYY-MM-DD[T ]HH:MM:SS[.fff...][Z|+00:00]",
// or nullopt for anything else (other offsets included: they are not guessed at).
std::optional<std::int64_t> utc_ms(std::string_view t) {
  auto digits = [&](std::size_t at, std::size_t n) -> std::optional<int> {
    if (at + n > t.size()) {
      return std::nullopt;
    }
    int v = 0;
    for (std::size_t i = at; i < at + n; ++i) {
      if (t[i] < '0' || t[i] > '9') {
        return std::nullopt;
      }
      v = v * 10 + (t[i] - '0');
    }
    return v;
  };
  auto year = digits(0, 4), month = digits(5, 2), day = digits(8, 2);
  auto hour = digits(11, 2), minute = digits(14, 2), second = digits(17, 2);
  if (!year || !month || !day || !hour || !minute || !second || t[4] != '-' || t[7] != '-' ||
      (t[10] != 'T' && t[10] != ' ') || t[13] != ':' || t[16] != ':' || *month < 1 ||
      *month > 12 || *day < 1 || *day > 31 || *hour > 23 || *minute > 59 || *second > 60) {
    return std::nullopt;
  }
  std::size_t at = 19;
  int millis = 0;
  if (at < t.size() && t[at] == '.') {
    int scale = 100;
    ++at;
    std::size_t start = at;
    for (; at < t.size() && t[at] >= '0' && t[at] <= '9'; ++at) {
      millis += (t[at] - '0') * scale;
      scale /= 10;
    }
    if (at == start) {
      return std::nullopt;
    }
  }
  std::string_view zone = t.substr(at);
  if (!zone.empty() && zone != "Z" && zone != "+00:00") {
    return std::nullopt;
  }
  // Days from the civil date (Howard Hinnant's algorithm).
  int y = *year - (*month <= 2 ? 1 : 0);
  int era = (y >= 0 ? y : y - 399) / 400;
  int yoe = y - era * 400;
  int doy = (153 * (*month + (*month > 2 ? -3 : 9)) + 2) / 5 + *day - 1;
  int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  std::int64_t days = std::int64_t{era} * 146097 + doe - 719468;
  return ((days * 24 + *hour) * 60 + *minute) * std::int64_t{60000} + *second * 1000 + millis;
}

}  // namespace convo
