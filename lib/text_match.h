// "Did you mean" for names users type: the closest of a set of choices.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace convo {

// The choice closest to `word` by edit distance, or "" when none is close (more
// than two edits away).
std::string closest_match(std::string_view word, const std::vector<std::string>& choices);

}  // namespace convo
