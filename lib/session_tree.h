// The uuid/parentUuid tree of a Claude Code session, and the threads of it that are
// conversations: the main thread (what Claude Code sends when the session is
// resumed) and the subagents' threads. Records of other formats have no tree; their
// one thread is every record, in order.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "message.h"
#include "tool_links.h"

namespace convo {

class SessionTree {
 public:
  // Indexes `records` (one conversation, in file order), which must outlive the tree.
  explicit SessionTree(const std::vector<Message>& records);

  // True when some record has a uuid: the records form a tree.
  bool has_tree() const { return !m_index.empty(); }
  // The index of the record with uuid `uuid` (the last one, when several have it).
  std::optional<std::size_t> find(std::string_view uuid) const;
  // Records whose uuid an earlier record already has: (later, earlier) index pairs.
  const std::vector<std::pair<std::size_t, std::size_t>>& duplicates() const {
    return m_duplicates;
  }

  // The main thread, as indexes into the records in conversation order: the chain of
  // parentUuid links from the last record back to the start or to the latest compact
  // boundary (whose summary follows it), plus the records a single-parent walk
  // misses around a response split over several records (its other pieces, and the
  // results of its parallel tool calls with whatever hangs below them, as Claude
  // Code recovers them), and after its last message every record that is not a
  // message below it, in timestamp order (the attachments beside the leaf, a hook's
  // blocking error, not only those on the leaf's branch). Records of subagents
  // (isSidechain) are not on it, unless every record is one (a subagent's own log).
  // Without a tree: every record.
  std::vector<std::size_t> main_thread() const;

  // The subagent threads of a log that also holds its main thread (Claude Code 1.0
  // writes subagents into the session file, isSidechain set): one thread per
  // subagent, built like the main thread from its last record, in order of its
  // first record. Empty when there are none.
  std::vector<std::vector<std::size_t>> sidechain_threads() const;

 private:
  static constexpr std::size_t k_none = static_cast<std::size_t>(-1);

  std::vector<std::size_t> thread_from(std::size_t leaf) const;
  // `chain` cut after its last message, followed by every record that is not a
  // message below that message (Claude Code's attachments of the leaf).
  std::vector<std::size_t> with_records_below(std::vector<std::size_t> chain) const;

  const std::vector<Message>& m_records;
  std::unordered_map<std::string_view, std::size_t> m_index;  // uuid -> record
  // The tree as indexes: each record's parent, first child and next sibling (file order).
  std::vector<std::size_t> m_parent;
  std::vector<std::size_t> m_first_child;
  std::vector<std::size_t> m_next_sibling;
  // The records of one API response (Claude Code writes a record per content
  // block): each record's first record of its response, and the next one.
  std::vector<std::size_t> m_response_start;
  std::vector<std::size_t> m_next_piece;
  std::vector<std::pair<std::size_t, std::size_t>> m_duplicates;
  bool m_all_sidechain = true;  // no record with a uuid is on the main side
  bool m_linked = false;        // some record names a parentUuid
};

}  // namespace convo
