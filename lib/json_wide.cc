// The parse's string scan 64 bytes a step with AVX-512BW, for the CPUs that have
// it (asked once, at the first long string): a base64 image (59% of the bytes of
// the Responses bench file) is one run of thousands of such steps, where the SSE2
// scan of json_streams.h takes four. It is called only after 64 clean bytes, so
// a short string costs nothing more. Converting the Responses bench file to openai
// took 2.3% less CPU time. (The writer's escape and the UTF-8 check of what is
// written, tried the same way, gained nothing measurable: an image is written
// from its bytes as read, not escaped, and the check is bound by memory.)
#include "json_wide.h"

#include "sanitizer.h"

#if defined(__x86_64__) && !defined(CONVO_ASAN)
#include <immintrin.h>

#include <cstdint>

namespace convo {

bool wide_strings() {
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  }();
  return has;
}

namespace {

// The bytes of `s` that end a string's clean run: quote, backslash, below 0x20.
__attribute__((target("avx512f,avx512bw"))) inline __mmask64 special(__m512i s) {
  return _mm512_cmpeq_epi8_mask(s, _mm512_set1_epi8('"')) |
         _mm512_cmpeq_epi8_mask(s, _mm512_set1_epi8('\\')) |
         _mm512_cmplt_epu8_mask(s, _mm512_set1_epi8(0x20));
}

// The lanes below `n` (0-64).
inline std::uint64_t lanes_below(unsigned n) { return n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1; }

}  // namespace

// Every load is of bytes the string still holds when it starts (its end is not yet
// found): the first, masked to the bytes from `p` to the next 64-byte boundary,
// then whole aligned blocks, each in the page of a byte known to be the string's.
// None reads a page the text does not reach, whatever follows the text. A store
// writes only bytes of the string: whole for a clean block, masked to the bytes
// before the end in the last.
__attribute__((target("avx512f,avx512bw"))) std::size_t wide_scan_string(const char* p, char* q,
                                                                          bool copy) {
  const char* const start = p;
  const auto head = static_cast<unsigned>(64 - (reinterpret_cast<std::uintptr_t>(p) & 63));
  {
    const __mmask64 lanes = lanes_below(head);
    const __m512i s = _mm512_maskz_loadu_epi8(lanes, p);
    const __mmask64 stop = special(s) & lanes;
    const unsigned n = stop != 0 ? static_cast<unsigned>(__builtin_ctzll(stop)) : head;
    if (copy) {
      _mm512_mask_storeu_epi8(q, lanes_below(n), s);
    }
    if (stop != 0) {
      return n;
    }
    p += head;
    q += head;
  }
  for (;;) {
    const __m512i s = _mm512_load_si512(p);
    const __mmask64 stop = special(s);
    if (stop != 0) {
      const auto n = static_cast<unsigned>(__builtin_ctzll(stop));
      if (copy) {
        _mm512_mask_storeu_epi8(q, lanes_below(n), s);
      }
      return static_cast<std::size_t>(p + n - start);
    }
    if (copy) {
      _mm512_storeu_si512(q, s);
    }
    p += 64;
    q += 64;
  }
}

}  // namespace convo

#else

namespace convo {
bool wide_strings() { return false; }
std::size_t wide_scan_string(const char*, char*, bool) { return 0; }
}  // namespace convo

#endif
