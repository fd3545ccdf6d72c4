// AVX-512BW versions of the JSON string loops (json_wide.cc says when they run).
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

}  // namespace convo
