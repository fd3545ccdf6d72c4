#include "tool_links.h"

namespace convo {

bool same_response(const Message& a, const Message& b) {
  return a.is_turn() && b.is_turn() && a.role == Role::assistant && b.role == Role::assistant &&
         !a.envelope.message_id.empty() && a.envelope.message_id == b.envelope.message_id;
}

std::vector<std::vector<std::size_t>> response_groups(const std::vector<Message>& records) {
  std::vector<std::vector<std::size_t>> groups;
  std::unordered_map<std::string_view, std::size_t> group_of;  // message id -> group
  for (std::size_t i = 0; i < records.size(); ++i) {
    const Message& record = records[i];
    if (!record.is_turn() || record.role != Role::assistant) {
      continue;
    }
    const std::string& id = record.envelope.message_id;
    if (!id.empty()) {
      auto [it, added] = group_of.emplace(id, groups.size());
      if (!added) {
        groups[it->second].push_back(i);
        continue;
      }
    }
    groups.push_back({i});
  }
  return groups;
}

ToolLinks::ToolLinks(std::size_t count, const std::function<const Message&(std::size_t)>& at) {
  // Calls first, so that a result written before its call (a reordered log) still
  // finds it.
  for (std::size_t i = 0; i < count; ++i) {
    const Content& content = at(i).content;
    if (!content.is_blocks()) {
      continue;
    }
    for (std::size_t b = 0; b < content.blocks.size(); ++b) {
      const Block& block = content.blocks[b];
      if (block.type != BlockType::tool_use) {
        continue;
      }
      auto [it, added] = m_links.try_emplace(block.id, ToolLink{BlockAt{i, b}, {}});
      if (!added) {
        m_duplicate_uses.push_back(BlockAt{i, b});
      }
    }
  }
  for (std::size_t i = 0; i < count; ++i) {
    const Content& content = at(i).content;
    if (!content.is_blocks()) {
      continue;
    }
    for (std::size_t b = 0; b < content.blocks.size(); ++b) {
      const Block& block = content.blocks[b];
      if (block.type != BlockType::tool_result) {
        continue;
      }
      auto it = m_links.find(block.id);
      if (it == m_links.end()) {
        m_orphan_results.push_back(BlockAt{i, b});
      } else {
        it->second.results.push_back(BlockAt{i, b});
      }
    }
  }
}

ToolLinks::ToolLinks(const std::vector<Message>& messages)
    : ToolLinks(messages.size(), [&](std::size_t i) -> const Message& { return messages[i]; }) {}

const ToolLink* ToolLinks::find(std::string_view id) const {
  auto it = m_links.find(std::string(id));
  return it == m_links.end() ? nullptr : &it->second;
}

}  // namespace convo
