// Records that hold a tool call and its result together (an OpenCode tool part, an
// AgentScope 2.x assistant message with tool_call and tool_result blocks) become the
// turns the APIs expect: assistant blocks up to the calls, then a tool message with
// the results, then the next assistant blocks. The formats that write such records
// join the turns back.
#pragma once

#include <concepts>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
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

// For formats that give each tool result a message of its own (OpenAI, LangChain,
// Synaptic): calls `result` on each tool_result block of `message`, in order, and
// returns the other blocks, which make the message written after the results;
// nullopt when the message held nothing but results. A message whose content is a
// string has no results and no blocks.
// (A template: a lambda capturing the encoder, its output and the message is too
// large for a std::function to hold without an allocation, and this runs for each
// message.)
template <class OnResult>
  requires std::invocable<OnResult&, const Block&>
std::optional<std::vector<const Block*>> split_off_results(const Message& message,
                                                           OnResult&& result) {
  std::vector<const Block*> rest;
  bool had_results = false;
  if (message.content.is_blocks()) {
    rest.reserve(message.content.blocks.size());  // one allocation, not one a doubling
    for (const Block& block : message.content.blocks) {
      if (block.type == BlockType::tool_result) {
        result(block);
        had_results = true;
      } else {
        rest.push_back(&block);
      }
    }
  }
  if (had_results && rest.empty()) {
    return std::nullopt;
  }
  return rest;
}

// The blocks of a message as the LangChain-style formats (langchain, synaptic) write
// them: tool calls (into `tool_calls`), invalid tool calls (`invalid_tool_calls`,
// blocks whose type_name is `invalid_type_name`) and the content. A call for which
// `also_in_content` says so is in the content too.
struct CallSplit {
  std::vector<const Block*> calls;
  std::vector<const Block*> invalid;
  std::vector<const Block*> content;
};
CallSplit split_calls(const std::vector<const Block*>& blocks, std::string_view invalid_type_name,
                      const std::function<bool(const Block&)>& also_in_content = {});

// Only an assistant message holds tool calls: unless `m` is one, empties `split`'s
// calls and invalid calls and returns what is lost ("tool calls in human
// messages", the role as `role_name` spells it); "" when nothing is.
std::string assistant_calls_only(const Message& m, std::string_view role_name, CallSplit& split);

// Tool names by call id, remembered from the tool calls an encoder has written, so
// that a result written in a format that names the tool (LangChain, Synaptic,
// AgentScope) gets the name when its source format did not say it (OpenAI,
// Anthropic). An encoder lives for one input, and so does what it remembers.
class ToolNames {
 public:
  // Remembers the names of the tool_use blocks of `message`.
  void note(const Message& message);
  // The result's own name, else the name of the call it answers, else "".
  std::string_view name_for(const Block& result) const;

 private:
  std::map<std::string, std::string, std::less<>> m_names;
};

}  // namespace convo
