#include "stages/split_blocks.h"

#include <fmt/format.h>
#include <range/v3/view/enumerate.hpp>

#include <cstdint>

namespace convo {

std::string derive_uuid(std::string_view uuid, std::size_t index) {
  return fmt::format("{}{:012x}", uuid.substr(0, 24), index);
}

std::string derive_short_message_id(std::string_view uuid) {
  // JavaScript's parseInt(hex, 16): the leading hex digits, NaN when there are none.
  std::uint64_t value = 0;
  std::size_t digits = 0;
  std::size_t taken = 0;
  for (char c : uuid) {
    if (c == '-') {
      continue;
    }
    if (taken++ == 10) {
      break;
    }
    int digit = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
    if (digit < 0) {
      break;
    }
    value = value * 16 + static_cast<std::uint64_t>(digit);
    ++digits;
  }
  if (digits == 0) {
    return "NaN";
  }
  std::string base36;
  do {
    base36.insert(base36.begin(), "0123456789abcdefghijklmnopqrstuvwxyz"[value % 36]);
    value /= 36;
  } while (value != 0);
  return base36.substr(0, 6);
}

void SplitBlocks::follow_renames(Message& message) const {
  RecordMeta& e = message.meta.edit();
  if (m_renamed.empty()) {
    return;
  }
  if (auto it = m_renamed.find(e.parent_uuid); it != m_renamed.end()) {
    e.parent_uuid = it->second;
    message.touch();
  }
  if (auto it = m_renamed.find(e.logical_parent_uuid); it != m_renamed.end()) {
    e.logical_parent_uuid = it->second;
    message.touch();
  }
}

void SplitBlocks::push(Message&& message, MessageSink& next) {
  Content& content = message.content;
  bool splittable = message.is_turn() &&
                    (content.is_string() || (content.is_blocks() && !content.blocks.empty()));
  if (!splittable) {
    follow_renames(message);
    next.put(std::move(message));
    return;
  }
  if (content.is_string()) {
    content.blocks.push_back(Block::make_text(std::move(content.text)));
    content.text.clear();
    content.form = Content::Form::blocks;
  } else if (content.blocks.size() > 1) {
    m_new_chain = true;
  }
  follow_renames(message);
  const std::string uuid = message.meta->uuid;
  std::vector<Block> blocks = std::move(content.blocks);
  std::string previous;  // the uuid of the block before
  for (auto&& [k, block] : ranges::views::enumerate(blocks)) {
    bool last = k + 1 == blocks.size();
    Message piece;
    if (last) {
      piece = std::move(message);
    } else {
      piece = message;
    }
    piece.content.form = Content::Form::blocks;
    piece.content.blocks.clear();
    piece.content.blocks.push_back(std::move(block));
    if (!uuid.empty()) {
      RecordMeta& e = piece.meta.edit();
      e.uuid = m_new_chain ? derive_uuid(uuid, k) : uuid;
      if (k > 0) {
        e.parent_uuid = previous;
      }
      e.short_id = derive_short_message_id(e.uuid);
      piece.id = e.uuid;
      previous = e.uuid;
    }
    piece.touch();
    next.put(std::move(piece));
  }
  if (!uuid.empty() && previous != uuid) {
    m_renamed[uuid] = previous;
  }
}

}  // namespace convo
