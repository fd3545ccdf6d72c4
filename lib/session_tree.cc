#include "session_tree.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <unordered_map>

namespace convo {

TreeNode tree_node(const Message& record) {
  TreeNode node;
  const RecordMeta& e = *record.meta;
  node.uuid = e.uuid;
  node.parent_uuid = e.parent_uuid;
  node.timestamp = record.timestamp;
  node.is_turn = record.is_turn();
  node.is_assistant_turn = node.is_turn && record.role == Role::assistant;
  if (node.is_assistant_turn) {
    node.message_id = e.message_id;
  }
  node.is_sidechain = e.is_sidechain;
  node.is_message_record = record.record_type == "user" || record.record_type == "assistant";
  node.is_compact_boundary = record.kind == Kind::event && e.subtype == "compact_boundary";
  node.carries_tool_result = node.is_turn && record.role == Role::user && record.has_tool_results();
  return node;
}

namespace {

class MessageTreeRecords final : public TreeRecords {
 public:
  explicit MessageTreeRecords(const std::vector<Message>& records) : m_records(records) {}
  std::size_t size() const override { return m_records.size(); }
  TreeNode node(std::size_t index) const override { return tree_node(m_records[index]); }
  std::string_view uuid(std::size_t index) const override { return m_records[index].meta->uuid; }

 private:
  const std::vector<Message>& m_records;
};

}  // namespace

SessionTree::SessionTree(const std::vector<Message>& records)
    : SessionTree(std::make_unique<MessageTreeRecords>(records)) {}

SessionTree::SessionTree(std::unique_ptr<TreeRecords> records) : SessionTree(*records) {
  m_own_records = std::move(records);
}

SessionTree::SessionTree(const TreeRecords& records)
    : m_records(records),
      m_parent(records.size(), k_none),
      m_first_child(records.size(), k_none),
      m_next_sibling(records.size(), k_none) {
  const std::size_t n = records.size();
  std::size_t slots = 16;
  while (slots < 2 * n) {
    slots *= 2;
  }
  m_slots.assign(slots, 0);
  const std::size_t mask = slots - 1;
  for (std::size_t i = 0; i < n; ++i) {
    TreeNode e = records.node(i);
    if (e.uuid.empty()) {
      continue;
    }
    m_has_uuid = true;
    std::size_t slot = std::hash<std::string_view>{}(e.uuid) & mask;
    for (; m_slots[slot] != 0; slot = (slot + 1) & mask) {
      std::size_t earlier = m_slots[slot] - 1;
      if (records.uuid(earlier) == e.uuid) {
        m_duplicates.emplace_back(i, earlier);
        break;  // as Claude Code's map of records: the last one wins
      }
    }
    m_slots[slot] = static_cast<Index>(i + 1);
    if (!e.is_sidechain) {
      m_all_sidechain = false;
    }
  }
  if (!m_has_uuid) {
    return;
  }
  // The records of one response (tool_links.h's response_starts, over nodes).
  m_response_start.resize(n);
  {
    std::unordered_map<std::string_view, std::size_t> first;
    for (std::size_t i = 0; i < n; ++i) {
      TreeNode e = records.node(i);
      m_response_start[i] = static_cast<Index>(i);
      if (e.is_assistant_turn && !e.message_id.empty()) {
        m_response_start[i] = static_cast<Index>(first.try_emplace(e.message_id, i).first->second);
      }
    }
  }
  m_next_piece.assign(n, k_none);
  std::vector<std::size_t> last_piece(n, k_none);  // response start -> last so far
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t start = m_response_start[i];
    if (start != i) {
      m_next_piece[last_piece[start] == k_none ? start : last_piece[start]] = static_cast<Index>(i);
    }
    last_piece[start] = i;
  }
  // Children are linked last to first, so that each list ends up in file order.
  for (std::size_t i = n; i-- > 0;) {
    TreeNode e = records.node(i);
    if (e.uuid.empty() || e.parent_uuid.empty()) {
      continue;
    }
    m_linked = true;
    if (auto parent = find(e.parent_uuid)) {
      m_parent[i] = static_cast<Index>(*parent);
      m_next_sibling[i] = m_first_child[*parent];
      m_first_child[*parent] = static_cast<Index>(i);
    }
  }
}

std::optional<std::size_t> SessionTree::find(std::string_view uuid) const {
  if (!m_has_uuid || uuid.empty()) {
    return std::nullopt;
  }
  const std::size_t mask = m_slots.size() - 1;
  for (std::size_t slot = std::hash<std::string_view>{}(uuid) & mask; m_slots[slot] != 0;
       slot = (slot + 1) & mask) {
    if (m_records.uuid(m_slots[slot] - 1) == uuid) {
      return m_slots[slot] - 1;
    }
  }
  return std::nullopt;
}

std::vector<std::size_t> SessionTree::main_thread() const {
  if (!has_tree() || !m_linked) {
    // No tree, or uuids but no links (an early 2.1 log): the records in file order.
    std::vector<std::size_t> all(m_records.size());
    std::iota(all.begin(), all.end(), std::size_t{0});
    return all;
  }
  // The leaf: the last record on the main side that is in the chain. A record with
  // a uuid and no parent that is not a message (a tool_use_summary) stands apart.
  for (std::size_t i = m_records.size(); i-- > 0;) {
    TreeNode e = m_records.node(i);
    if (!e.uuid.empty() && e.is_sidechain == m_all_sidechain &&
        (!e.parent_uuid.empty() || e.is_turn)) {
      return with_records_below(thread_from(i));
    }
  }
  return {};
}

std::vector<std::size_t> SessionTree::with_records_below(std::vector<std::size_t> chain) const {
  // The last message of the chain: the records after it on the chain are records that
  // are not messages (attachments, system records) hanging below it.
  std::size_t last = chain.size();
  for (std::size_t position = chain.size(); position-- > 0;) {
    TreeNode record = m_records.node(chain[position]);
    if (record.is_compact_boundary) {
      return chain;
    }
    if (record.is_message_record) {
      last = position;
      break;
    }
  }
  if (last == chain.size()) {
    return chain;
  }
  // Claude Code puts after the chain every record that is not a message below its
  // last message, breadth first through such records, in timestamp order: the
  // attachments beside the leaf come along (a hook's blocking error), not only those
  // on the leaf's own branch.
  std::vector<bool> taken(m_records.size(), false);
  for (std::size_t position = 0; position <= last; ++position) {
    taken[chain[position]] = true;
  }
  std::vector<std::size_t> below;
  std::vector<std::size_t> queue{chain[last]};
  for (std::size_t head = 0; head < queue.size(); ++head) {
    for (std::size_t child = m_first_child[queue[head]]; child != k_none;
         child = m_next_sibling[child]) {
      if (taken[child] || m_records.node(child).is_message_record) {
        continue;
      }
      taken[child] = true;
      below.push_back(child);
      queue.push_back(child);
    }
  }
  std::stable_sort(below.begin(), below.end(), [&](std::size_t a, std::size_t b) {
    return m_records.node(a).timestamp < m_records.node(b).timestamp;
  });
  chain.resize(last + 1);
  chain.insert(chain.end(), below.begin(), below.end());
  return chain;
}

std::vector<std::vector<std::size_t>> SessionTree::sidechain_threads() const {
  if (!has_tree() || m_all_sidechain) {
    return {};
  }
  // Each subagent's records hang below a root of their own (the prompt the parent
  // passed to its Task tool, whose parentUuid is null).
  std::vector<std::size_t> root_of(m_records.size(), k_none);
  std::vector<std::size_t> roots;  // in order of appearance
  for (std::size_t i = 0; i < m_records.size(); ++i) {
    TreeNode e = m_records.node(i);
    if (e.uuid.empty() || !e.is_sidechain) {
      continue;
    }
    std::size_t parent = m_parent[i];
    if (parent != k_none && parent < i && root_of[parent] != k_none) {
      root_of[i] = root_of[parent];
    } else {
      root_of[i] = i;
      roots.push_back(i);
    }
  }
  std::vector<std::size_t> last_of(m_records.size(), k_none);  // root -> its last record
  for (std::size_t i = 0; i < m_records.size(); ++i) {
    if (root_of[i] != k_none) {
      last_of[root_of[i]] = i;
    }
  }
  std::vector<std::vector<std::size_t>> threads;
  for (std::size_t root : roots) {
    threads.push_back(thread_from(last_of[root]));
  }
  return threads;
}

std::vector<std::size_t> SessionTree::thread_from(std::size_t leaf) const {
  std::vector<std::size_t> chain;
  std::vector<bool> taken(m_records.size(), false);
  std::size_t current = leaf;
  while (current != k_none && !taken[current]) {  // a parent loop ends the walk where it closes
    taken[current] = true;
    chain.push_back(current);
    // A compact boundary starts the conversation the model sees; the summary that
    // follows it stands in for everything before.
    if (m_records.node(current).is_compact_boundary) {
      break;
    }
    current = m_parent[current];
  }
  std::reverse(chain.begin(), chain.end());

  // A response split over several records, with parallel tool calls, is a fork:
  // each piece and each result hangs below the record written before it, and a
  // single-parent walk from the leaf passes through only one branch. Gather what it
  // missed around each response and put it after the response's last piece on the
  // chain, in file order (Claude Code's recoverOrphanedParallelToolResults).
  std::vector<std::size_t> last_on_chain;  // position of each response's last piece
  std::vector<std::size_t> responses;      // first pieces, in order of that position
  for (std::size_t position = 0; position < chain.size(); ++position) {
    std::size_t record = chain[position];
    TreeNode m = m_records.node(record);
    if (!m.is_assistant_turn || m.message_id.empty()) {
      continue;
    }
    if (last_on_chain.empty()) {
      last_on_chain.assign(m_records.size(), k_none);
    }
    std::size_t first = m_response_start[record];
    if (last_on_chain[first] == k_none) {
      responses.push_back(first);
    }
    last_on_chain[first] = position;
  }
  if (responses.empty()) {
    return chain;
  }
  std::sort(responses.begin(), responses.end(),
            [&](std::size_t a, std::size_t b) { return last_on_chain[a] < last_on_chain[b]; });

  std::vector<std::pair<std::size_t, std::vector<std::size_t>>> after;  // position -> records
  std::vector<std::size_t> pending;
  for (std::size_t first : responses) {
    std::vector<std::size_t> skipped;
    std::vector<std::size_t> followers;
    pending.clear();
    for (std::size_t piece = first; piece != k_none; piece = m_next_piece[piece]) {
      if (!taken[piece]) {
        taken[piece] = true;
        skipped.push_back(piece);
      }
      for (std::size_t child = m_first_child[piece]; child != k_none;
           child = m_next_sibling[child]) {
        if (!taken[child] && m_records.node(child).carries_tool_result) {
          pending.push_back(child);
        }
      }
    }
    while (!pending.empty()) {
      std::size_t next = pending.back();
      pending.pop_back();
      if (taken[next]) {
        continue;
      }
      taken[next] = true;
      followers.push_back(next);
      for (std::size_t child = m_first_child[next]; child != k_none;
           child = m_next_sibling[child]) {
        pending.push_back(child);
      }
    }
    if (skipped.empty() && followers.empty()) {
      continue;
    }
    std::sort(skipped.begin(), skipped.end());
    std::sort(followers.begin(), followers.end());
    skipped.insert(skipped.end(), followers.begin(), followers.end());
    after.emplace_back(last_on_chain[first], std::move(skipped));
  }
  if (after.empty()) {
    return chain;
  }
  std::vector<std::size_t> out;
  out.reserve(chain.size());
  std::size_t next_insert = 0;
  for (std::size_t position = 0; position < chain.size(); ++position) {
    out.push_back(chain[position]);
    while (next_insert < after.size() && after[next_insert].first == position) {
      out.insert(out.end(), after[next_insert].second.begin(), after[next_insert].second.end());
      ++next_insert;
    }
  }
  return out;
}

}  // namespace convo
