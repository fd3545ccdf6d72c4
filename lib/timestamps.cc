#include "timestamps.h"

#include <ctime>

#include <fmt/format.h>

namespace convo {

namespace {

// Days since 1970-01-01 of a civil date (Howard Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool digits(std::string_view text, std::size_t at, std::size_t n, int& out) {
  if (at + n > text.size()) {
    return false;
  }
  out = 0;
  for (std::size_t i = at; i < at + n; ++i) {
    if (text[i] < '0' || text[i] > '9') {
      return false;
    }
    out = out * 10 + (text[i] - '0');
  }
  return true;
}

}  // namespace

std::optional<std::int64_t> parse_timestamp(std::string_view text) {
  int year, month, day, hour = 0, minute = 0, second = 0;
  if (!digits(text, 0, 4, year) || text.size() < 10 || text[4] != '-' ||
      !digits(text, 5, 2, month) || text[7] != '-' || !digits(text, 8, 2, day) || month < 1 ||
      month > 12 || day < 1 || day > 31) {
    return std::nullopt;
  }
  std::size_t at = 10;
  std::int64_t ms = 0;
  if (at < text.size() && (text[at] == 'T' || text[at] == ' ')) {
    if (!digits(text, at + 1, 2, hour) || text.size() < at + 9 || text[at + 3] != ':' ||
        !digits(text, at + 4, 2, minute) || text[at + 6] != ':' ||
        !digits(text, at + 7, 2, second)) {
      return std::nullopt;
    }
    at += 9;
    if (at < text.size() && text[at] == '.') {
      ++at;
      int scale = 100;
      while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
        ms += (text[at] - '0') * scale;
        scale /= 10;
        ++at;
      }
    }
  }
  std::int64_t offset_minutes = 0;
  if (at < text.size()) {
    if (text[at] == 'Z' || text[at] == 'z') {
      ++at;
    } else if (text[at] == '+' || text[at] == '-') {
      int oh, om = 0;
      if (!digits(text, at + 1, 2, oh)) {
        return std::nullopt;
      }
      std::size_t next = at + 3;
      if (next < text.size() && text[next] == ':') {
        ++next;
      }
      if (next < text.size() && digits(text, next, 2, om)) {
        next += 2;
      }
      offset_minutes = (oh * 60 + om) * (text[at] == '-' ? -1 : 1);
      at = next;
    }
    if (at != text.size()) {
      return std::nullopt;
    }
  }
  std::int64_t days =
      days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  std::int64_t seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset_minutes * 60;
  return seconds * 1000 + ms;
}

std::string iso_timestamp(std::int64_t ms) {
  std::time_t seconds = static_cast<std::time_t>(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                     ms - static_cast<std::int64_t>(seconds) * 1000);
}

int date_of(std::int64_t ms, bool local) {
  std::time_t seconds = static_cast<std::time_t>(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
  std::tm tm{};
  if (local) {
    localtime_r(&seconds, &tm);
  } else {
    gmtime_r(&seconds, &tm);
  }
  return (tm.tm_year + 1900) * 10000 + (tm.tm_mon + 1) * 100 + tm.tm_mday;
}

std::string date_text(int yyyymmdd) {
  return fmt::format("{:04}-{:02}-{:02}", yyyymmdd / 10000, yyyymmdd / 100 % 100, yyyymmdd % 100);
}

std::optional<int> parse_date(std::string_view text) {
  int y, m, d;
  if (text.size() == 8 && digits(text, 0, 4, y) && digits(text, 4, 2, m) && digits(text, 6, 2, d)) {
  } else if (text.size() == 10 && digits(text, 0, 4, y) && text[4] == '-' &&
             digits(text, 5, 2, m) && text[7] == '-' && digits(text, 8, 2, d)) {
  } else {
    return std::nullopt;
  }
  if (m < 1 || m > 12 || d < 1 || d > 31) {
    return std::nullopt;
  }
  return y * 10000 + m * 100 + d;
}

}  // namespace convo
