// AVX-512 versions of the JSON string loops (json_wide.cc says when they run).
#pragma once

#include <cstddef>

namespace convo {

// True when the CPU runs the loops below (and the build has them: not under
// AddressSanitizer, whose checks of a 64-byte load know no mask).
bool wide_strings();

// The length of the run of string bytes at `p` before the first quote, backslash
// or control character (which must come: the text's terminator is one), copying
// them to `q` when `copy` (in place with `q` < `p`, or into a shadow). Only when
// wide_strings().
std::size_t wide_scan_string(const char* p, char* q, bool copy);

// True when the CPU also runs wide_escape_json (AVX-512 VBMI, VBMI2 and BMI2).
bool wide_escapes();

// escape_json (json.h), 64 bytes of input a step however many of them it escapes;
// the same bytes, within the same room. Only when wide_escapes().
char* wide_escape_json(char* out, const char* p, const char* end);

// True when the CPU also runs wide_unescape_string (AVX-512 VBMI and VBMI2).
bool wide_unescapes();

// Unescapes a string's bytes from `p` to `q`, 64 bytes a step, up to the first byte
// it leaves to the caller: a quote or control character that ends the string (or
// is not JSON), an escape other than the one-byte ones (\", \\, \/, \b, \f, \n, \r,
// \t), or an escape whose backslash ends a step. Returns where it stopped, `q`
// moved past what it wrote; sets `slash` when it unescaped a `\/`. `q` is in a
// shadow (parse_json_shadowed): at `p`'s offset in the text or before it, with
// room after it as far as the text's. Only when wide_unescapes().
const char* wide_unescape_string(const char* p, char*& q, bool& slash);

}  // namespace convo
