// The JSON string loops with AVX-512, for the CPUs that have it (asked once, at
// the first long string; never under AddressSanitizer):
//
// - the parse's string scan, 64 bytes a step (AVX-512BW): a base64 image (59% of
//   the bytes of the Responses bench file) is one run of thousands of such steps,
//   where the SSE2 scan of json_streams.h takes four. It is called only after a
//   clean run of 1 KB, so a short string costs nothing more, and now only in a
//   parse in place: a shadowed one (the reader's) goes to the unescape below
//   sooner. Converting the Responses bench file to openai took 2-3.5% less CPU
//   time.
// - the writer's escape of a long string, 64 bytes a step however many need an
//   escape (VBMI2's expand): tool output and patches, an escape every few dozen
//   bytes, where the SSE2 loop of json.h stops at each. A Claude Code log
//   converted to anthropic took 2% less at 32 bytes a step with masked stores;
//   whole stores and 64 bytes a step took the Responses bench file to openai 3.6%
//   less again.
// - the parse's unescaping of a string after its first escape or 64 clean bytes,
//   64 bytes a step (VBMI2's compress), into a shadow (the reader's parse): where
//   the SSE2 scan stops at each escape. Converting to openai took 24% less CPU
//   time on an OpenAI chat log, 16% on a Claude Code log, 8% on the Responses
//   file, 5% on a Codex rollout.
//
// The writer's clean runs and the UTF-8 check of what is written, tried the same
// way, gained nothing measurable (an image is written from its bytes as read, not
// escaped; the check is bound by memory), nor did noting a record's ASCII bytes to
// skip that check (the note cost what the check did).
#include "json_wide.h"

#include "json.h"
#include "json_streams.h"
#include "sanitizer.h"

#if defined(__x86_64__) && !defined(CONVO_ASAN)
#include <immintrin.h>

#include <algorithm>
#include <array>
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
inline std::uint64_t lanes_below(unsigned n) {
  return n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
}

}  // namespace

// Every load is of bytes the string still holds when it starts (its end is not yet
// found): the first, masked to the bytes from `p` to the next 64-byte boundary,
// then whole aligned blocks, each starting at a byte known to be readable (the
// block before held no end, so this one holds the string's next byte or the byte
// that ends it: the text's, or its padding's). None reads a page the text and its
// padding do not reach, whatever follows. A store
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

bool wide_escapes() {
  static const bool has = [] {
    __builtin_cpu_init();
    return wide_strings() && __builtin_cpu_supports("avx512vbmi") &&
           __builtin_cpu_supports("avx512vbmi2") && __builtin_cpu_supports("bmi2");
  }();
  return has;
}

namespace {

constexpr std::uint64_t k_even = 0x5555555555555555ULL;
constexpr std::uint64_t k_odd = 0xAAAAAAAAAAAAAAAAULL;

// Writes the first `n` (at most 32) bytes of `s`, of which `special` (a bit a
// byte) take a backslash before them (a control already its letter), escaped at
// `out`, and returns the end of what they make. In a layout of two slots an input
// byte, a special byte takes both (its backslash, then itself), another the first:
// `valid` are the slots taken, `take` those of input bytes, and pext squeezes out
// the rest, leaving where each output byte comes from; one expand puts them there.
// `whole`: one 64-byte store, past what it writes; else masked to what it writes.
__attribute__((target("avx512f,avx512bw,avx512vbmi,avx512vbmi2,bmi2"))) inline char* escape_step(
    char* out, __m512i s, std::uint64_t special, unsigned n, bool whole, __m512i backslashes) {
  __m512i bytes = s;
  unsigned count = n;
  if (special != 0) {
    const std::uint64_t slots = lanes_below(2 * n);
    const std::uint64_t second = _pdep_u64(special, k_odd & slots);
    const std::uint64_t valid = (k_even & slots) | second;
    const std::uint64_t take = _pdep_u64(~special & lanes_below(n), k_even & slots) | second;
    const __mmask64 from_input = _pext_u64(take, valid);
    bytes =
        _mm512_mask_blend_epi8(from_input, backslashes, _mm512_maskz_expand_epi8(from_input, s));
    count += static_cast<unsigned>(__builtin_popcountll(special));
  }
  if (whole) {
    _mm512_storeu_si512(out, bytes);
  } else {
    _mm512_mask_storeu_epi8(out, lanes_below(count), bytes);
  }
  return out + count;
}

}  // namespace

// 64 bytes of input a step, whatever their escapes: the quotes, backslashes and
// controls with a letter (\n) among them (`special`) each take a backslash before
// them (a control its letter in its place), each half of the step put in place by
// one expand (escape_step). A step with another control character (\u00XX), and the
// last bytes, go 32 a step with masked loads and stores, the control ending its
// step: escape_json's escape for it, then on.
//
// The 64-byte steps store whole blocks, past what they write when there are
// escapes: escape_json's room, six bytes a byte of input, has 384 bytes while a
// step's 64 are left, and a step stores 128 at most. Masked stores are kept to the
// last bytes: with them in every step (in the 32-byte loop alone, as this was at
// first) text with an escape every 20 bytes went at 6.5 GB/s, against 20 GB/s
// with whole stores (tool calls' text from the Responses bench file, this
// machine: AMD EPYC).
__attribute__((target("avx512f,avx512bw,avx512vbmi,avx512vbmi2,bmi2"))) char* wide_escape_json(
    char* out, const char* p, const char* end) {
  const __m512i backslashes = _mm512_set1_epi8('\\');
  // The letter of a control character's two-byte escape (\b \t \n \f \r), by its
  // value; 0 for one written \u00XX.
  alignas(64) static constexpr char k_letters[64] = {0, 0,   0,   0,   0, 0,   0,
                                                     0, 'b', 't', 'n', 0, 'f', 'r'};
  const __m512i letters = _mm512_load_si512(k_letters);
  while (p != end) {
    while (end - p >= 64) {
      __m512i s = _mm512_loadu_si512(p);
      const std::uint64_t control = _mm512_cmplt_epu8_mask(s, _mm512_set1_epi8(0x20));
      std::uint64_t lettered = 0;
      if (control != 0) {
        const __m512i letter = _mm512_maskz_permutexvar_epi8(control, s, letters);
        lettered = control & _mm512_test_epi8_mask(letter, letter);
        if (lettered != control) {
          break;  // a \u00XX escape
        }
        s = _mm512_mask_mov_epi8(s, lettered, letter);
      }
      const std::uint64_t special = _mm512_cmpeq_epi8_mask(s, _mm512_set1_epi8('"')) |
                                    _mm512_cmpeq_epi8_mask(s, backslashes) | lettered;
      p += 64;
      if (special == 0) {
        _mm512_storeu_si512(out, s);
        out += 64;
        continue;
      }
      out = escape_step(out, s, special & lanes_below(32), 32, true, backslashes);
      out = escape_step(out, _mm512_maskz_shuffle_i64x2(0xFF, s, s, 0xEE), special >> 32, 32, true,
                        backslashes);
    }
    if (p == end) {
      break;
    }
    auto n = static_cast<unsigned>(std::min<std::ptrdiff_t>(end - p, 32));
    std::uint64_t lanes = lanes_below(n);
    __m512i s = _mm512_maskz_loadu_epi8(lanes, p);
    const std::uint64_t control = _mm512_cmplt_epu8_mask(s, _mm512_set1_epi8(0x20)) & lanes;
    const __m512i letter = _mm512_maskz_permutexvar_epi8(control, s, letters);
    const std::uint64_t lettered = control & _mm512_test_epi8_mask(letter, letter);
    const std::uint64_t long_escape = control & ~lettered;
    if (long_escape != 0) {
      n = static_cast<unsigned>(__builtin_ctzll(long_escape));
      lanes = lanes_below(n);
    }
    s = _mm512_mask_mov_epi8(s, lettered, letter);  // a control's letter after its backslash
    const std::uint64_t special = (_mm512_cmpeq_epi8_mask(s, _mm512_set1_epi8('"')) |
                                   _mm512_cmpeq_epi8_mask(s, backslashes) | lettered) &
                                  lanes;
    out = escape_step(out, s, special, n, false, backslashes);
    p += n;
    if (long_escape != 0) {
      out = write_json_escape(out, static_cast<unsigned char>(*p++));
    }
  }
  return out;
}

bool wide_unescapes() {
  static const bool has = [] {
    __builtin_cpu_init();
    return wide_strings() && __builtin_cpu_supports("avx512vbmi") &&
           __builtin_cpu_supports("avx512vbmi2");
  }();
  return has;
}

// Each step loads the 64 bytes at `p` (fewer at a page's end: a masked load of the
// bytes left in `p`'s page, which the string reaches), and finds in them:
// - the escapes: which backslashes start one and which bytes they escape, from the
//   runs of backslashes (a byte after an odd run is escaped), with the carry trick
//   of simdjson (Langdale and Lemire, "Parsing gigabytes of JSON per second"). A
//   step starts where no escape is open, so nothing carries in; one whose last
//   byte starts an escape stops before it;
// - where it stops: a quote not escaped, a control character, or an escape that is
//   not one of the one-byte escapes (its escaped byte not in `k_table`);
// - the bytes before that, less the escapes' backslashes, each escaped byte as
//   what it stands for (`k_table`), compressed together by one VBMI2 compress.
// A step with no backslash and no end is stored as it was read. A step that does
// not stop stores 64 bytes whole: the text holds 64 bytes more
// than were read, so the shadow has room for them past `q`; the last step's store
// is masked to what it writes.
__attribute__((target("avx512f,avx512bw,avx512vbmi,avx512vbmi2"))) const char* wide_unescape_string(
    const char* p, char*& q_out, bool& slash) {
  // What the byte after a backslash stands for, for the one-byte escapes; 0 else.
  alignas(64) static constexpr auto k_table = [] {
    std::array<char, 128> table{};
    for (std::size_t i = 0; i < table.size(); ++i) {
      table[i] = k_one_byte_escapes[i];
    }
    return table;
  }();
  const __m512i low = _mm512_load_si512(k_table.data());
  const __m512i high = _mm512_load_si512(k_table.data() + 64);
  constexpr std::uint64_t k_last = std::uint64_t{1} << 63;
  char* q = q_out;
  for (;;) {
    const auto n = static_cast<unsigned>(
        std::min<std::uintptr_t>(64, 4096 - (reinterpret_cast<std::uintptr_t>(p) & 4095)));
    const std::uint64_t lanes = lanes_below(n);
    const __m512i s = n == 64 ? _mm512_loadu_si512(p) : _mm512_maskz_loadu_epi8(lanes, p);
    const std::uint64_t backslash = _mm512_cmpeq_epi8_mask(s, _mm512_set1_epi8('\\')) & lanes;
    const std::uint64_t quote = _mm512_cmpeq_epi8_mask(s, _mm512_set1_epi8('"'));
    const std::uint64_t control = _mm512_cmplt_epu8_mask(s, _mm512_set1_epi8(0x20));
    if (backslash == 0 && n == 64 && (quote | control) == 0) {  // a clean step
      _mm512_storeu_si512(q, s);
      p += 64;
      q += 64;
      continue;
    }
    const std::uint64_t code = (((backslash << 1) | k_odd) - backslash) ^ k_odd;
    const std::uint64_t escaped = code ^ backslash;               // the bytes escapes escape
    const std::uint64_t escape = code & backslash;                // the backslashes that start them
    const __m512i byte = _mm512_permutex2var_epi8(low, s, high);  // by the low 7 bits
    const std::uint64_t one_byte = _mm512_test_epi8_mask(byte, byte) & ~_mm512_movepi8_mask(s);
    // An escaped byte past the lanes read is 0 (a masked load): not one_byte.
    const std::uint64_t stop =
        (((quote & ~escaped) | control) & lanes) | ((escaped & ~one_byte) >> 1) | (escape & k_last);
    const unsigned taken = stop != 0 ? static_cast<unsigned>(__builtin_ctzll(stop)) : n;
    const std::uint64_t kept = ~escape & lanes_below(taken);
    const __m512i bytes = _mm512_maskz_compress_epi8(kept, _mm512_mask_mov_epi8(s, escaped, byte));
    const auto count = static_cast<unsigned>(__builtin_popcountll(kept));
    if ((escaped & lanes_below(taken) & _mm512_cmpeq_epi8_mask(s, _mm512_set1_epi8('/'))) != 0) {
      slash = true;
    }
    if (stop == 0 && n == 64) {
      _mm512_storeu_si512(q, bytes);
    } else {
      _mm512_mask_storeu_epi8(q, lanes_below(count), bytes);
    }
    p += taken;
    q += count;
    if (stop != 0) {
      q_out = q;
      return p;
    }
  }
}

}  // namespace convo

#else

namespace convo {
bool wide_strings() {
  return false;
}
std::size_t wide_scan_string(const char*, char*, bool) {
  return 0;
}
bool wide_escapes() {
  return false;
}
char* wide_escape_json(char* out, const char*, const char*) {
  return out;
}
bool wide_unescapes() {
  return false;
}
const char* wide_unescape_string(const char* p, char*&, bool&) {
  return p;
}
}  // namespace convo

#endif
