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

// escape_json (json.h), 32 bytes of input a step however many of them it escapes;
// the same bytes, within the same room. Only when wide_escapes().
char* wide_escape_json(char* out, const char* p, const char* end);

}  // namespace convo
