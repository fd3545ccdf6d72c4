#include "secrets.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>

#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace convo {

namespace {

constexpr SecretRule k_secret_rules[] = {
    {"secret-anthropic-key", "an Anthropic API key: sk-ant- and 20 or more of [A-Za-z0-9_-]"},
    {"secret-openai-key",
     "an OpenAI API key: sk- (sk-proj-, sk-svcacct-, ...) and 20 or more of "
     "[A-Za-z0-9_-] with a digit"},
    {"secret-aws-access-key", "an AWS access key id: AKIA or ASIA and 16 of [A-Z0-9]"},
    {"secret-aws-secret-key",
     "an AWS secret access key assigned to aws_secret_access_key or "
     "SecretAccessKey: 40 of [A-Za-z0-9/+]"},
    {"secret-github-token",
     "a GitHub token: ghp_, gho_, ghu_, ghs_ or ghr_ and 36 of [A-Za-z0-9], "
     "or github_pat_ and 22 or more of [A-Za-z0-9_]"},
    {"secret-gitlab-token",
     "a GitLab personal access token: glpat- and 20 or more of [A-Za-z0-9_-]"},
    {"secret-google-api-key", "a Google API key: AIza and 35 of [A-Za-z0-9_-]"},
    {"secret-slack-token",
     "a Slack token: xoxa-, xoxb-, xoxp-, xoxo-, xoxr- or xoxs- and 10 or "
     "more of [A-Za-z0-9-]"},
    {"secret-stripe-key", "a Stripe live key: sk_live_ or rk_live_ and 20 or more of [A-Za-z0-9]"},
    {"secret-private-key", "a private key block: -----BEGIN ... PRIVATE KEY----- to its END line"},
    {"secret-jwt", "a JSON Web Token: three base64url parts, the first decoding to JSON with alg"},
    {"secret-generic-assignment",
     "password, passwd, token, secret or api_key then = or : and a value of 12 or more "
     "characters, letters and digits, with Shannon entropy of 3.5 bits per character or more"},
    {"secret-pattern", "a match of a --secrets-pattern regex"},
    {"secret-known-value", "a value listed in a --secrets-file"},
};

bool is_alnum(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_b64url(unsigned char c) {
  return is_alnum(c) || c == '_' || c == '-';
}
bool is_upper_digit(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z');
}
bool is_b64(unsigned char c) {
  return is_alnum(c) || c == '/' || c == '+';
}
bool is_underscore_alnum(unsigned char c) {
  return is_alnum(c) || c == '_';
}
bool is_slack(unsigned char c) {
  return is_alnum(c) || c == '-';
}

bool starts(std::string_view text, std::size_t at, std::string_view prefix) {
  return text.size() - at >= prefix.size() && text.compare(at, prefix.size(), prefix) == 0;
}

bool starts_nocase(std::string_view text, std::size_t at, std::string_view lower) {
  if (text.size() - at < lower.size()) {
    return false;
  }
  for (std::size_t i = 0; i < lower.size(); ++i) {
    char c = text[at + i];
    if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
    if (c != lower[i]) {
      return false;
    }
  }
  return true;
}

// The length of the run of `accept` characters from `at`.
template <class Accept>
std::size_t run(std::string_view text, std::size_t at, Accept accept) {
  std::size_t end = at;
  while (end < text.size() && accept(static_cast<unsigned char>(text[end]))) {
    ++end;
  }
  return end - at;
}

// Not glued to a word before it: a key inside a longer identifier is not a key.
// (Nor inside base64: a signature blob holds "sk-" by chance.)
bool word_start(std::string_view text, std::size_t at) {
  if (at == 0) {
    return true;
  }
  auto c = static_cast<unsigned char>(text[at - 1]);
  return !is_alnum(c) && c != '/' && c != '+' && c != '_' && c != '-';
}

// Code, not a secret: an upper-case constant's name (TOKEN_PRICE_PER_1M) or a
// dotted name (config.api_token).
bool looks_like_code(std::string_view value) {
  bool constant = value.find('_') != std::string_view::npos &&
                  std::all_of(value.begin(), value.end(), [](char ch) {
                    return (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
                  });
  bool dotted = false;
  for (std::size_t i = 0; i + 1 < value.size(); ++i) {
    if (value[i] == '.' && ((value[i + 1] >= 'a' && value[i + 1] <= 'z') || value[i + 1] == '_')) {
      dotted = true;
    }
  }
  return constant || dotted;
}

std::string base64url_decode(std::string_view in) {
  std::string out;
  unsigned value = 0;
  int bits = 0;
  for (char c : in) {
    int d;
    if (c >= 'A' && c <= 'Z')
      d = c - 'A';
    else if (c >= 'a' && c <= 'z')
      d = c - 'a' + 26;
    else if (c >= '0' && c <= '9')
      d = c - '0' + 52;
    else if (c == '-' || c == '+')
      d = 62;
    else if (c == '_' || c == '/')
      d = 63;
    else
      return std::string();
    value = (value << 6) | static_cast<unsigned>(d);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((value >> bits) & 0xFF);
    }
  }
  return out;
}

// No built-in rule matches in fewer bytes: a Slack token (xoxb- and 10) or a JWT
// whose header is {"alg":0} (eyJhbGciOjB9, a dot, one byte, a dot) take 15; the
// others take more (a generic assignment's keyword, separator and 12 bytes, 18).
constexpr std::size_t k_shortest_secret = 15;

// Whether a rule may start at `at`, told by its first three bytes: every prefix a
// rule begins with (sk- sk_ rk_ AKI ASI AIz gh[pousr] git glp xox --- eyJ, and the
// assignments' pas tok sec api in any case). The pairs the SIMD compares let through
// are common in prose ("to", "se", "pa"), their third bytes mostly are not: on the
// 20 MB of the first Claude Code lines of the benchmark, 273,692 tries of every rule
// became 40,781 (a third of the scan's instructions). False near the end of `size`,
// where no rule has room anyway (k_shortest_secret).
bool triple_hit(const unsigned char* bytes, std::size_t at, std::size_t size) {
  if (size - at < 3) {
    return false;
  }
  const unsigned a = bytes[at];
  const unsigned b = bytes[at + 1];
  const unsigned c = bytes[at + 2];
  switch (a) {
    case 's':
      if (b == 'k') {
        return c == '-' || c == '_';
      }
      break;
    case 'r':
      return b == 'k' && c == '_';
    case 'A':
      if ((b == 'K' || b == 'S') && c == 'I') {
        return true;
      }
      if (b == 'I' && c == 'z') {
        return true;
      }
      break;
    case 'g':
      return (b == 'h' && (c == 'p' || c == 'o' || c == 'u' || c == 's' || c == 'r')) ||
             (b == 'i' && c == 't') || (b == 'l' && c == 'p');
    case 'x':
      return b == 'o' && c == 'x';
    case '-':
      return b == '-' && c == '-';
    case 'e':
      return b == 'y' && c == 'J';
    default:
      break;
  }
  // Letters only: | 0x20 folds exactly those whose folded form is a letter.
  const unsigned la = a | 0x20;
  const unsigned lb = b | 0x20;
  const unsigned lc = c | 0x20;
  return (la == 'p' && lb == 'a' && lc == 's') || (la == 't' && lb == 'o' && lc == 'k') ||
         (la == 's' && lb == 'e' && lc == 'c') || (la == 'a' && lb == 'p' && lc == 'i');
}

// The SSE2 compares of `next_start` (CPUs without AVX2): each position's pair of bytes, its letters
// folded to lower case (| 0x20), against the first two bytes of the rules' prefixes
// folded alike (sk, rk, ak, as, ai, gh, gi, gl, xo, --, ey, pa, to, se, ap); a
// superset of what `triple_hit` accepts. `first(c)`/`second(c)` compare a position's
// first/second byte with `c` for every position of the block.
#define CONVO_SECRET_PAIRS(V, first, second, and_, or_)                                   \
  const V k = second('k');                                                               \
  const V i = second('i');                                                               \
  const V o = second('o');                                                               \
  V hit = and_(first('s'), or_(k, second('e')));                                         \
  hit = or_(hit, and_(first('r'), k));                                                   \
  hit = or_(hit, and_(first('a'), or_(or_(k, second('s')), or_(i, second('p')))));       \
  hit = or_(hit, and_(first('g'), or_(or_(second('h'), i), second('l'))));               \
  hit = or_(hit, and_(or_(first('x'), first('t')), o));                                  \
  hit = or_(hit, and_(first('-'), second('-')));                                         \
  hit = or_(hit, and_(first('e'), second('y')));                                         \
  hit = or_(hit, and_(first('p'), second('a')));

// Of the positions `at + i` whose bit i is set in `mask` (a block's compares), the
// first that triple_hit accepts: true with `at` there, else false, `at` unchanged.
inline bool first_triple_hit(const unsigned char* bytes, std::uint32_t mask, std::size_t size,
                             std::size_t& at) {
  while (mask != 0) {
    std::size_t candidate = at + static_cast<std::size_t>(__builtin_ctz(mask));
    if (triple_hit(bytes, candidate, size)) {
      at = candidate;
      return true;
    }
    mask &= mask - 1;
  }
  return false;
}

#ifdef __SSE2__
// 16 positions at a time from `at` while their second bytes are within `last`:
// true with `at` at the first candidate `triple_hit` accepts, else false with `at`
// where the blocks end.
bool sse2_blocks(const unsigned char* bytes, std::size_t& at, std::size_t last,
                 std::size_t size) {
  while (last >= 16 && at <= last - 16) {
    const __m128i fold = _mm_set1_epi8(0x20);
    const __m128i a =
        _mm_or_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + at)), fold);
    const __m128i b =
        _mm_or_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + at + 1)), fold);
#define CONVO_FIRST(c) _mm_cmpeq_epi8(a, _mm_set1_epi8(c))
#define CONVO_SECOND(c) _mm_cmpeq_epi8(b, _mm_set1_epi8(c))
    CONVO_SECRET_PAIRS(__m128i, CONVO_FIRST, CONVO_SECOND, _mm_and_si128, _mm_or_si128)
#undef CONVO_FIRST
#undef CONVO_SECOND
    if (first_triple_hit(bytes, static_cast<unsigned>(_mm_movemask_epi8(hit)), size, at)) {
      return true;
    }
    at += 16;
  }
  return false;
}
#endif

#if defined(__x86_64__) && defined(__GNUC__)
#define CONVO_SECRETS_AVX2 1
// On CPUs with AVX2 (chosen at run time: the build targets plain x86-64), the
// three bytes of each of 32 positions at once, by table: each class below is a
// set of first bytes, one of second bytes and one of third bytes, and together
// they hold every triple `triple_hit` accepts (pas, sec, tok and api in any
// case). A byte's classes, for its place in the triple, are those of its low
// nibble (one table look-up, vpshufb) and'ed with those of its high nibble; a
// position whose three bytes share a class is a candidate. Because a table holds
// each nibble of every byte of a class, a class may let through more than it
// lists (its sets' products: "pec", "/"), never less; `triple_hit` decides.
struct TripleClass {
  std::string_view first, second, third;
};
constexpr TripleClass k_triple_classes[8] = {
    {"sr", "k", "-_"},          // sk- sk_ rk_
    {"A", "KSI", "Iz"},         // AKI ASI AIz
    {"g", "hil", "pousrt"},     // ghp gho ghu ghs ghr git glp
    {"x", "o", "x"},            // xox
    {"e", "y", "J"},            // eyJ
    {"-", "-", "-"},            // ---
    {"pPsS", "aAeE", "sScC"},   // pas sec, any case
    {"tTaA", "oOpP", "kKiI"},   // tok api, any case
};

// For place j of a triple (0, 1, 2): tables[2j] by low nibble, tables[2j + 1] by
// high nibble, each entry the classes (bits) holding a byte with that nibble there.
using NibbleTables = std::array<std::array<std::uint8_t, 16>, 6>;
constexpr NibbleTables make_nibble_tables() {
  NibbleTables tables{};
  for (std::size_t k = 0; k < std::size(k_triple_classes); ++k) {
    const TripleClass& c = k_triple_classes[k];
    std::string_view sets[3] = {c.first, c.second, c.third};
    for (std::size_t j = 0; j < 3; ++j) {
      for (char ch : sets[j]) {
        auto byte = static_cast<unsigned char>(ch);
        tables[2 * j][byte & 0x0F] |= static_cast<std::uint8_t>(1u << k);
        tables[2 * j + 1][byte >> 4] |= static_cast<std::uint8_t>(1u << k);
      }
    }
  }
  return tables;
}
constexpr NibbleTables k_nibble_tables = make_nibble_tables();

// The byte tables of `k_nibble_tables`, in both halves of a register each.
struct Avx2Tables {
  __m256i low[3], high[3];
};

// The candidates among the 32 positions from `p` (bit i for p + i), reading p[0]
// to p[33].
__attribute__((target("avx2"), always_inline)) inline std::uint32_t avx2_candidates(
    const unsigned char* p, const Avx2Tables& t) {
  const __m256i low = _mm256_set1_epi8(0x0F);
#define CONVO_CLASSES(j)                                                                  \
  _mm256_and_si256(                                                                       \
      _mm256_shuffle_epi8(t.low[j], _mm256_and_si256(v##j, low)),                         \
      _mm256_shuffle_epi8(t.high[j], _mm256_and_si256(_mm256_srli_epi16(v##j, 4), low)))
  const __m256i v0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  const __m256i v1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 1));
  const __m256i v2 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 2));
  const __m256i all =
      _mm256_and_si256(_mm256_and_si256(CONVO_CLASSES(0), CONVO_CLASSES(1)), CONVO_CLASSES(2));
#undef CONVO_CLASSES
  const __m256i none = _mm256_cmpeq_epi8(all, _mm256_setzero_si256());
  return ~static_cast<std::uint32_t>(_mm256_movemask_epi8(none));
}

// From `at` to `last`, 32 positions a block: true with `at` at the first
// candidate `triple_hit` accepts, else false with `at` at `last`. The bytes after
// the last whole block are copied into a zeroed block (a zero byte is in no class).
__attribute__((target("avx2"))) bool avx2_blocks(const unsigned char* bytes, std::size_t& at,
                                                 std::size_t last, std::size_t size) {
  Avx2Tables t;
  for (std::size_t j = 0; j < 3; ++j) {
    t.low[j] = _mm256_broadcastsi128_si256(
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(k_nibble_tables[2 * j].data())));
    t.high[j] = _mm256_broadcastsi128_si256(
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(k_nibble_tables[2 * j + 1].data())));
  }
  std::size_t i = at;
  while (i + 34 <= size && i + 32 <= last) {
    std::uint32_t mask = avx2_candidates(bytes + i, t);
    if (mask != 0 && first_triple_hit(bytes, mask, size, i)) {
      at = i;
      return true;
    }
    i += 32;
  }
  while (i < last) {
    alignas(32) unsigned char tail[64] = {};
    std::memcpy(tail, bytes + i, std::min<std::size_t>(size - i, 34));
    std::uint32_t mask = avx2_candidates(tail, t);
    std::size_t positions = std::min<std::size_t>(last - i, 32);
    if (positions < 32) {
      mask &= (std::uint32_t{1} << positions) - 1;
    }
    if (mask != 0 && first_triple_hit(bytes, mask, size, i)) {
      at = i;
      return true;
    }
    i += positions;
  }
  at = i;
  return false;
}

const bool k_has_avx2 = [] {
  __builtin_cpu_init();  // this runs among the static initializers
  return __builtin_cpu_supports("avx2") != 0;
}();
#endif

#undef CONVO_SECRET_PAIRS

// The first position in [at, last) where a rule may start (`triple_hit`), else
// `last`. Most strings hold none: the SIMD blocks above pass over them a block at
// a time; `triple_hit` then decides each position they let through, and (without
// AVX2) the bytes after the last block one by one. Callgrind, the 16 MB of strings
// in the first 20 MB of the benchmark's Claude Code lines: a byte at a time took 12
// instructions a byte, the SSE2 pair blocks 4.8, AVX2 pair blocks 3.1 plus 1.6 for
// `triple_hit` on the pairs they let through ("to", "se", "pa" are common) and for
// each string's last bytes one by one; the AVX2 triple classes take 2.0 in all.
std::size_t next_start(const unsigned char* bytes, std::size_t at, std::size_t last,
                       std::size_t size) {
#ifdef CONVO_SECRETS_AVX2
  if (k_has_avx2) {
    return avx2_blocks(bytes, at, last, size) ? at : last;
  }
#endif
#ifdef __SSE2__
  if (sse2_blocks(bytes, at, last, size)) {
    return at;
  }
#endif
  for (; at < last; ++at) {
    if (triple_hit(bytes, at, size)) {
      return at;
    }
  }
  return last;
}

bool may_start(std::string_view text, std::size_t at) {
  return at < text.size() &&
         triple_hit(reinterpret_cast<const unsigned char*>(text.data()), at, text.size());
}

SecretMatch match_at(std::string_view text, std::size_t at);

// Tries every built-in rule at `at`; the match's length, 0 for none.
SecretMatch match_at(std::string_view text, std::size_t at) {
  auto found = [at](std::size_t length, std::string_view rule) {
    return SecretMatch{at, length, rule};
  };
  char c = text[at];
  switch (c) {
    case 's':
      if (starts(text, at, "sk-") && word_start(text, at)) {
        std::size_t n = run(text, at + 3, is_b64url);
        if (n > 250) {
          break;  // a blob, not a key
        }
        if (starts(text, at, "sk-ant-")) {
          return n >= 24 ? found(3 + n, "secret-anthropic-key") : SecretMatch{};
        }
        std::string_view body = text.substr(at + 3, n);
        if (n >= 20 && body.find_first_of("0123456789") != std::string_view::npos) {
          return found(3 + n, "secret-openai-key");
        }
      } else if (starts(text, at, "sk_live_") && word_start(text, at)) {
        std::size_t n = run(text, at + 8, is_alnum);
        if (n >= 20)
          return found(8 + n, "secret-stripe-key");
      }
      break;
    case 'r':
      if (starts(text, at, "rk_live_") && word_start(text, at)) {
        std::size_t n = run(text, at + 8, is_alnum);
        if (n >= 20)
          return found(8 + n, "secret-stripe-key");
      }
      break;
    case 'A':
      if ((starts(text, at, "AKIA") || starts(text, at, "ASIA")) && word_start(text, at)) {
        std::size_t n = run(text, at + 4, is_upper_digit);
        if (n == 16)
          return found(20, "secret-aws-access-key");
      } else if (starts(text, at, "AIza") && word_start(text, at)) {
        std::size_t n = run(text, at + 4, is_b64url);
        if (n == 35)
          return found(39, "secret-google-api-key");
      }
      break;
    case 'g':
      if (text.size() - at > 4 && text[at + 1] == 'h' && text[at + 3] == '_' &&
          std::strchr("pousr", text[at + 2]) != nullptr && text[at + 2] != '\0' &&
          word_start(text, at)) {
        std::size_t n = run(text, at + 4, is_alnum);
        if (n == 36)
          return found(40, "secret-github-token");
      } else if (starts(text, at, "github_pat_") && word_start(text, at)) {
        std::size_t n = run(text, at + 11, is_underscore_alnum);
        if (n >= 22)
          return found(11 + n, "secret-github-token");
      } else if (starts(text, at, "glpat-") && word_start(text, at)) {
        std::size_t n = run(text, at + 6, is_b64url);
        if (n >= 20)
          return found(6 + n, "secret-gitlab-token");
      }
      break;
    case 'x':
      if (starts(text, at, "xox") && text.size() - at > 4 && text[at + 4] == '-' &&
          std::strchr("abpors", text[at + 3]) != nullptr && text[at + 3] != '\0' &&
          word_start(text, at)) {
        std::size_t n = run(text, at + 5, is_slack);
        if (n >= 10)
          return found(5 + n, "secret-slack-token");
      }
      break;
    case '-':
      if (starts(text, at, "-----BEGIN ")) {
        std::size_t close = text.find("-----", at + 11);
        if (close == std::string_view::npos || close - at > 80)
          break;
        std::string_view label = text.substr(at + 11, close - (at + 11));
        if (label.size() < 11 || label.substr(label.size() - 11) != "PRIVATE KEY")
          break;
        std::size_t end = text.find("-----END ", close + 5);
        if (end == std::string_view::npos)
          return found(text.size() - at, "secret-private-key");
        std::size_t tail = text.find("-----", end + 9);
        std::size_t stop = tail == std::string_view::npos ? text.size() : tail + 5;
        return found(stop - at, "secret-private-key");
      }
      break;
    case 'e':
      if (starts(text, at, "eyJ") && word_start(text, at)) {
        std::size_t a = run(text, at, is_b64url);
        if (at + a >= text.size() || text[at + a] != '.')
          break;
        std::size_t b = run(text, at + a + 1, is_b64url);
        if (b == 0 || at + a + 1 + b >= text.size() || text[at + a + 1 + b] != '.')
          break;
        std::size_t s = run(text, at + a + 2 + b, is_b64url);
        std::string header = base64url_decode(text.substr(at, a));
        JsonDoc doc;
        if (header.empty() || parse_json(header, doc) || !doc.IsObject() ||
            find_member(doc, "alg") == nullptr) {
          break;
        }
        return found(a + 1 + b + 1 + s, "secret-jwt");
      }
      break;
    default:
      break;
  }
  // The assignments: a keyword, case aside, then = or :.
  std::size_t key = 0;
  if (c == 'p' || c == 'P') {
    key = starts_nocase(text, at, "password") ? 8 : starts_nocase(text, at, "passwd") ? 6 : 0;
  } else if (c == 't' || c == 'T') {
    key = starts_nocase(text, at, "token") ? 5 : 0;
  } else if (c == 's' || c == 'S') {
    if (starts_nocase(text, at, "secret_access_key") ||
        starts_nocase(text, at, "secretaccesskey")) {
      std::size_t k = text[at + 6] == '_' ? 17 : 15;
      std::size_t v = at + k;
      while (v < text.size() && std::strchr("\"' \t=:", text[v]) != nullptr && text[v] != '\0') {
        ++v;
      }
      std::size_t n = run(text, v, is_b64);
      if (n == 40 && v > at + k)
        return SecretMatch{v, 40, "secret-aws-secret-key"};
      return SecretMatch{};
    }
    key = starts_nocase(text, at, "secret") ? 6 : 0;
  } else if (c == 'a' || c == 'A') {
    key = starts_nocase(text, at, "api_key") || starts_nocase(text, at, "api-key") ? 7
          : starts_nocase(text, at, "apikey")                                      ? 6
                                                                                   : 0;
  }
  if (key == 0) {
    return SecretMatch{};
  }
  // The rest of the name (PASSWORD_HASH, tokens, secretKey), then quotes, spaces, = or :.
  std::size_t v = at + key + run(text, at + key, is_underscore_alnum);
  std::size_t sep = v;
  while (v < text.size() && (text[v] == '"' || text[v] == '\'' || text[v] == ' '))
    ++v;
  if (v >= text.size() || (text[v] != '=' && text[v] != ':'))
    return SecretMatch{};
  ++v;
  while (v < text.size() && (text[v] == '"' || text[v] == '\'' || text[v] == ' '))
    ++v;
  (void)sep;
  std::size_t n = run(text, v, [](unsigned char ch) {
    return ch > ' ' && ch != 0x7F && std::strchr("\"'`,;&(){}[]<>\\", ch) == nullptr;
  });
  // A value a specific rule knows (TOKEN=ghp_...) is reported under that rule.
  if (may_start(text, v)) {
    SecretMatch specific = match_at(text, v);
    if (specific.length != 0 && specific.rule != "secret-generic-assignment") {
      return specific;
    }
  }
  // Code is not a secret: the value must mix letters and digits, and not be a
  // variable ($TOKEN, ${...}) or an expression cut at a bracket.
  std::string_view value = text.substr(v, n);
  if (n < k_min_assignment_length || value.front() == '$' || looks_like_code(value) ||
      value.find_first_of("0123456789") == std::string_view::npos ||
      std::none_of(value.begin(), value.end(),
                   [](char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'); }) ||
      (v + n < text.size() && std::strchr("([<{", text[v + n]) != nullptr) ||
      shannon_entropy(value) < k_min_assignment_entropy) {
    return SecretMatch{};
  }
  return SecretMatch{v, n, "secret-generic-assignment"};
}

void add_match(std::vector<SecretMatch>& out, SecretMatch m) {
  for (const SecretMatch& other : out) {
    if (m.begin < other.begin + other.length && other.begin < m.begin + m.length) {
      return;
    }
  }
  out.push_back(m);
}

}  // namespace

std::span<const SecretRule> secret_rules() {
  return k_secret_rules;
}

bool is_secret_rule(std::string_view name) {
  return std::any_of(std::begin(k_secret_rules), std::end(k_secret_rules),
                     [name](const SecretRule& r) { return r.name == name; });
}

double shannon_entropy(std::string_view text) {
  if (text.empty()) {
    return 0;
  }
  std::array<std::size_t, 256> counts{};
  for (char c : text) {
    ++counts[static_cast<unsigned char>(c)];
  }
  double bits = 0;
  auto size = static_cast<double>(text.size());
  for (std::size_t n : counts) {
    if (n != 0) {
      double p = static_cast<double>(n) / size;
      bits -= p * std::log2(p);
    }
  }
  return bits;
}

std::string mask_secret(std::string_view secret) {
  // Four characters, not cutting a UTF-8 sequence.
  std::size_t n = std::min<std::size_t>(4, secret.size());
  while (n < secret.size() && (static_cast<unsigned char>(secret[n]) & 0xC0) == 0x80) {
    ++n;
  }
  std::string shown(secret.substr(0, n));
  for (char& ch : shown) {
    if (static_cast<unsigned char>(ch) < 0x20)
      ch = ' ';
  }
  return fmt::format("{}\u2026 ({} chars)", shown, secret.size());
}

SecretScanner::SecretScanner(const SecretOptions& options) : m_known(options.known) {
  for (const std::string& pattern : options.patterns) {
    m_patterns.emplace_back(pattern, std::regex::ECMAScript | std::regex::optimize);
  }
  m_known.erase(std::remove(m_known.begin(), m_known.end(), std::string()), m_known.end());
  m_any_length = !m_known.empty() || !m_patterns.empty();
}

std::vector<SecretMatch> SecretScanner::scan(std::string_view text) const {
  std::vector<SecretMatch> out;
  if (text.size() < k_shortest_secret && m_known.empty() && m_patterns.empty()) {
    return out;  // most strings of a record: names, types, ids
  }
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  std::size_t last = text.size() > 0 ? text.size() - 1 : 0;
  for (std::size_t at = 0; at < text.size();) {
    at = next_start(bytes, at, last, text.size());
    if (at >= last) {
      break;
    }
    SecretMatch m = match_at(text, at);
    if (m.length == 0) {
      ++at;
      continue;
    }
    add_match(out, m);
    at = m.begin + m.length;
  }
  for (const std::string& known : m_known) {
    for (std::size_t at = text.find(known); at != std::string_view::npos;
         at = text.find(known, at + known.size())) {
      add_match(out, SecretMatch{at, known.size(), "secret-known-value"});
    }
  }
  for (const std::regex& pattern : m_patterns) {
    for (std::cregex_iterator it(text.data(), text.data() + text.size(), pattern), end; it != end;
         ++it) {
      if (it->length(0) > 0) {
        add_match(out, SecretMatch{static_cast<std::size_t>(it->position(0)),
                                   static_cast<std::size_t>(it->length(0)), "secret-pattern"});
      }
    }
  }
  std::sort(out.begin(), out.end(),
            [](const SecretMatch& a, const SecretMatch& b) { return a.begin < b.begin; });
  return out;
}

void SecretScanner::scan_json(const JsonValue& value, std::string path, const Found& found) const {
  walk(value, path, nullptr, found);
}

std::string SecretScanner::path_string(const std::string& root, const PathPart* last) {
  std::vector<const PathPart*> parts;
  for (const PathPart* part = last; part != nullptr; part = part->up) {
    parts.push_back(part);
  }
  std::string out = root;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    const PathPart& part = **it;
    if (part.json) {
      out += "{}";
    } else if (part.name.data() != nullptr) {
      if (!out.empty()) {
        out += '.';
      }
      out += part.name;
    } else {
      out += fmt::format("[{}]", part.index);
    }
  }
  return out;
}

void SecretScanner::walk(const JsonValue& value, const std::string& root, const PathPart* path,
                         const Found& found) const {
  if (value.IsObject()) {
    for (const auto& member : value.GetObject()) {
      std::string_view name = view_of(member.name);
      if (name.size() >= k_shortest_secret || m_any_length) {
        for (const SecretMatch& m : scan(name)) {
          found(path_string(root, path), name, m);
        }
      }
      if (member.value.IsString() && member.value.GetStringLength() < k_shortest_secret &&
          !m_any_length) {
        continue;  // most members: names, types, ids
      }
      const PathPart part{path, name, 0, false};
      walk(member.value, root, &part, found);
    }
  } else if (value.IsArray()) {
    std::size_t i = 0;
    for (const JsonValue& item : value.GetArray()) {
      const PathPart part{path, std::string_view(), i++, false};
      walk(item, root, &part, found);
    }
  } else if (value.IsString()) {
    std::string_view text = view_of(value);
    if (text.size() < k_shortest_secret && !m_any_length) {
      return;  // most strings of a record: names, types, ids (and no JSON holds a secret)
    }
    // JSON carried in a string (an OpenAI tool call's arguments, a serialized input)
    // is searched in its own decoded strings, which its escapes may hide.
    std::size_t first = 0;
    while (first < text.size() &&
           (text[first] == ' ' || text[first] == '\t' || text[first] == '\r' ||
            text[first] == '\n')) {
      ++first;
    }
    if (first < text.size() && (text[first] == '{' || text[first] == '[')) {
      JsonDoc inner;
      if (!parse_json(text, inner)) {
        const PathPart part{path, std::string_view(), 0, true};
        walk(inner, root, &part, found);
        return;
      }
    }
    for (const SecretMatch& m : scan(text)) {
      found(path_string(root, path), text, m);
    }
  }
}

}  // namespace convo
