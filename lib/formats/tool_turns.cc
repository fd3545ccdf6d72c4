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

void ToolNames::note(const Message& message) {
  if (!message.content.is_blocks()) {
    return;
  }
  for (const Block& block : message.content.blocks) {
    if (block.type == BlockType::tool_use && !block.id.empty() && !block.name.empty()) {
      m_names[block.id] = block.name;
    }
  }
}

std::string_view ToolNames::name_for(const Block& result) const {
  if (!result.name.empty()) {
    return result.name;
  }
  auto known = m_names.find(result.id);
  return known != m_names.end() ? std::string_view(known->second) : std::string_view();
}

}  // namespace convo
