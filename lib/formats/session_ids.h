// Ids and times for sessions convo writes from another format's messages (Claude
// Code sessions, Codex rollouts): derived from the input, so that the same input
// always gives the same session.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace convo {

// 128 bits of `text`: stable and well spread, not cryptographic.
std::pair<std::uint64_t, std::uint64_t> hash128(std::string_view text);
// The same of `pieces` one after the other, without joining them (a record's uuid is
// derived from its content, most of the record).
std::pair<std::uint64_t, std::uint64_t> hash128(std::initializer_list<std::string_view> pieces);

// A UUID made from `text` (RFC 9562 version 8, "custom": the hash above).
std::string derived_uuid(std::string_view text);
// The same of `pieces` one after the other.
std::string derived_uuid(std::initializer_list<std::string_view> pieces);
// `prefix` and 24 hex digits of the hash of `pieces`: an id in an API's shape
// ("msg_" and 24 hex digits, as a Messages API response id).
std::string derived_hex_id(std::string_view prefix, std::initializer_list<std::string_view> pieces);

// True when `text` is a UUID in its 36-character form.
bool is_uuid(std::string_view text);

// "2025-06-19T05:20:00.000Z" for `ms` after the Unix epoch.
std::string iso_utc(std::int64_t ms);
// The same, written in `out` (no allocation: a writer gives every record a time).
// 24 characters; more for a year past 9999 or before 0, as gmtime gives it.
using IsoTime = std::array<char, 32>;
std::string_view iso_utc(std::int64_t ms, IsoTime& out);

// Milliseconds since the epoch of a UTC time "YYYY-MM-DD[T ]HH:MM:SS[.fff...][Z|+00:00]",
// or nullopt for anything else (other offsets included: they are not guessed at).
std::optional<std::int64_t> utc_ms(std::string_view time);

}  // namespace convo
