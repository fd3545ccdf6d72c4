// JSON written the way other languages' serializers write it, for output that must
// match LangChain byte for byte: JavaScript's JSON.stringify (LangChain.js) and
// Python's json.dumps (LangChain Python). Both read the value as their parser
// would have (the last of duplicate keys wins, in the place of the first).
#pragma once

#include <string>
#include <string_view>

#include "json.h"

namespace convo {

// Appends `text` as a JSON string literal as both JSON.stringify and json.dumps
// (ensure_ascii=False) write it: `"` and `\` escaped, control characters as \b \f
// \n \r \t or \u00xx, everything else as it is.
void append_json_string(std::string_view text, std::string& out);

// Appends `value` as JSON.stringify(value) writes it: compact; numbers as
// JavaScript prints them (shortest digits, 1e+21 beyond 1e21, integers past 2^53
// rounded); an object's array-index keys ("0", "17") first, in increasing order.
void append_js_json(const JsonValue& value, std::string& out);

// Appends `value` as Python's json.dumps(value, ensure_ascii=False) writes it:
// ", " and ": " between items; integers as written, floats as Python's repr
// (1.0, 1e-05, 1e+16).
void append_python_json(const JsonValue& value, std::string& out);

}  // namespace convo
