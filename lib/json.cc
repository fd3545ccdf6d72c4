#include "json.h"

#include <fmt/format.h>

#include <rapidjson/error/error.h>
#include <rapidjson/reader.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

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
  // The string being read has an escape the writer spells otherwise (`\/`, `\u`).
  void spelled_otherwise() { m_as_written = false; }

  bool replace_lone;
  std::size_t lone_surrogates = 0;

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

  char* m_shadow;
  bool m_as_written = true;
};

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

namespace {

// True when an in-place parse of `copy` (its padding of NULs after its size) stopped
// at a value followed by whitespace alone up to the text's real end (not a NUL).
bool ends_after_value(const PaddedInsituStream& stream, std::string_view copy) {
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

}  // namespace

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

// Skips whitespace between tokens. The records programs write are compact: the next
// byte is a token, one test. RapidJSON's generic loop (through a local copy of the
// stream) stayed a call at every token, 5% of the CPU time of converting a Codex
// rollout. The padding's NUL ends the loop.
template <>
inline void rapidjson::SkipWhitespace<convo::PaddedInsituStream>(convo::PaddedInsituStream& is) {
  char* p = is.src_;
  while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t') {
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
#endif
  for (;;) {
#ifdef __SSE2__
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
      continue;
    }
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
      std::memcpy(os.Push(static_cast<rapidjson::SizeType>(length)), p, length);
      is.src_ = p + length;
      return;
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(os.Push(16)), s);
  }
}
#endif

namespace convo {

void json_assertion_failed(const char* expression) {
  throw std::logic_error(fmt::format("internal error: JSON assertion failed: {}", expression));
}

namespace {

// The parser's own stack (for strings and nesting) throws on exhaustion too.
using JsonReader = rapidjson::GenericReader<rapidjson::UTF8<>, rapidjson::UTF8<>, JsonBaseAllocator>;

// Numbers come from the parser as their text and are typed by forward_number below,
// not by the parser: RapidJSON 1.1.0 (Debian's, the last release) has undefined
// behaviour in its full-precision conversion when every digit is zero and the exponent
// is far from 0 (`0e100`, `0.` and 23 zeros: clz of 0 in DiyFp::Normalize, a garbage
// value; Tencent/rapidjson#1249, fixed after the release). Found by fuzz_stage_tool_links.
constexpr unsigned k_parse_flags =
    rapidjson::kParseStopWhenDoneFlag | rapidjson::kParseNumbersAsStringsFlag;

// Sends the number spelled `text` (valid JSON, checked by the parser) to `sink` as the
// parser would type it with kParseFullPrecisionFlag: an integer without fraction or
// exponent as Uint or Uint64 (Int or Int64 when negative, -0 as Int 0) while it fits,
// anything else as the correctly rounded double (std::from_chars; strtod where that is
// out of range, for infinity or a denormal's rounding to zero, as RapidJSON gives).
template <class Sink>
bool forward_number(Sink& sink, const char* text, std::size_t size) {
  const char* const end = text + size;
  const bool minus = size > 0 && text[0] == '-';
  const char* digits = text + (minus ? 1 : 0);
  if (std::find_if(digits, end, [](char c) { return c == '.' || c == 'e' || c == 'E'; }) == end) {
    std::uint64_t value = 0;
    auto [stop, error] = std::from_chars(digits, end, value);
    if (error == std::errc() && stop == end) {
      if (!minus) {
        return value <= UINT32_MAX ? sink.Uint(static_cast<unsigned>(value)) : sink.Uint64(value);
      }
      if (value <= std::uint64_t{1} << 31) {
        return sink.Int(static_cast<int>(-static_cast<std::int64_t>(value)));
      }
      if (value <= std::uint64_t{1} << 63) {
        return sink.Int64(static_cast<std::int64_t>(~value + 1));
      }
    }
  }
  double value = 0;
  auto [stop, error] = std::from_chars(text, end, value);
  if (error == std::errc::result_out_of_range) {
    value = std::strtod(std::string(text, size).c_str(), nullptr);
  } else if (error != std::errc() || stop != end) {
    return false;
  }
  return sink.Double(value);
}

// Forwards SAX events to `Sink` (the document being built, or a writer) and stops the
// parse when nesting passes k_max_json_depth: the recursive parser then never recurses
// deeper than that. Remembers whether the root is an object.
template <class Sink>
class DepthLimitedHandler {
 public:
  explicit DepthLimitedHandler(Sink& sink) : m_sink(sink) {}

  bool Null() { return m_sink.Null(); }
  bool Bool(bool b) { return m_sink.Bool(b); }
  bool Int(int i) { return m_sink.Int(i); }
  bool Uint(unsigned i) { return m_sink.Uint(i); }
  bool Int64(int64_t i) { return m_sink.Int64(i); }
  bool Uint64(uint64_t i) { return m_sink.Uint64(i); }
  bool Double(double d) { return m_sink.Double(d); }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool) {
    return forward_number(m_sink, s, n);
  }
  bool String(const char* s, rapidjson::SizeType n, bool copy) {
    if constexpr (k_document) {
      return m_sink.String(s, n, copy);
    } else {
      return m_sink.String(s, n);
    }
  }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) {
    if constexpr (k_document) {
      return m_sink.Key(s, n, copy);
    } else {
      return m_sink.Key(s, n);
    }
  }
  bool StartObject() {
    m_object_root = m_object_root || m_depth == 0;
    return enter() && m_sink.StartObject();
  }
  bool EndObject(rapidjson::SizeType n) {
    --m_depth;
    return m_sink.EndObject(n);
  }
  bool StartArray() { return enter() && m_sink.StartArray(); }
  bool EndArray(rapidjson::SizeType n) {
    --m_depth;
    return m_sink.EndArray(n);
  }

  bool too_deep() const { return m_too_deep; }
  bool object_root() const { return m_object_root; }

 private:
  // A document's handler says whether a string must be copied; a writer's does not.
  static constexpr bool k_document = std::is_same_v<Sink, JsonDoc>;

  bool enter() {
    if (++m_depth > k_max_json_depth) {
      m_too_deep = true;
      return false;
    }
    return true;
  }

  Sink& m_sink;
  int m_depth = 0;
  bool m_too_deep = false;
  bool m_object_root = false;
};

std::string describe(rapidjson::ParseErrorCode code, std::string_view text, std::size_t offset,
                     bool too_deep) {
  using namespace rapidjson;
  if (too_deep) {
    return fmt::format("JSON nested deeper than {} levels", k_max_json_depth);
  }
  const bool at_end = offset >= text.size();
  if (!at_end && text[offset] == '\0') {
    return "NUL byte in JSON text";
  }
  switch (code) {
    case kParseErrorDocumentEmpty:
      return "expected a JSON value";
    case kParseErrorDocumentRootNotSingular:
      return "unexpected text after the JSON value";
    case kParseErrorValueInvalid:
      return at_end ? "unexpected end of input (truncated line?)" : "invalid JSON value";
    case kParseErrorObjectMissName:
      return at_end ? "unexpected end of input (truncated line?)"
                    : "expected a member name in double quotes";
    case kParseErrorObjectMissColon:
      return at_end ? "unexpected end of input (truncated line?)" : "expected ':'";
    case kParseErrorObjectMissCommaOrCurlyBracket:
      return at_end ? "unexpected end of input (truncated line?)" : "expected ',' or '}'";
    case kParseErrorArrayMissCommaOrSquareBracket:
      return at_end ? "unexpected end of input (truncated line?)" : "expected ',' or ']'";
    case kParseErrorStringUnicodeEscapeInvalidHex:
      return "invalid \\u escape";
    case kParseErrorStringUnicodeSurrogateInvalid:
      return "invalid UTF-16 surrogate in \\u escape";
    case kParseErrorStringEscapeInvalid:
      if (!at_end && static_cast<unsigned char>(text[offset]) < 0x20) {
        return "unescaped control character in string";
      }
      return "invalid escape in string";
    case kParseErrorStringMissQuotationMark:
      return at_end ? "unterminated string (truncated line?)" : "unterminated string";
    case kParseErrorStringInvalidEncoding:
      if (!at_end && static_cast<unsigned char>(text[offset]) < 0x20) {
        return "unescaped control character in string";
      }
      return "invalid UTF-8 in string";
    case kParseErrorNumberTooBig:
      return "number out of range";
    case kParseErrorNumberMissFraction:
      return "expected digits after '.'";
    case kParseErrorNumberMissExponent:
      return "expected digits in exponent";
    case kParseErrorTermination:
    case kParseErrorUnspecificSyntaxError:
    case kParseErrorNone:
      break;
  }
  return "invalid JSON";
}

std::optional<JsonParseError> parse_at(std::string_view text, JsonDoc& doc,
                                       std::size_t& consumed) {
  StrictStringStream stream(text.data());
  rapidjson::ParseResult result;
  bool too_deep = false;
  auto generator = [&](JsonDoc& target) {
    DepthLimitedHandler<JsonDoc> handler(target);
    JsonReader reader;
    result = reader.Parse<k_parse_flags>(stream, handler);
    too_deep = handler.too_deep();
    return !result.IsError();
  };
  doc.Populate(generator);
  if (result.IsError()) {
    // A stop for depth comes just after the opening bracket; point at it.
    std::size_t offset = result.Offset() - (too_deep && result.Offset() > 0 ? 1 : 0);
    return JsonParseError{offset, describe(result.Code(), text, offset, too_deep),
                          result.Code() == rapidjson::kParseErrorStringUnicodeSurrogateInvalid};
  }
  consumed = stream.Tell();
  if (consumed > text.size()) {
    // The parser ran into the NUL that terminates the buffer as if it were data.
    return JsonParseError{text.size(), "unexpected end of input (truncated line?)"};
  }
  return std::nullopt;
}

}  // namespace

std::optional<JsonParseError> parse_json(std::string_view text, JsonDoc& doc) {
  std::size_t consumed = 0;
  if (auto error = parse_at(text, doc, consumed)) {
    return error;
  }
  for (std::size_t i = consumed; i < text.size(); ++i) {
    char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      continue;
    }
    if (c == '\0') {
      return JsonParseError{i, "NUL byte in JSON text"};
    }
    return JsonParseError{i, "unexpected text after the JSON value"};
  }
  return std::nullopt;
}

namespace {

// The last text `json_object_as_written` found one JSON object (as written or not):
// `json_text_type` answers for that text from here (its bytes compared, so a stale
// answer is never given). An encoder asks both of one tool call's arguments (whether
// a format that holds them as an object gives them back as they were, then whether to
// write them), and parsing a big input (a patch) twice was 4% of a conversion to
// Anthropic.
thread_local std::string t_last_object;
thread_local bool t_last_object_set = false;

void remember_object(std::string_view text) {
  t_last_object_set = text.size() <= (std::size_t{1} << 22);
  if (t_last_object_set) {
    t_last_object.assign(text);
  } else {
    std::string().swap(t_last_object);
  }
}

// `json_text_type` without the memory above.
std::optional<rapidjson::Type> parse_type(std::string_view text);

}  // namespace

std::optional<bool> json_object_as_written(std::string_view text) {
  t_last_object_set = false;
  // Most tool inputs are spelled as the writer writes (a program wrote them, or convo
  // did): then one validating scan of their bytes says so, without parsing them or
  // writing them out (the writer's escaping, then a parse for the type, were most
  // of this).
  if (!text.empty() && text.front() == '{' && json_valid_as_written(text)) {
    remember_object(text);
    return true;
  }
  // Else parsed in place in a padded copy, as json_text_type parses (the same answers
  // as parse_json), the strings going from there to the writer; both buffers are kept
  // for the thread (every tool call a conversion writes may come here), but not
  // after a huge one.
  thread_local std::string copy;
  thread_local rapidjson::StringBuffer written;
  struct Shrink {
    ~Shrink() {
      if (copy.capacity() > (std::size_t{1} << 22)) {
        std::string().swap(copy);
      }
      if (written.stack_.GetCapacity() > (std::size_t{1} << 22)) {
        written.ShrinkToFit();
      }
    }
  } shrink;
  reserve_parse_padding(copy, text.size());
  copy.assign(text);
  copy.append(k_parse_padding, '\0');
  copy.resize(text.size());
  written.Clear();
  JsonWriter writer(written);
  DepthLimitedHandler<JsonWriter> handler(writer);
  PaddedInsituStream stream(copy.data());
  JsonReader reader;
  if (reader.Parse<k_parse_flags | rapidjson::kParseInsituFlag>(stream, handler).IsError() ||
      !handler.object_root()) {
    return std::nullopt;
  }
  if (!ends_after_value(stream, copy)) {
    return std::nullopt;
  }
  remember_object(text);
  return std::string_view(written.GetString(), written.GetSize()) == text;
}

namespace {

// Parses `text` (NULs after its size) through `stream` into `doc`: true when it is
// one value followed by whitespace alone up to the real end (not a NUL).
bool parse_padded(PaddedInsituStream& stream, std::string_view text, JsonDoc& doc) {
  rapidjson::ParseResult result;
  auto generator = [&](JsonDoc& target) {
    DepthLimitedHandler<JsonDoc> handler(target);
    JsonReader reader;
    result = reader.Parse<k_parse_flags | rapidjson::kParseInsituFlag>(stream, handler);
    return !result.IsError();
  };
  doc.Populate(generator);
  return !result.IsError() && ends_after_value(stream, text);
}

}  // namespace

void reserve_parse_padding(std::string& text, std::size_t size) {
  text.reserve(size + k_parse_padding);
}

bool parse_json_in_place(std::string& text, JsonDoc& doc) {
  // Zeros after the text (appended and taken off again: only the capacity stays).
  const std::size_t size = text.size();
  text.append(k_parse_padding, '\0');
  text.resize(size);
  PaddedInsituStream stream(text.data());
  return parse_padded(stream, text, doc);
}

bool parse_json_shadowed(std::string_view text, char* shadow, JsonDoc& doc,
                         std::size_t& lone_surrogates) {
  // Only read: the stream's pointers are not const because in place they write.
  char* const begin = const_cast<char*>(text.data());
  PaddedInsituStream stream(begin, shadow, true);
  const bool parsed = parse_padded(stream, text, doc);
  lone_surrogates = stream.lone_surrogates;
  return parsed;
}

namespace {

// SAX events counted, not kept: the root value's type, and nesting limited as
// DepthLimitedHandler limits it.
class TypeOnlyHandler {
 public:
  bool Null() { return value(rapidjson::kNullType); }
  bool Bool(bool b) { return value(b ? rapidjson::kTrueType : rapidjson::kFalseType); }
  bool Int(int) { return value(rapidjson::kNumberType); }
  bool Uint(unsigned) { return value(rapidjson::kNumberType); }
  bool Int64(int64_t) { return value(rapidjson::kNumberType); }
  bool Uint64(uint64_t) { return value(rapidjson::kNumberType); }
  bool Double(double) { return value(rapidjson::kNumberType); }
  bool RawNumber(const char*, rapidjson::SizeType, bool) { return value(rapidjson::kNumberType); }
  bool String(const char*, rapidjson::SizeType, bool) { return value(rapidjson::kStringType); }
  bool Key(const char*, rapidjson::SizeType, bool) { return true; }
  bool StartObject() { return value(rapidjson::kObjectType) && enter(); }
  bool EndObject(rapidjson::SizeType) {
    --m_depth;
    return true;
  }
  bool StartArray() { return value(rapidjson::kArrayType) && enter(); }
  bool EndArray(rapidjson::SizeType) {
    --m_depth;
    return true;
  }

  std::optional<rapidjson::Type> root;

 private:
  bool value(rapidjson::Type type) {
    if (!root) {
      root = type;
    }
    return true;
  }
  bool enter() { return ++m_depth <= k_max_json_depth; }

  int m_depth = 0;
};

}  // namespace

std::optional<rapidjson::Type> json_text_type(std::string_view text) {
  if (t_last_object_set && t_last_object == text) {
    return rapidjson::kObjectType;  // json_object_as_written just parsed it
  }
  return parse_type(text);
}

namespace {

std::optional<rapidjson::Type> parse_type(std::string_view text) {
  // One buffer a thread, kept: every tool call a conversion writes is checked here.
  thread_local std::string copy;
  if (copy.capacity() > (std::size_t{1} << 22)) {
    std::string().swap(copy);  // not kept after a huge one
  }
  reserve_parse_padding(copy, text.size());
  copy.assign(text);
  TypeOnlyHandler handler;
  copy.append(k_parse_padding, '\0');
  copy.resize(text.size());
  PaddedInsituStream stream(copy.data());
  JsonReader reader;
  if (reader.Parse<k_parse_flags | rapidjson::kParseInsituFlag>(stream, handler).IsError()) {
    return std::nullopt;
  }
  if (!ends_after_value(stream, copy)) {
    return std::nullopt;
  }
  return handler.root;
}

}  // namespace

std::optional<JsonParseError> parse_json_prefix(std::string_view text, JsonDoc& doc,
                                                std::size_t& consumed) {
  return parse_at(text, doc, consumed);
}


std::optional<bool> bool_member(const JsonValue& object, std::string_view key) {
  const JsonValue* value = find_member(object, key);
  if (value == nullptr || !value->IsBool()) {
    return std::nullopt;
  }
  return value->GetBool();
}

const char* json_type_name(const JsonValue& value) {
  switch (value.GetType()) {
    case rapidjson::kNullType:
      return "null";
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      return "boolean";
    case rapidjson::kObjectType:
      return "object";
    case rapidjson::kArrayType:
      return "array";
    case rapidjson::kStringType:
      return "string";
    case rapidjson::kNumberType:
      return "number";
  }
  return "value";
}

void append_json(const JsonValue& value, std::string& out) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  value.Accept(writer);
  out.append(buffer.GetString(), buffer.GetSize());
}

std::string to_json(const JsonValue& value) {
  std::string out;
  append_json(value, out);
  return out;
}

std::string json_quote(std::string_view text) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
  return std::string(buffer.GetString(), buffer.GetSize());
}

void set_member(JsonValue& object, std::string_view key, JsonValue value, JsonAllocator& alloc) {
  auto it = object.FindMember(
      JsonValue(rapidjson::StringRef(key.data(), static_cast<rapidjson::SizeType>(key.size()))));
  if (it != object.MemberEnd()) {
    it->value = std::move(value);
    return;
  }
  object.AddMember(make_string(key, alloc), std::move(value), alloc);
}

void erase_member(JsonValue& object, std::string_view key) {
  auto it = object.FindMember(
      JsonValue(rapidjson::StringRef(key.data(), static_cast<rapidjson::SizeType>(key.size()))));
  if (it != object.MemberEnd()) {
    object.EraseMember(it);
  }
}

}  // namespace convo
