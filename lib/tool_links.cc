#include "tool_links.h"

namespace convo {

bool same_response(const Message& a, const Message& b) {
  return a.is_turn() && b.is_turn() && a.role == Role::assistant && b.role == Role::assistant &&
         !a.envelope.message_id.empty() && a.envelope.message_id == b.envelope.message_id;
}

ResponsePieces::ResponsePieces(const std::vector<Message>& records)
    : m_first(records.size(), k_none), m_next(records.size(), k_none) {
  std::unordered_map<std::string_view, std::size_t> last;  // message id -> its last piece so far
  for (std::size_t i = 0; i < records.size(); ++i) {
    const Message& record = records[i];
    if (!record.is_turn() || record.role != Role::assistant) {
      continue;
    }
    m_first[i] = i;
    const std::string& id = record.envelope.message_id;
    if (id.empty()) {
      continue;
    }
    auto [it, added] = last.emplace(id, i);
    if (!added) {
      m_first[i] = m_first[it->second];
      m_next[it->second] = i;
      it->second = i;
    }
  }
}

std::vector<std::vector<std::size_t>> response_groups(const std::vector<Message>& records) {
  ResponsePieces pieces(records);
  std::vector<std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (pieces.is_piece(i) && pieces.first(i) == i) {
      std::vector<std::size_t>& group = groups.emplace_back();
      for (std::size_t piece = i; piece != ResponsePieces::k_none; piece = pieces.next(piece)) {
        group.push_back(piece);
      }
    }
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
  auto it = m_links.find(id);
  return it == m_links.end() ? nullptr : &it->second;
}

}  // namespace convo
