// Which records of a transcript belong together: the pieces of one API response
// (Claude Code writes each content block of a response as its own assistant record,
// all sharing `message.id`, possibly interleaved with tool results and progress
// records), and each tool_use with the tool_result blocks that answer it. Stages
// that must keep such records together (normalize-for-api, check, trim) ask here.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "message.h"

namespace convo {

// True when `a` and `b` are pieces of one API response: both assistant turns with
// the same, non-empty API message id (`message.id` in Claude Code records).
bool same_response(const Message& a, const Message& b);

// The pieces of each API response among `records`, linked in file order. Assistant
// turns without a message id are responses of their own; records that are not
// assistant turns belong to no response.
class ResponsePieces {
 public:
  static constexpr std::size_t k_none = static_cast<std::size_t>(-1);

  explicit ResponsePieces(const std::vector<Message>& records);

  // True when record `i` is a piece of a response.
  bool is_piece(std::size_t i) const { return m_first[i] != k_none; }
  // The first piece of record `i`'s response; k_none when `i` is no piece.
  std::size_t first(std::size_t i) const { return m_first[i]; }
  // The piece after `i` in its response; k_none after the last.
  std::size_t next(std::size_t i) const { return m_next[i]; }

 private:
  std::vector<std::size_t> m_first;
  std::vector<std::size_t> m_next;
};

// The pieces of each API response among `records`, as lists of indexes in file
// order, one list per response in order of its first piece (see ResponsePieces).
std::vector<std::vector<std::size_t>> response_groups(const std::vector<Message>& records);

// Where a block is: the index of its message and its index in that message's blocks.
struct BlockAt {
  std::size_t message = 0;
  std::size_t block = 0;
};

// A tool call and the results that answer it.
struct ToolLink {
  BlockAt use;                  // the tool_use block
  std::vector<BlockAt> results;  // every tool_result block naming it, in order
};

// The tool_use blocks of a sequence of messages and the tool_result blocks that
// answer them, matched by id. Indexes and ids refer to the sequence the links were
// made from, which must not change while the links are in use.
class ToolLinks {
 public:
  // Links the tool blocks of `count` messages, message `i` being `at(i)`.
  ToolLinks(std::size_t count, const std::function<const Message&(std::size_t)>& at);
  explicit ToolLinks(const std::vector<Message>& messages);

  // The call with id `id` (its first tool_use when the id is used twice), or null.
  const ToolLink* find(std::string_view id) const;
  // tool_use blocks whose id an earlier tool_use already has.
  const std::vector<BlockAt>& duplicate_uses() const { return m_duplicate_uses; }
  // tool_result blocks that name no tool_use at all.
  const std::vector<BlockAt>& orphan_results() const { return m_orphan_results; }

 private:
  std::unordered_map<std::string_view, ToolLink> m_links;
  std::vector<BlockAt> m_duplicate_uses;
  std::vector<BlockAt> m_orphan_results;
};

}  // namespace convo
