#include "formats/tool_turns.h"

#include <fmt/format.h>

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

CallSplit split_calls(const std::vector<const Block*>& blocks, std::string_view invalid_type_name,
                      const std::function<bool(const Block&)>& also_in_content) {
  CallSplit split;
  for (const Block* block : blocks) {
    if (block->type == BlockType::tool_use) {
      split.calls.push_back(block);
      if (also_in_content && also_in_content(*block)) {
        split.content.push_back(block);
      }
    } else if (block->type == BlockType::unknown && block->type_name == invalid_type_name) {
      split.invalid.push_back(block);
    } else {
      split.content.push_back(block);
    }
  }
  return split;
}

std::string assistant_calls_only(const Message& m, std::string_view role_name, CallSplit& split) {
  if (m.role == Role::assistant || (split.calls.empty() && split.invalid.empty())) {
    return "";
  }
  split.calls.clear();
  split.invalid.clear();
  return fmt::format("tool calls in {} messages", role_name);
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
