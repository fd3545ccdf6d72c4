// json_as_read: a parsed value's source bytes, when they are what writing it gives.
#include <array>
#include <cstdint>
#include <cstring>

#include "json.h"

#ifdef CONVO_JSON_WRITER_SSE2
#include <emmintrin.h>
#endif

namespace convo {

namespace {

constexpr std::size_t k_not_as_written = std::string_view::npos;

// Whether `c` is an upper-case hex digit, as the writer spells \u00XX.
bool upper_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F'); }

// The offset just past the closing quote of the string whose text starts at `p` in
// `s` (`n` bytes), when every escape in it is the one `escape_json` writes for its
// character; npos otherwise. Adds the string's decoded length to `length`. With
// `k_validate`, a raw control character (not JSON) is npos too; without, the text
// is known to be JSON (the parser accepted it) and only quotes and backslashes stop
// the scan.
template <bool k_validate>
std::size_t scan_string(const char* s, std::size_t n, std::size_t p, std::size_t& length) {
  auto stops = [](char c) {
    return c == '"' || c == '\\' || (k_validate && static_cast<unsigned char>(c) < 0x20);
  };
  for (;;) {
    std::size_t run = 0;
#ifdef CONVO_JSON_WRITER_SSE2
    // 16 bytes a step to the next byte that stops it: most of a string is none.
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i below_space = _mm_set1_epi8(0x1F);
    while (p + run + 16 <= n) {
      const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + p + run));
      __m128i special = _mm_or_si128(_mm_cmpeq_epi8(block, quote), _mm_cmpeq_epi8(block, backslash));
      if constexpr (k_validate) {
        special = _mm_or_si128(special, _mm_cmpeq_epi8(_mm_max_epu8(block, below_space), below_space));
      }
      const auto mask = static_cast<unsigned>(_mm_movemask_epi8(special));
      if (mask != 0) {
        run += static_cast<std::size_t>(__builtin_ctz(mask));
        break;
      }
      run += 16;
    }
#endif
    while (p + run < n && !stops(s[p + run])) {
      ++run;
    }
    p += run;
    length += run;
    if (p >= n || (k_validate && static_cast<unsigned char>(s[p]) < 0x20)) {
      return k_not_as_written;
    }
    if (s[p] == '"') {
      return p + 1;
    }
    // An escape: the writer's are \" \\ \b \f \n \r \t and \u00XX (upper case) for
    // the other control characters; `\/`, `\u00e9` or a lower-case hex digit are
    // read alike but written otherwise.
    if (p + 1 >= n) {
      return k_not_as_written;
    }
    const char e = s[p + 1];
    if (e == '"' || e == '\\' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
      p += 2;
    } else if (e == 'u' && p + 5 < n && s[p + 2] == '0' && s[p + 3] == '0' &&
               (s[p + 4] == '0' || s[p + 4] == '1') && upper_hex(s[p + 5])) {
      const int c = (s[p + 4] - '0') * 16 + (s[p + 5] <= '9' ? s[p + 5] - '0' : s[p + 5] - 'A' + 10);
      if (c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t') {
        return k_not_as_written;
      }
      p += 6;
    } else {
      return k_not_as_written;
    }
    ++length;
  }
}

// The offset just past the number at `p`, when the writer gives it back as it is:
// an integer of at most 18 digits (it fits the integer types it is read as) other
// than -0. A fraction or an exponent is read as a double, written in its shortest
// form, which this does not try to foresee.
std::size_t scan_number(const char* s, std::size_t n, std::size_t p) {
  const std::size_t start = p;
  if (s[p] == '-') {
    ++p;
  }
  const std::size_t digits = p;
  while (p < n && s[p] >= '0' && s[p] <= '9') {
    ++p;
  }
  if (p == digits || p - digits > 18 || (p < n && (s[p] == '.' || s[p] == 'e' || s[p] == 'E'))) {
    return k_not_as_written;
  }
  if (s[start] == '-' && p - digits == 1 && s[digits] == '0') {
    return k_not_as_written;  // -0 is read as the integer 0
  }
  return p;
}

// The offset just past the JSON value at `p` in `s` (`n` bytes, text the parser
// accepted), when it is spelled as the writer writes what is read from it: compact,
// the writer's escapes, integers. npos otherwise. `members` counts the members (or
// elements) of the outermost container, `length` the decoded length of a string.
std::size_t scan_value(const char* s, std::size_t n, std::size_t p, std::size_t& members,
                       std::size_t& length) {
  int depth = 0;
  std::size_t commas = 0;  // of the outermost container
  bool filled = false;     // the outermost container has a member or element
  while (p < n) {
    const char c = s[p];
    if (c == '{' || c == '[') {
      filled = filled || depth == 1;
      ++depth;
      ++p;
      continue;
    }
    if (c == '}' || c == ']') {
      --depth;
      ++p;
      if (depth == 0) {
        members = filled ? commas + 1 : 0;
        return p;
      }
      if (depth < 0) {
        return k_not_as_written;
      }
      continue;
    }
    if (c == ',' || c == ':') {
      commas += c == ',' && depth == 1 ? 1 : 0;
      ++p;
      continue;
    }
    filled = filled || depth == 1;
    if (c == '"') {
      std::size_t string_length = 0;
      p = scan_string<false>(s, n, p + 1, string_length);
      if (p == k_not_as_written) {
        return p;
      }
      length = string_length;
    } else if (c == 't' || c == 'f' || c == 'n') {
      const std::string_view word = c == 't' ? "true" : c == 'f' ? "false" : "null";
      if (n - p < word.size() || std::memcmp(s + p, word.data(), word.size()) != 0) {
        return k_not_as_written;
      }
      p += word.size();
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      p = scan_number(s, n, p);
      if (p == k_not_as_written) {
        return p;
      }
    } else {
      return k_not_as_written;  // whitespace: spelled otherwise
    }
    if (depth == 0) {
      return p;
    }
  }
  return k_not_as_written;
}

// The offset just past the value `value` read from `raw` at `p`, when its bytes
// are as the writer writes it; npos otherwise. For a text parsed by
// parse_json_shadowed (`shadow`, as long as `raw`): its strings are where the
// shadow's marks say, found without scanning their bytes; numbers and the rest are
// read as scan_value reads them. Follows the value as parsed, so nesting is bounded
// by the parse's depth limit.
std::size_t marked_value_end(const JsonValue& value, const char* shadow, std::string_view raw,
                             std::size_t p) {
  const char* const s = raw.data();
  const std::size_t n = raw.size();
  if (p >= n) {
    return k_not_as_written;
  }
  switch (value.GetType()) {
    case rapidjson::kStringType: {
      if (s[p] != '"' || value.GetString() != shadow + p + 1) {
        return k_not_as_written;  // not a string of this shadow, or not at `p`
      }
      const std::size_t length = value.GetStringLength();
      std::size_t source = length;
      switch (static_cast<ShadowMark>(shadow[p])) {
        case ShadowMark::as_read:
          break;
        case ShadowMark::escaped_as_written:
          source += read_shadow_escapes(shadow + p + 1 + length + 1);
          break;
        default:
          return k_not_as_written;
      }
      const std::size_t end = p + 1 + source;
      return end < n && s[end] == '"' ? end + 1 : k_not_as_written;
    }
    case rapidjson::kObjectType: {
      if (s[p] != '{') {
        return k_not_as_written;
      }
      ++p;
      bool first = true;
      for (const auto& member : value.GetObject()) {
        if (!first) {
          if (p >= n || s[p] != ',') {
            return k_not_as_written;
          }
          ++p;
        }
        first = false;
        p = marked_value_end(member.name, shadow, raw, p);
        if (p == k_not_as_written || p >= n || s[p] != ':') {
          return k_not_as_written;
        }
        p = marked_value_end(member.value, shadow, raw, p + 1);
        if (p == k_not_as_written) {
          return p;
        }
      }
      return p < n && s[p] == '}' ? p + 1 : k_not_as_written;
    }
    case rapidjson::kArrayType: {
      if (s[p] != '[') {
        return k_not_as_written;
      }
      ++p;
      bool first = true;
      for (const auto& element : value.GetArray()) {
        if (!first) {
          if (p >= n || s[p] != ',') {
            return k_not_as_written;
          }
          ++p;
        }
        first = false;
        p = marked_value_end(element, shadow, raw, p);
        if (p == k_not_as_written) {
          return p;
        }
      }
      return p < n && s[p] == ']' ? p + 1 : k_not_as_written;
    }
    case rapidjson::kNumberType:
      return s[p] == '-' || (s[p] >= '0' && s[p] <= '9') ? scan_number(s, n, p) : k_not_as_written;
    default: {  // null, true, false
      const std::string_view word = value.IsNull() ? "null" : value.IsTrue() ? "true" : "false";
      return n - p >= word.size() && std::memcmp(s + p, word.data(), word.size()) == 0
                 ? p + word.size()
                 : k_not_as_written;
    }
  }
}

}  // namespace

std::string_view json_as_read(const JsonValue& value, std::string_view text, std::string_view raw) {
  if (text.size() != raw.size() || text.empty()) {
    return {};
  }
  // Where the value starts: a string's text is where the parser unescaped it (in
  // place: at its source's offset, past the quote); an object's, two bytes before its
  // first key's (`{"`, when compact). Other values carry no position.
  const char* anchor = nullptr;
  std::size_t back = 0;
  if (value.IsString()) {
    anchor = value.GetString();
    back = 1;
  } else if (value.IsObject() && value.MemberCount() > 0) {
    anchor = value.MemberBegin()->name.GetString();
    back = 2;
  } else {
    return {};
  }
  const auto base = reinterpret_cast<std::uintptr_t>(text.data());
  const auto at = reinterpret_cast<std::uintptr_t>(anchor);
  if (at < base + back || at >= base + text.size()) {
    return {};  // not parsed in place from `text`
  }
  const std::size_t start = at - base - back;
  if (value.IsObject() ? raw[start] != '{' || raw[start + 1] != '"' : raw[start] != '"') {
    return {};
  }
  // Parsed into a shadow (its mark at the first string's quote, where text parsed
  // in place has the quote): the value as parsed says where its strings end.
  if (text[at - base - 1] != '"') {
    const std::size_t end = marked_value_end(value, text.data(), raw, start);
    return end == k_not_as_written ? std::string_view() : raw.substr(start, end - start);
  }
  std::size_t members = 0;
  std::size_t length = 0;
  const std::size_t end = scan_value(raw.data(), raw.size(), start, members, length);
  if (end == k_not_as_written) {
    return {};
  }
  // The bytes found are this value's: the same number of members, or the same length.
  if (value.IsObject() ? members != value.MemberCount() : length != value.GetStringLength()) {
    return {};
  }
  return raw.substr(start, end - start);
}

namespace {

// scan_string for text not known to be JSON.
std::size_t valid_string(const char* s, std::size_t n, std::size_t p) {
  std::size_t length = 0;
  return scan_string<true>(s, n, p, length);
}

// The offset just past the integer at `p` when it is valid JSON the writer gives
// back as it is (scan_number's), with no leading zero; npos otherwise.
std::size_t valid_integer(const char* s, std::size_t n, std::size_t p) {
  const std::size_t digits = s[p] == '-' ? p + 1 : p;
  if (digits < n && s[digits] == '0' && digits + 1 < n && s[digits + 1] >= '0' &&
      s[digits + 1] <= '9') {
    return k_not_as_written;  // a leading zero: not JSON
  }
  return scan_number(s, n, p);
}

}  // namespace

bool json_valid_as_written(std::string_view text) {
  return json_spelling(text) == JsonSpelling::as_written;
}

JsonSpelling json_spelling(std::string_view text) {
  constexpr JsonSpelling k_unknown = JsonSpelling::unknown;
  const char* const s = text.data();
  const std::size_t n = text.size();
  bool spaced = false;  // whitespace between tokens (JSON's four characters)
  auto skip_space = [&](std::size_t& at) {
    while (at < n && (s[at] == ' ' || s[at] == '\n' || s[at] == '\r' || s[at] == '\t')) {
      spaced = true;
      ++at;
    }
  };
  // The open containers, innermost last: as deep as the parse reads (k_max_json_depth).
  std::array<char, k_max_json_depth> open;
  std::size_t depth = 0;
  std::size_t p = 0;
  enum class Next { value, value_or_close, key_or_close, key, after_value } next = Next::value;
  for (;;) {
    skip_space(p);
    if (p >= n) {
      return k_unknown;
    }
    const char c = s[p];
    switch (next) {
      case Next::key_or_close:
      case Next::key:
        if (c == '}' && next == Next::key_or_close) {
          --depth;
          ++p;
          next = Next::after_value;
          break;
        }
        if (c != '"') {
          return k_unknown;
        }
        p = valid_string(s, n, p + 1);
        if (p == k_not_as_written || p >= n || s[p] != ':') {
          return k_unknown;
        }
        ++p;
        next = Next::value;
        break;
      case Next::value:
      case Next::value_or_close:
        if (c == ']' && next == Next::value_or_close) {
          --depth;
          ++p;
          next = Next::after_value;
          break;
        }
        if (c == '{' || c == '[') {
          if (depth == open.size()) {
            return k_unknown;  // deeper than the parse reads
          }
          open[depth++] = c;
          ++p;
          next = c == '{' ? Next::key_or_close : Next::value_or_close;
          break;
        }
        if (c == '"') {
          p = valid_string(s, n, p + 1);
        } else if (c == '-' || (c >= '0' && c <= '9')) {
          p = valid_integer(s, n, p);
        } else {
          const std::string_view word = c == 't' ? "true" : c == 'f' ? "false" : "null";
          if (n - p < word.size() || std::memcmp(s + p, word.data(), word.size()) != 0) {
            return k_unknown;
          }
          p += word.size();
        }
        if (p == k_not_as_written) {
          return k_unknown;
        }
        next = Next::after_value;
        break;
      case Next::after_value:
        if (depth == 0) {
          return k_unknown;  // something after the value
        }
        if (c == ',') {
          ++p;
          next = open[depth - 1] == '{' ? Next::key : Next::value;
        } else if (c == (open[depth - 1] == '{' ? '}' : ']')) {
          --depth;
          ++p;
        } else {
          return k_unknown;
        }
        break;
    }
    if (next == Next::after_value && depth == 0) {
      skip_space(p);
      if (p != n) {
        return k_unknown;
      }
      return spaced ? JsonSpelling::spaced : JsonSpelling::as_written;
    }
  }
}

}  // namespace convo
