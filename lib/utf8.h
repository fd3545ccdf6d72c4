// UTF-8 validity, for the places that must not write invalid text: JSON text is
// UTF-8 (RFC 8259), and the APIs the output formats feed reject anything else.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace convo {

// The offset of the first byte of `text` that does not start a well-formed UTF-8
// sequence (overlong forms, surrogates and code points past U+10FFFF are not), or
// nullopt when all of `text` is valid. ASCII runs are checked 16 bytes at a time.
std::optional<std::size_t> find_invalid_utf8(std::string_view text);

}  // namespace convo
