#include "text_match.h"

#include <algorithm>

namespace convo {

namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) {
    row[j] = j;
  }
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string closest_match(std::string_view word, const std::vector<std::string>& choices) {
  std::string best;
  std::size_t best_distance = 3;  // farther than this is no hint at all
  for (const std::string& choice : choices) {
    std::size_t d = edit_distance(word, choice);
    if (d < best_distance) {
      best = choice;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace convo
