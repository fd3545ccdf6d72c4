#include "python_repr.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace convo {

namespace {

struct Range {
  char32_t first;
  char32_t last;
};

// lib/python_nonprintable.inc is generated from Node's Unicode tables (the same
// ones the LangChain oracle's port of repr uses), from the repository root:
//
//   node -e 'const re = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;
//     const r = []; let s = -1;
//     for (let c = 0x80; c <= 0x110000; c++) {
//       const np = c <= 0x10ffff && ((c >= 0xd800 && c <= 0xdfff) || re.test(String.fromCodePoint(c)));
//       if (np && s < 0) s = c;
//       if (!np && s >= 0) { r.push([s, c - 1]); s = -1; } }
//     const h = (n) => "0x" + n.toString(16).toUpperCase();
//     console.log(r.map(([a, b]) => `{${h(a)}, ${h(b)}},`).join("\n"))'
//
// (then wrapped to 100 columns under the header comment).
constexpr Range k_nonprintable[] = {
#include "python_nonprintable.inc"
};

bool printable(char32_t cp) {
  // Below U+0080 the caller has decided already.
  const Range* end = std::end(k_nonprintable);
  const Range* it = std::upper_bound(std::begin(k_nonprintable), end, cp,
                                     [](char32_t c, const Range& r) { return c < r.first; });
  if (it == std::begin(k_nonprintable)) {
    return true;
  }
  --it;
  return cp > it->last;
}

// Decodes the code point starting at `text[i]` and advances `i`. Invalid UTF-8
// yields the byte itself (one code point per bad byte, as `python_len` counts).
char32_t next_code_point(std::string_view text, std::size_t& i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char lead = byte(i);
  if (lead < 0x80) {
    ++i;
    return lead;
  }
  std::size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  if (length == 1 || i + length > text.size()) {
    ++i;
    return lead;
  }
  char32_t cp = lead & (0x7F >> length);
  for (std::size_t k = 1; k < length; ++k) {
    unsigned char c = byte(i + k);
    if ((c & 0xC0) != 0x80) {
      ++i;
      return lead;
    }
    cp = (cp << 6) | (c & 0x3F);
  }
  i += length;
  return cp;
}

std::size_t decimal_digits(std::uint64_t n) {
  std::size_t digits = 1;
  while (n >= 10) {
    n /= 10;
    ++digits;
  }
  return digits;
}

// Eight bytes at a time ("SWAR"): these functions run over every byte of every
// message trim counts.
constexpr std::uint64_t k_ones = 0x0101010101010101ULL;
constexpr std::uint64_t k_highs = 0x8080808080808080ULL;

std::uint64_t load8(const char* p) {
  std::uint64_t word;
  std::memcpy(&word, p, sizeof word);
  return word;
}

// The high bit set in each byte of `word` that is below `n` (n <= 128), for words
// of ASCII bytes.
std::uint64_t bytes_below(std::uint64_t word, unsigned n) {
  return (word - k_ones * n) & ~word & k_highs;
}

// The high bit set in each byte of `word` equal to `c`, for words of ASCII bytes.
std::uint64_t bytes_equal(std::uint64_t word, unsigned char c) {
  return bytes_below(word ^ (k_ones * c), 1);
}

}  // namespace

std::size_t python_len(std::string_view text) {
  // Every byte but a UTF-8 continuation byte (10xxxxxx) starts a code point.
  std::size_t n = text.size();
  std::size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    std::uint64_t word = load8(text.data() + i);
    // One bit per continuation byte, moved to the byte's low bit and summed by a
    // multiply (no POPCNT in the baseline instruction set).
    std::uint64_t continuation = (word & ~(word << 1) & k_highs) >> 7;
    n -= static_cast<std::size_t>((continuation * k_ones) >> 56);
  }
  for (; i < text.size(); ++i) {
    n -= (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80;
  }
  return n;
}

std::size_t python_repr_length(std::string_view text) {
  bool single = text.find('\'') != std::string_view::npos;
  bool dbl = text.find('"') != std::string_view::npos;
  const char quote = single && !dbl ? '"' : '\'';
  std::size_t n = 2;
  std::size_t i = 0;
  while (i < text.size()) {
    // Runs of printable ASCII that needs no escape count one each.
    if (i + 8 <= text.size()) {
      std::uint64_t word = load8(text.data() + i);
      if ((word & k_highs) == 0 &&
          (bytes_below(word, 0x20) | bytes_equal(word, 0x7F) | bytes_equal(word, '\\') |
           bytes_equal(word, static_cast<unsigned char>(quote))) == 0) {
        n += 8;
        i += 8;
        continue;
      }
    }
    auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      ++i;
      if (c == '\\' || c == static_cast<unsigned char>(quote) || c == '\t' || c == '\n' ||
          c == '\r') {
        n += 2;
      } else if (c < 0x20 || c == 0x7F) {
        n += 4;  // \xNN
      } else {
        n += 1;
      }
      continue;
    }
    char32_t cp = next_code_point(text, i);
    if (printable(cp)) {
      n += 1;
    } else {
      n += cp < 0x100 ? 4 : cp < 0x10000 ? 6 : 10;
    }
  }
  return n;
}

std::size_t python_repr_length(double value) {
  // Python's repr is the shortest string that round-trips, written in fixed
  // notation when the decimal exponent is in [-4, 16) and in scientific notation
  // ("1e-05", "1.5e+16") otherwise; fixed notation always has a fraction (".0").
  std::array<char, 64> buffer{};
  auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value,
                                 std::chars_format::scientific);
  if (ec != std::errc()) {
    return 3;  // "inf"/"nan" cannot come from JSON
  }
  std::string_view text(buffer.data(), static_cast<std::size_t>(end - buffer.data()));
  std::size_t sign = 0;
  if (!text.empty() && text.front() == '-') {
    sign = 1;
    text.remove_prefix(1);
  }
  std::size_t e = text.find('e');
  std::string_view mantissa = text.substr(0, e);
  int exponent = std::atoi(std::string(text.substr(e + 1)).c_str());
  std::size_t digits = mantissa.size() - (mantissa.find('.') != std::string_view::npos ? 1 : 0);
  if (exponent >= -4 && exponent < 16) {
    if (exponent >= 0) {
      auto whole = static_cast<std::size_t>(exponent) + 1;
      std::size_t fraction = digits > whole ? digits - whole : 1;
      return sign + whole + 1 + fraction;
    }
    return sign + 2 + static_cast<std::size_t>(-exponent - 1) + digits;
  }
  std::size_t exponent_digits = decimal_digits(static_cast<std::uint64_t>(std::abs(exponent)));
  return sign + (digits == 1 ? 1 : digits + 1) + 2 + std::max<std::size_t>(2, exponent_digits);
}

std::size_t python_repr_length(const JsonValue& value) {
  switch (value.GetType()) {
    case rapidjson::kNullType:
      return 4;  // None
    case rapidjson::kFalseType:
      return 5;  // False
    case rapidjson::kTrueType:
      return 4;  // True
    case rapidjson::kStringType:
      return python_repr_length(view_of(value));
    case rapidjson::kNumberType:
      if (value.IsUint64()) {
        return decimal_digits(value.GetUint64());
      }
      if (value.IsInt64()) {
        std::int64_t v = value.GetInt64();
        // -(v + 1) + 1 avoids overflow at INT64_MIN.
        return 1 + decimal_digits(static_cast<std::uint64_t>(-(v + 1)) + 1);
      }
      return python_repr_length(value.GetDouble());
    case rapidjson::kArrayType: {
      // "[" + ", ".join(...) + "]"
      std::size_t n = 2;
      for (const JsonValue& item : value.GetArray()) {
        n += python_repr_length(item);
      }
      return n + (value.Size() > 0 ? 2 * (value.Size() - 1) : 0);
    }
    case rapidjson::kObjectType: {
      // "{" + ", ".join(f"{key!r}: {value!r}") + "}"
      std::size_t n = 2;
      std::size_t members = 0;
      for (const auto& member : value.GetObject()) {
        n += python_repr_length(view_of(member.name)) + 2 + python_repr_length(member.value);
        ++members;
      }
      return n + (members > 0 ? 2 * (members - 1) : 0);
    }
  }
  return 0;
}

}  // namespace convo
