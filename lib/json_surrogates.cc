// Lone UTF-16 surrogate escapes in a text parsed in place or apart from the reader
// (a bad line looked at again, a document, a message re-parsed), read as U+FFFD as
// the reader's scan reads them (json_streams.h).
#include <string>
#include <string_view>

#include "json.h"
#include "json_streams.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace convo {

namespace {

// The offset of the first "\\u" in `data` (`size` bytes) at or after `from`, or npos.
// 64 bytes without a backslash (base64 media, most prose) take one test; a block
// with one is looked through 16 bytes a step for a backslash before a `u`.
std::size_t find_backslash_u(const char* data, std::size_t size, std::size_t from) {
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i u = _mm_set1_epi8('u');
  auto load = [&](std::size_t at) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + at));
  };
  auto find16 = [&](std::size_t at) {  // reads data[at, at + 17)
    return _mm_movemask_epi8(
        _mm_and_si128(_mm_cmpeq_epi8(load(at), backslash), _mm_cmpeq_epi8(load(at + 1), u)));
  };
  std::size_t i = from;
  while (i + 65 <= size) {
    const __m128i any = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(load(i), backslash), _mm_cmpeq_epi8(load(i + 16), backslash)),
        _mm_or_si128(_mm_cmpeq_epi8(load(i + 32), backslash),
                     _mm_cmpeq_epi8(load(i + 48), backslash)));
    if (_mm_movemask_epi8(any) == 0) {
      i += 64;
      continue;
    }
    // Backslashes (a Codex or Claude Code line has one every few dozen bytes: \n,
    // \"): whether one is before a `u`, for the 64 bytes at once, without a branch
    // for each 16 (branches that went either way were most of this scan).
    const __m128i found = _mm_or_si128(
        _mm_or_si128(_mm_and_si128(_mm_cmpeq_epi8(load(i), backslash), _mm_cmpeq_epi8(load(i + 1), u)),
                     _mm_and_si128(_mm_cmpeq_epi8(load(i + 16), backslash),
                                   _mm_cmpeq_epi8(load(i + 17), u))),
        _mm_or_si128(_mm_and_si128(_mm_cmpeq_epi8(load(i + 32), backslash),
                                   _mm_cmpeq_epi8(load(i + 33), u)),
                     _mm_and_si128(_mm_cmpeq_epi8(load(i + 48), backslash),
                                   _mm_cmpeq_epi8(load(i + 49), u))));
    if (_mm_movemask_epi8(found) == 0) {
      i += 64;
      continue;
    }
    for (const std::size_t stop = i + 64; i < stop; i += 16) {
      if (int mask = find16(i); mask != 0) {
        return i + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
      }
    }
  }
  for (; i + 17 <= size; i += 16) {
    if (int mask = find16(i); mask != 0) {
      return i + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
    }
  }
  for (; i + 1 < size; ++i) {
    if (data[i] == '\\' && data[i + 1] == 'u') {
      return i;
    }
  }
  return std::string_view::npos;
}

// Calls `found(i)` for the offset of every UTF-16 surrogate escape in `text` that is
// not half of a pair; returns how many there are. It runs on every record, so it
// looks for "\\u" 16 bytes at a time (a memchr stop at each backslash cost 7% of
// buffer-string on Claude Code logs, dense with \n and \"; glibc's memmem more), and
// a hit is an escape only when the backslash is not itself escaped.
template <typename Found>
std::size_t for_each_lone_surrogate(std::string_view text, Found found) {
  std::size_t count = 0;
  const std::size_t size = text.size();
  const char* data = text.data();
  auto escape_at = [&](std::size_t i) {
    return i + 6 <= size && data[i] == '\\' && data[i + 1] == 'u' ? hex4_at(data + i + 2) : -1;
  };
  std::size_t i = 0;
  while (i + 6 <= size) {
    std::size_t at = find_backslash_u(data, size, i);
    if (at == std::string_view::npos) {
      break;
    }
    std::size_t before = 0;  // backslashes just before: an odd run escapes this one
    while (before < at && data[at - 1 - before] == '\\') {
      ++before;
    }
    int unit = before % 2 == 0 ? escape_at(at) : -1;
    if (unit < 0) {
      i = at + 2;
      continue;
    }
    if (unit >= 0xD800 && unit <= 0xDBFF) {
      int low = escape_at(at + 6);
      if (low >= 0xDC00 && low <= 0xDFFF) {
        i = at + 12;  // a pair
        continue;
      }
    } else if (unit < 0xDC00 || unit > 0xDFFF) {
      i = at + 6;
      continue;
    }
    found(at);
    ++count;
    i = at + 6;
  }
  return count;
}

}  // namespace

std::size_t replace_lone_surrogates(std::string& text) {
  // The text's size does not change, so the string_view stays valid.
  return for_each_lone_surrogate(text, [&](std::size_t i) { text.replace(i + 2, 4, "fffd"); });
}

std::size_t count_lone_surrogates(std::string_view text) {
  return for_each_lone_surrogate(text, [](std::size_t) {});
}

}  // namespace convo
