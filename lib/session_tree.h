// The uuid/parentUuid tree of a Claude Code session, and the threads of it that are
// conversations: the main thread (what Claude Code sends when the session is
// resumed) and the subagents' threads. Records of other formats have no tree; their
// one thread is every record, in order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "message.h"
#include "tool_links.h"

namespace convo {

// What the session tree reads of one record: its links, what it is, the response it
// is a piece of, and its timestamp (which orders the records below a thread's leaf).
// The views point into the records (or into what holds them compactly).
struct TreeNode {
  std::string_view uuid;
  std::string_view parent_uuid;
  std::string_view message_id;  // of an assistant turn: its API response
  std::string_view timestamp;
  bool is_turn = false;
  bool is_assistant_turn = false;
  bool is_sidechain = false;
  bool is_message_record = false;   // a Claude Code user or assistant record
  bool is_compact_boundary = false;
  bool carries_tool_result = false;  // a user turn with a tool_result block
};

// The records a tree is built over, in file order: `Message`s, or a conversation
// held in a compact form (held_records.h) that has no `Message` per record.
class TreeRecords {
 public:
  virtual ~TreeRecords() = default;
  virtual std::size_t size() const = 0;
  virtual TreeNode node(std::size_t index) const = 0;
  // `node(index).uuid`, read alone (the index of uuids compares them).
  virtual std::string_view uuid(std::size_t index) const = 0;
};

// What the tree reads of `record`.
TreeNode tree_node(const Message& record);

class SessionTree {
 public:
  // Indexes `records` (one conversation, in file order), which must outlive the tree.
  explicit SessionTree(const std::vector<Message>& records);
  // The same over records held some other way; `records` must outlive the tree.
  explicit SessionTree(const TreeRecords& records);

  // True when some record has a uuid: the records form a tree.
  bool has_tree() const { return m_has_uuid; }
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
  // Records are counted in 32 bits: 4 bytes an index, where the tree is as large as
  // the conversation (a log held whole with --group-by file).
  using Index = std::uint32_t;
  static constexpr Index k_none = UINT32_MAX;

  explicit SessionTree(std::unique_ptr<TreeRecords> records);

  std::vector<std::size_t> thread_from(std::size_t leaf) const;
  // `chain` cut after its last message, followed by every record that is not a
  // message below that message (Claude Code's attachments of the leaf).
  std::vector<std::size_t> with_records_below(std::vector<std::size_t> chain) const;

  // Over `Message`s: the adapter `m_records` reads through.
  std::unique_ptr<TreeRecords> m_own_records;
  const TreeRecords& m_records;
  // uuid -> record: open addressing, record + 1 (0 for free), at most half full:
  // 4 to 8 bytes a record where a std::unordered_map node is about 56.
  std::vector<Index> m_slots;
  bool m_has_uuid = false;
  // The tree as indexes: each record's parent, first child and next sibling (file order).
  std::vector<Index> m_parent;
  std::vector<Index> m_first_child;
  std::vector<Index> m_next_sibling;
  // The records of one API response (Claude Code writes a record per content
  // block): each record's first record of its response, and the next one.
  std::vector<Index> m_response_start;
  std::vector<Index> m_next_piece;
  std::vector<std::pair<std::size_t, std::size_t>> m_duplicates;
  bool m_all_sidechain = true;  // no record with a uuid is on the main side
  bool m_linked = false;        // some record names a parentUuid
};

}  // namespace convo
