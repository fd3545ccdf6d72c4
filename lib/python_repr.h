// Lengths of Python's len() and repr() for JSON values, in code points: what
// LangChain's count_tokens_approximately measures (it counts `len(repr(block))` for
// content blocks and tool calls). Only lengths are computed; no text is built.
#pragma once

#include <cstddef>
#include <string_view>

#include "json.h"

namespace convo {

// Python's `len()` of the str that UTF-8 `text` decodes to: its code points. A byte
// that is not valid UTF-8 counts as one.
std::size_t python_len(std::string_view text);

// `len(repr(s))` for the Python str `s` holding `text`: quotes, backslash escapes for
// control characters, and `\xNN`/`\uNNNN`/`\UNNNNNNNN` for code points Python does
// not print (Unicode general categories C* and Z* but the space).
std::size_t python_repr_length(std::string_view text);

// `len(repr(float(value)))`: Python's shortest round-trip form ("0.1", "5.0",
// "1e-05", "1e+16").
std::size_t python_repr_length(double value);

// `len(repr(json.loads(text)))` for the parsed JSON `value`: dicts in member order
// (`{'k': v, ...}`), lists, True/False/None, ints and floats as Python prints them.
// Integers beyond 64 bits, which RapidJSON reads as doubles, count as floats.
std::size_t python_repr_length(const JsonValue& value);

}  // namespace convo
