#include "json_dialects.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

namespace convo {

namespace {

// The shortest decimal digits that read back as `value` (not zero, finite), and
// the position of the decimal point: value = 0.<digits> * 10^point.
struct Decimal {
  bool negative = false;
  std::string digits;
  int point = 0;
};

Decimal shortest_decimal(double value) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  std::string_view text(buffer, static_cast<std::size_t>(result.ptr - buffer));
  Decimal d;
  if (text.front() == '-') {
    d.negative = true;
    text.remove_prefix(1);
  }
  std::size_t e = text.find('e');
  for (char c : text.substr(0, e)) {
    if (c != '.') {
      d.digits += c;
    }
  }
  int exponent = 0;
  std::string_view power = text.substr(e + 1);
  if (!power.empty() && power.front() == '+') {
    power.remove_prefix(1);
  }
  std::from_chars(power.data(), power.data() + power.size(), exponent);
  d.point = exponent + 1;
  return d;
}

// How a language prints a float: in plain notation while the decimal point is
// within (low, high] of the digits' start, in exponent notation outside; integral
// values in plain notation end in `integral_suffix`.
struct FloatStyle {
  int low;
  int high;
  std::string_view integral_suffix;
  std::size_t exponent_digits;  // at least this many, after the sign
};

constexpr FloatStyle k_javascript{-6, 21, "", 1};  // Number.prototype.toString
constexpr FloatStyle k_python{-4, 16, ".0", 2};    // float.__repr__

void append_decimal(double value, const FloatStyle& style, std::string& out) {
  Decimal d = shortest_decimal(value);
  if (d.negative) {
    out += '-';
  }
  int k = static_cast<int>(d.digits.size());
  int n = d.point;
  if (style.low < n && n <= style.high) {
    if (n <= 0) {
      out += "0.";
      out.append(static_cast<std::size_t>(-n), '0');
      out += d.digits;
    } else if (n >= k) {
      out += d.digits;
      out.append(static_cast<std::size_t>(n - k), '0');
      out += style.integral_suffix;
    } else {
      out.append(d.digits, 0, static_cast<std::size_t>(n));
      out += '.';
      out.append(d.digits, static_cast<std::size_t>(n));
    }
    return;
  }
  out += d.digits[0];
  if (k > 1) {
    out += '.';
    out.append(d.digits, 1);
  }
  out += 'e';
  int exponent = n - 1;
  out += exponent < 0 ? '-' : '+';
  std::string digits = std::to_string(std::abs(exponent));
  if (digits.size() < style.exponent_digits) {
    out.append(style.exponent_digits - digits.size(), '0');
  }
  out += digits;
}

void append_js_number(double value, std::string& out) {
  if (!std::isfinite(value)) {
    out += "null";  // JSON.stringify(NaN), JSON.stringify(Infinity)
  } else if (value == 0) {
    out += '0';  // also -0
  } else {
    append_decimal(value, k_javascript, out);
  }
}

void append_python_float(double value, std::string& out) {
  if (std::isnan(value)) {
    out += "NaN";
  } else if (std::isinf(value)) {
    out += value > 0 ? "Infinity" : "-Infinity";
  } else if (value == 0) {
    out += std::signbit(value) ? "-0.0" : "0.0";
  } else {
    append_decimal(value, k_python, out);
  }
}

// The value of a key that JavaScript treats as an array index: the canonical
// decimal form of an integer from 0 to 2^32 - 2.
std::optional<std::uint32_t> array_index(std::string_view key) {
  if (key.empty() || key.size() > 10 || (key.size() > 1 && key[0] == '0')) {
    return std::nullopt;
  }
  std::uint64_t n = 0;
  for (char c : key) {
    if (c < '0' || c > '9') {
      return std::nullopt;
    }
    n = n * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (n > 0xFFFFFFFEu) {
    return std::nullopt;
  }
  return static_cast<std::uint32_t>(n);
}

using Member = std::pair<std::string_view, const JsonValue*>;

// An object's members as a parser keeps them: the last of duplicate keys, in the
// place of the first. Small objects (the usual tool arguments) are searched,
// large ones indexed.
std::vector<Member> unique_members(const JsonValue& object) {
  constexpr rapidjson::SizeType k_search_up_to = 16;
  std::vector<Member> members;
  members.reserve(object.MemberCount());
  std::unordered_map<std::string_view, std::size_t> index;
  bool indexed = object.MemberCount() > k_search_up_to;
  for (const auto& member : object.GetObject()) {
    std::string_view key = view_of(member.name);
    std::size_t found = members.size();
    if (indexed) {
      found = index.try_emplace(key, members.size()).first->second;
    } else {
      for (std::size_t i = 0; i < members.size(); ++i) {
        if (members[i].first == key) {
          found = i;
          break;
        }
      }
    }
    if (found < members.size()) {
      members[found].second = &member.value;
    } else {
      members.emplace_back(key, &member.value);
    }
  }
  return members;
}

enum class Dialect { js, python };

void append_value(const JsonValue& value, Dialect dialect, std::string& out);

void append_object(const JsonValue& object, Dialect dialect, std::string& out) {
  std::vector<Member> members = unique_members(object);
  if (dialect == Dialect::js &&
      std::any_of(members.begin(), members.end(),
                  [](const Member& m) { return array_index(m.first).has_value(); })) {
    auto numeric_end = std::stable_partition(members.begin(), members.end(), [](const Member& m) {
      return array_index(m.first).has_value();
    });
    std::sort(members.begin(), numeric_end, [](const Member& a, const Member& b) {
      return *array_index(a.first) < *array_index(b.first);
    });
  }
  const char* comma = dialect == Dialect::js ? "," : ", ";
  const char* colon = dialect == Dialect::js ? ":" : ": ";
  out += '{';
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (i > 0) {
      out += comma;
    }
    append_json_string(members[i].first, out);
    out += colon;
    append_value(*members[i].second, dialect, out);
  }
  out += '}';
}

void append_value(const JsonValue& value, Dialect dialect, std::string& out) {
  switch (value.GetType()) {
    case rapidjson::kNullType:
      out += "null";
      return;
    case rapidjson::kFalseType:
      out += "false";
      return;
    case rapidjson::kTrueType:
      out += "true";
      return;
    case rapidjson::kStringType:
      append_json_string(view_of(value), out);
      return;
    case rapidjson::kNumberType:
      if (dialect == Dialect::python) {
        if (value.IsInt64()) {
          out += std::to_string(value.GetInt64());
        } else if (value.IsUint64()) {
          out += std::to_string(value.GetUint64());
        } else {
          append_python_float(value.GetDouble(), out);
        }
      } else if (value.IsInt64() && std::abs(value.GetInt64()) <= (std::int64_t{1} << 53)) {
        out += std::to_string(value.GetInt64());
      } else {
        append_js_number(value.GetDouble(), out);
      }
      return;
    case rapidjson::kArrayType: {
      out += '[';
      bool first = true;
      for (const JsonValue& element : value.GetArray()) {
        if (!first) {
          out += dialect == Dialect::js ? "," : ", ";
        }
        first = false;
        append_value(element, dialect, out);
      }
      out += ']';
      return;
    }
    case rapidjson::kObjectType:
      append_object(value, dialect, out);
      return;
  }
}

}  // namespace

// Ours rather than RapidJSON's Writer::String, because that writes control
// characters as \u001F where JSON.stringify and json.dumps write \u001f, and
// output must match theirs byte for byte. Measured with callgrind on 4 MB of string
// values from the corpus: 25.5M instructions (67.6M byte by byte before the 8-byte
// skip and the table), RapidJSON's writer 16.8M: 2 instructions a byte more, the
// price of the lower case.
void append_json_string(std::string_view text, std::string& out) {
  static constexpr char k_hex[] = "0123456789abcdef";
  constexpr std::uint64_t k_ones = 0x0101010101010101ULL;
  constexpr std::uint64_t k_highs = 0x8080808080808080ULL;
  // The letter of a two-character escape (\n for a newline), or 0 for \u00XX.
  static constexpr auto k_short_escapes = [] {
    std::array<char, 0x60> letters{};
    letters['"'] = '"';
    letters['\\'] = '\\';
    letters['\b'] = 'b';
    letters['\f'] = 'f';
    letters['\n'] = 'n';
    letters['\r'] = 'r';
    letters['\t'] = 't';
    return letters;
  }();
  out.reserve(out.size() + text.size() + 2);
  out += '"';
  std::size_t run = 0;  // start of the characters not yet written
  for (std::size_t i = 0; i < text.size(); ++i) {
    // Skips 8 bytes at once while none of them needs escaping: no byte below 0x20
    // (nor at or above 0x80, where the test of the next line cannot tell), and
    // none equal to '"' or '\\' (a zero byte after the xor).
    while (i + 8 <= text.size()) {
      std::uint64_t w = 0;
      std::memcpy(&w, text.data() + i, 8);
      std::uint64_t quote = w ^ (k_ones * '"');
      std::uint64_t backslash = w ^ (k_ones * '\\');
      std::uint64_t special = ((w - k_ones * 0x20) | (quote - k_ones) | (backslash - k_ones)) &
                              ~w & k_highs;
      if (special != 0) {
        break;
      }
      i += 8;
    }
    if (i >= text.size()) {
      break;
    }
    auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != '"' && c != '\\') {
      continue;
    }
    out.append(text.data() + run, i - run);
    run = i + 1;
    if (char letter = k_short_escapes[c]; letter != 0) {
      const char escape[2] = {'\\', letter};
      out.append(escape, 2);
    } else {
      const char escape[6] = {'\\', 'u', '0', '0', k_hex[c >> 4], k_hex[c & 15]};
      out.append(escape, 6);
    }
  }
  out.append(text, run);
  out += '"';
}

void append_js_json(const JsonValue& value, std::string& out) {
  append_value(value, Dialect::js, out);
}

void append_python_json(const JsonValue& value, std::string& out) {
  append_value(value, Dialect::python, out);
}

}  // namespace convo
