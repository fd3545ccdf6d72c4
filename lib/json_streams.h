// The parser's streams and string scans, private to libconvo's JSON files: the
// streams RapidJSON reads records and tool inputs through, the specialisations of
// its string scan and whitespace skip for them, and the escape helpers they share
// (json.cc parses; json_surrogates.cc finds lone surrogates as the scan does).
// Included where the reader is instantiated, so that it sees them.
#pragma once

#include <rapidjson/reader.h>

#include <array>
#include <cstddef>
#include <cstring>
#include <string_view>

#include "json.h"
#include "json_wide.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace convo {

// Bytes of zeros kept after the text of an in-place parse, so that the string scan
// below may load 16 bytes at any position up to the terminating NUL.
constexpr std::size_t k_parse_padding = k_json_parse_padding;

// The stream of parse_json and parse_json_prefix: a type of its own, so that the
// reader scans its strings byte by byte rather than with RapidJSON's SSE2 scan for
// StringStream, which lets the raw control characters 0x1A-0x1F through (it
// compares with 0x19). Those are an error in every parse, in every build. This
// parse serves short texts (tool inputs, stream events), multi-line documents and
// the second look at a bad line; records go through parse_json_in_place.
struct StrictStringStream : rapidjson::StringStream {
  explicit StrictStringStream(const char* text) : rapidjson::StringStream(text) {}
};

// The stream of an in-place parse whose text is followed by a NUL and
// k_parse_padding - 1 more readable bytes. A type of its own, so that the reader
// takes the string scan specialised for it below rather than its own for
// InsituStringStream.
//
// With `shadow` (parse_json_shadowed), each string is unescaped into `shadow` at
// its own offset in the text, rather than over the text, which is then only read:
// a string's position still tells where it was read from (json_as_read), and the
// text can be the reader's buffer or a record's bytes kept as they were. The
// reader asks for the place to write at (`PutBegin`) just after a string's opening
// quote, and for where a number starts (to read it there: DepthLimitedHandler
// converts numbers, keeping no pointer to them), which is never after a quote.
//
// With `replace_lone`, a UTF-16 surrogate escape that is not half of a pair is
// read as U+FFFD (counted in `lone_surrogates`) where the parser would refuse a
// lone high half and turn a lone low half into bytes that are not UTF-8: the scan
// below does it as it meets the escape, so that records need no pass of their own
// for it.
//
// In a shadow, the byte at each string's opening quote says how the string's bytes
// read (json.h, ShadowMark), for json_as_read to find a string's bytes without
// scanning them: the parse saw every escape.
struct PaddedInsituStream : rapidjson::InsituStringStream {
  explicit PaddedInsituStream(char* text, char* shadow = nullptr, bool replace = false)
      : rapidjson::InsituStringStream(text), replace_lone(replace), m_shadow(shadow) {}

  char* PutBegin() {
    const bool string = m_shadow != nullptr && src_ != head_ && src_[-1] == '"';
    if (!string) {
      return dst_ = src_;
    }
    m_as_written = true;
    return dst_ = m_shadow + (src_ - head_);
  }
  // After a string's NUL is written, `begin` where PutBegin said.
  std::size_t PutEnd(char* begin) {
    const auto size = static_cast<std::size_t>(dst_ - begin);  // with the NUL
    if (m_shadow != nullptr) {
      mark(begin, size - 1);
    }
    return size;
  }
  // Whether strings go to a shadow rather than over the text.
  bool shadowed() const { return m_shadow != nullptr; }
  // A copy for the reader to read with, member by member (StreamLocalCopy below,
  // which says why).
  struct Local {};
  // Each member is loaded on its own (`apart`): GCC merged the loads of `src_` and
  // `dst_` into one of 16 bytes, and of the two flags into one of 2, and such a
  // load waits for the smaller stores resume() made of them at the string before
  // to leave the core (a fifth of the parse's time in strings, converting a
  // Responses file).
  PaddedInsituStream(const PaddedInsituStream& original, Local)
      : rapidjson::InsituStringStream(original.head_),
        lone_surrogates(original.lone_surrogates),
        replace_lone(original.replace_lone),
        m_as_written(apart(original.m_as_written)),
        m_shadow(original.m_shadow) {
    src_ = apart(original.src_);
    dst_ = apart(original.dst_);
  }
  // Takes back what a local copy of the stream read (StreamLocalCopy below).
  void resume(const PaddedInsituStream& local) {
    src_ = local.src_;
    dst_ = local.dst_;
    lone_surrogates = local.lone_surrogates;
    m_as_written = local.m_as_written;
  }
  // The string being read has an escape the writer spells otherwise (`\/`, `\u`).
  void spelled_otherwise() { m_as_written = false; }

  // How many lone surrogates were read as U+FFFD: 32 bits, as a record is under 4
  // GiB (--max-record-size) and each takes six. The stream is copied in and out at
  // every string and object the reader parses: it is kept to 40 bytes.
  std::uint32_t lone_surrogates = 0;
  bool replace_lone;

 private:
  // Marks the string `length` bytes long just written at `begin`, whose closing
  // quote was just read. Its bytes from the first to the closing quote, `source`
  // of them, say the same with `source - length` bytes of escapes more: those
  // bytes of the shadow (past the string's NUL, before where its closing quote
  // was) are unused, and hold that difference when the mark needs it.
  void mark(char* begin, std::size_t length) {
    const auto source = static_cast<std::size_t>(src_ - head_ - (begin - m_shadow)) - 1;
    const std::size_t escapes = source - length;
    if (escapes == 0) {
      begin[-1] = static_cast<char>(convo::ShadowMark::as_read);
      return;
    }
    if (!m_as_written) {
      begin[-1] = static_cast<char>(convo::ShadowMark::spelled_otherwise);
      return;
    }
    begin[-1] = static_cast<char>(convo::ShadowMark::escaped_as_written);
    convo::write_shadow_escapes(begin + length + 1, escapes);
  }

  // `value`, which the compiler cannot merge with a load beside it.
  template <class T>
  static T apart(T value) {
    asm("" : "+r"(value));
    return value;
  }

  bool m_as_written = true;  // beside replace_lone
  char* m_shadow;
};
static_assert(sizeof(PaddedInsituStream) <= 40);

// The value of the four hex digits at `p`, or -1; reads no further than the first
// byte that is not one (a NUL ends the text).
inline int hex4_at(const char* p) {
  int value = 0;
  for (int i = 0; i < 4; ++i) {
    const char c = p[i];
    const int digit = c >= '0' && c <= '9'   ? c - '0'
                      : c >= 'a' && c <= 'f' ? c - 'a' + 10
                      : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                             : -1;
    if (digit < 0) {
      return -1;
    }
    value = value * 16 + digit;
  }
  return value;
}

// Whether the escape at `p` (a backslash the string scan stopped at, so not itself
// escaped) is a UTF-16 surrogate escape that is not half of a pair: a high half not
// followed by a low one, or a low half (the parser takes a pair whole, so the scan
// never stops at the low half of one). The same escapes replace_lone_surrogates
// finds.
inline bool lone_surrogate_at(const char* p) {
  if (p[1] != 'u') {
    return false;
  }
  const int unit = hex4_at(p + 2);
  if (unit < 0xD800 || unit > 0xDFFF) {
    return false;
  }
  if (unit >= 0xDC00) {
    return true;
  }
  // p[2..5] were digits, so p[6] is in the text or its NUL; p[7] only if p[6] was not.
  if (p[6] != '\\' || p[7] != 'u') {
    return true;
  }
  const int low = hex4_at(p + 8);
  return low < 0xDC00 || low > 0xDFFF;
}

// What each escape of one byte (`\n`, `\"`, ...) stands for, by the byte after the
// backslash; 0 for the others (`\u`, and what is not an escape).
inline constexpr auto k_one_byte_escapes = [] {
  std::array<char, 256> table{};
  table['"'] = '"';
  table['\\'] = '\\';
  table['/'] = '/';
  table['b'] = '\b';
  table['f'] = '\f';
  table['n'] = '\n';
  table['r'] = '\r';
  table['t'] = '\t';
  return table;
}();

// Whether the `\u` escape at `p` is as the writer writes its character: `\u00XX`
// in upper-case hex for a control character other than \b \t \n \f \r.
inline bool written_unicode_escape(const char* p) {
  auto upper_hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F'); };
  if (p[1] != 'u' || p[2] != '0' || p[3] != '0' || (p[4] != '0' && p[4] != '1') ||
      !upper_hex(p[5])) {
    return false;
  }
  const int c = (p[4] - '0') * 16 + (p[5] <= '9' ? p[5] - '0' : p[5] - 'A' + 10);
  return c != '\b' && c != '\t' && c != '\n' && c != '\f' && c != '\r';
}

// When the escape at `p` is a lone surrogate (lone_surrogate_at), writes U+FFFD at
// `q` for it: the caller steps past six bytes read and three written, so in place
// `q` stays behind `p`. Out of the scan's way: most records have none.
[[gnu::noinline, gnu::cold]] inline bool replaced_lone_surrogate(const char* p, char* q) {
  if (!lone_surrogate_at(p)) {
    return false;
  }
  q[0] = '\xEF';
  q[1] = '\xBF';
  q[2] = '\xBD';
  return true;
}

// True when an in-place parse of `copy` (its padding of NULs after its size) stopped
// at a value followed by whitespace alone up to the text's real end (not a NUL).
inline bool ends_after_value(const PaddedInsituStream& stream, std::string_view copy) {
  const char* end = copy.data() + copy.size();
  if (stream.src_ > end) {
    return false;
  }
  for (const char* p = stream.src_; p < end; ++p) {
    if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
      return false;
    }
  }
  return true;
}


}  // namespace convo

// Copied into a local by the reader, as RapidJSON's own string streams are (faster).
template <>
struct rapidjson::StreamTraits<convo::StrictStringStream> {
  enum { copyOptimization = 1 };
};

template <>
struct rapidjson::StreamTraits<convo::PaddedInsituStream> {
  enum { copyOptimization = 1 };
};

// The reader's local copy of the stream, made for every string it parses (keys
// too) and copied back after: member by member, both ways. RapidJSON's copies the
// whole struct, and the compiler moved it 16 bytes at a time, over members just
// written 8 bytes at a time, and back: each load waited for the stores it spanned.
// Member by member, converting a Claude Code log took 6% less CPU time and the
// Responses bench file 4% less; without a local copy at all (copyOptimization 0),
// the Responses file 5% less but a Claude Code log, whose strings are escapes every
// few bytes, twice as much.
template <>
class rapidjson::internal::StreamLocalCopy<convo::PaddedInsituStream, 1> {
 public:
  explicit StreamLocalCopy(convo::PaddedInsituStream& original)
      : s(original, convo::PaddedInsituStream::Local{}), original_(original) {}
  ~StreamLocalCopy() { original_.resume(s); }
  StreamLocalCopy(const StreamLocalCopy&) = delete;
  StreamLocalCopy& operator=(const StreamLocalCopy&) = delete;

  convo::PaddedInsituStream s;

 private:
  convo::PaddedInsituStream& original_;
};

// Skips whitespace between tokens. The records programs write are compact: the next
// byte is a token, one test. RapidJSON's generic loop (through a local copy of the
// stream) stayed a call at every token, 5% of the CPU time of converting a Codex
// rollout. The padding's NUL ends the loop. A shadowed parse reads one line, which
// holds no newline: one after it ends the text as the NUL does (a mapped line is
// parsed where it is, followed by the next lines, not by a NUL: record_reader.cc),
// so that no parse of a line reads on into the next.
template <>
inline void rapidjson::SkipWhitespace<convo::PaddedInsituStream>(convo::PaddedInsituStream& is) {
  char* p = is.src_;
  while (*p == ' ' || *p == '\r' || *p == '\t' || (*p == '\n' && !is.shadowed())) {
    ++p;
  }
  is.src_ = p;
}

// Copies (or, in place before the first escape, skips) a string's bytes up to the
// next quote, backslash or control character, 16 at a time with SSE2. RapidJSON's
// own version goes byte by byte to a 16-byte boundary before each SIMD run (its
// input may end anywhere); in transcripts, whose tool output has an escape every
// ~20 bytes, that prologue is most of the parse. The padding lets every load be
// unaligned instead. It also stops at 0x1A-0x1F, which RapidJSON's SSE2 scan lets
// through (it compares with 0x19), so that raw control characters are an error as
// in the byte-wise parse. Ours stays, specialising RapidJSON's reader rather than
// replacing it (simdjson is not an in-place DOM that keeps bytes): callgrind on 20
// MB of transcripts, filter 292M -> 236M instructions with it (commit 5bb95a7).
// A lone surrogate escape it stops at is written as U+FFFD and passed when the
// stream says to (PaddedInsituStream::replace_lone); every other escape is left to
// RapidJSON.
template <>
template <>
inline void rapidjson::GenericReader<rapidjson::UTF8<>, rapidjson::UTF8<>, convo::JsonBaseAllocator>::
    ScanCopyUnescapedString<convo::PaddedInsituStream, convo::PaddedInsituStream>(
        convo::PaddedInsituStream& is, convo::PaddedInsituStream& /*os: the same stream*/) {
  char* p = is.src_;
  char* q = is.dst_;
#ifdef __SSE2__
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i below_space = _mm_set1_epi8(0x1F);
  // 16-byte steps in a row without an end: after 64 (1 KB), the rest of the run is
  // scanned wide (json_wide.cc), in a parse in place (a shadowed one goes wide
  // sooner, below). After 4 or 16, strings of a few hundred bytes (an
  // OpenAI chat log's) paid for the call more than the wide steps saved: 1-3%.
  int clean = 0;
  // One-byte escapes met: after the first, or after 64 clean bytes, the rest of
  // the string is unescaped wide (json_wide.cc), into a shadow. Text with an
  // escape every 20 bytes (tool calls' input and output) is most of the parse of
  // an agent's log but for its images. From a string's start instead (keys and
  // short values too), a Codex rollout took 15% more time; after 2, 4 or 8
  // escapes, an OpenAI chat log 1-4%; after 32 to 1 KB clean bytes, within 1%.
  int escapes = 0;
#endif
  for (;;) {
#ifdef __SSE2__
    if (clean == 64 && convo::wide_strings()) {
      const std::size_t run = convo::wide_scan_string(p, q, is.shadowed() || p != q);
      p += run;
      q += run;
    }
    if ((escapes >= 1 || clean >= 4) && is.shadowed() && convo::wide_unescapes()) {
      bool slash = false;
      p = const_cast<char*>(convo::wide_unescape_string(p, q, slash));
      if (slash) {
        is.spelled_otherwise();  // the writer writes a plain slash
      }
    }
    auto special = [&](__m128i s) {
      return _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(s, quote), _mm_cmpeq_epi8(s, backslash)),
                          _mm_cmpeq_epi8(_mm_max_epu8(s, below_space), below_space));
    };
    const __m128i s = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const auto mask = static_cast<unsigned>(_mm_movemask_epi8(special(s)));
    if (mask == 0) {
      if (p != q) {
        // In place q < p: the bytes overwritten past p are among the 16 just loaded.
        _mm_storeu_si128(reinterpret_cast<__m128i*>(q), s);
      }
      p += 16;
      q += 16;
      ++clean;
      continue;
    }
    clean = 0;
    const auto length = static_cast<std::size_t>(__builtin_ctz(mask));
    if (is.shadowed()) {
      // The 16 bytes: those past the string's end land where later bytes of the
      // shadow go (or in its padding), not over a string written before.
      _mm_storeu_si128(reinterpret_cast<__m128i*>(q), s);
    } else if (p != q) {
      std::memmove(q, p, length);
    }
    p += length;
    q += length;
#else
    while (*p != '"' && *p != '\\' && static_cast<unsigned char>(*p) >= 0x20) {
      *q++ = *p++;
    }
#endif
    if (*p == '\\') {
      // The escapes of one byte, here rather than a return to RapidJSON's loop for
      // each (tool output has a \n or \" every few dozen bytes).
      if (const char byte = convo::k_one_byte_escapes[static_cast<unsigned char>(p[1])]; byte != 0) {
        if (byte == '/') {
          is.spelled_otherwise();  // the writer writes a plain slash
        }
        *q++ = byte;
        p += 2;
#ifdef __SSE2__
        ++escapes;
#endif
        continue;
      }
      if (p[1] == 'u' && is.replace_lone && convo::replaced_lone_surrogate(p, q)) {
        p += 6;
        q += 3;
        ++is.lone_surrogates;
        is.spelled_otherwise();
        continue;
      }
      // `\u`, left to RapidJSON: the writer spells it so only for a control
      // character without an escape of its own, in upper-case hex.
      if (!convo::written_unicode_escape(p)) {
        is.spelled_otherwise();
      }
    }
    is.src_ = p;
    is.dst_ = q;
    return;
  }
}

#if defined(__SSE2__) && !defined(CONVO_NO_JSON_SIMD)
// The copying scan of parse_json (tool inputs: OpenAI `arguments`, JSON carried in
// strings), 16 bytes at a time, stopping at 0x1A-0x1F as the byte-wise scan does.
// Its text is followed by a NUL, not by padding, so loads are aligned, as in
// RapidJSON's own version: an aligned 16-byte load never crosses a page, and the
// scan stops at the NUL (a control character) at the latest.
template <>
template <>
inline void rapidjson::GenericReader<rapidjson::UTF8<>, rapidjson::UTF8<>, convo::JsonBaseAllocator>::
    ScanCopyUnescapedString<convo::StrictStringStream,
                            rapidjson::GenericReader<rapidjson::UTF8<>, rapidjson::UTF8<>,
                                                     convo::JsonBaseAllocator>::StackStream<char>>(
        convo::StrictStringStream& is, StackStream<char>& os) {
  const char* p = is.src_;
  const char* aligned =
      reinterpret_cast<const char*>((reinterpret_cast<std::size_t>(p) + 15) & ~std::size_t{15});
  for (; p != aligned; ++p) {
    if (*p == '"' || *p == '\\' || static_cast<unsigned char>(*p) < 0x20) {
      is.src_ = p;
      return;
    }
    os.Put(*p);
  }
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i below_space = _mm_set1_epi8(0x1F);
  for (;; p += 16) {
    const __m128i s = _mm_load_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i special =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(s, quote), _mm_cmpeq_epi8(s, backslash)),
                     _mm_cmpeq_epi8(_mm_max_epu8(s, below_space), below_space));
    const auto mask = static_cast<unsigned>(_mm_movemask_epi8(special));
    if (mask != 0) {
      const auto length = static_cast<std::size_t>(__builtin_ctz(mask));
      if (length != 0) {  // Push(0) on a stack with nothing yet is null: no memcpy
        std::memcpy(os.Push(static_cast<rapidjson::SizeType>(length)), p, length);
      }
      is.src_ = p + length;
      return;
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(os.Push(16)), s);
  }
}
#endif
