#include "formats/mapping.h"

#include <fmt/format.h>

#include <algorithm>

namespace convo {

int sniff_each(const JsonValue& array, int (*sniff)(const JsonValue& element)) {
  int score = 0;
  rapidjson::SizeType n = std::min<rapidjson::SizeType>(array.Size(), 32);
  for (rapidjson::SizeType i = 0; i < n; ++i) {
    int s = sniff(array[i]);
    if (s < 0) {
      return -1;
    }
    score += s;
  }
  return score;
}

bool admit(const BlockFit& fit, const std::function<void(std::string_view what)>& drop) {
  for (const std::string& what : fit.lost) {
    drop(what);
  }
  return fit.written;
}

std::string blocks_of(const Block& block) {
  return fmt::format("{} blocks", block.type_name.empty() ? block_type_name(block.type)
                                                          : std::string_view(block.type_name));
}

}  // namespace convo
