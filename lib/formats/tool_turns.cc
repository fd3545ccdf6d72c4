#include "formats/tool_turns.h"

namespace convo {

std::vector<ToolTurn> split_tool_turns(std::vector<Block> blocks, Role role) {
  std::vector<ToolTurn> turns;
  for (Block& block : blocks) {
    Role wanted = block.type == BlockType::tool_result ? Role::tool : role;
    if (turns.empty() || turns.back().role != wanted) {
      turns.push_back(ToolTurn{wanted, {}});
    }
    turns.back().blocks.push_back(std::move(block));
  }
  if (turns.empty()) {
    turns.push_back(ToolTurn{role, {}});
  }
  return turns;
}

}  // namespace convo
