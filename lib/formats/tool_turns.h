// Records that hold a tool call and its result together (an OpenCode tool part, an
// AgentScope 2.x assistant message with tool_call and tool_result blocks) become the
// turns the APIs expect: assistant blocks up to the calls, then a tool message with
// the results, then the next assistant blocks. The formats that write such records
// join the turns back.
#pragma once

#include <vector>

#include "message.h"

namespace convo {

// One turn cut out of a record: the role it speaks with and its blocks.
struct ToolTurn {
  Role role = Role::assistant;
  std::vector<Block> blocks;
};

// Splits `blocks` (of a record whose role is `role`) at every change between
// tool_result blocks and other blocks. Runs of tool_result blocks become turns of
// Role::tool; the others keep `role`. A record without tool results is one turn.
std::vector<ToolTurn> split_tool_turns(std::vector<Block> blocks, Role role);

}  // namespace convo
