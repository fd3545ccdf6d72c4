#include "session_tree.h"

#include <algorithm>
#include <numeric>

#include "tool_links.h"

namespace convo {

namespace {

bool is_compact_boundary(const Message& record) {
  return record.kind == Kind::event && record.envelope.subtype == "compact_boundary";
}

bool carries_tool_result(const Message& record) {
  return record.is_turn() && record.role == Role::user && record.has_tool_results();
}

}  // namespace

SessionTree::SessionTree(const std::vector<Message>& records) : m_records(records) {
  for (std::size_t i = 0; i < records.size(); ++i) {
    const Envelope& e = records[i].envelope;
    if (e.uuid.empty()) {
      continue;
    }
    auto [it, added] = m_index.emplace(e.uuid, i);
    if (!added) {
      m_duplicates.emplace_back(i, it->second);
      it->second = i;  // as Claude Code's map of records: the last one wins
    }
    if (!e.parent_uuid.empty()) {
      m_children[e.parent_uuid].push_back(i);
    }
    if (!e.is_sidechain) {
      m_all_sidechain = false;
    }
  }
}

std::optional<std::size_t> SessionTree::find(std::string_view uuid) const {
  auto it = m_index.find(uuid);
  if (it == m_index.end()) {
    return std::nullopt;
  }
  return it->second;
}

std::vector<std::size_t> SessionTree::main_thread() const {
  if (!has_tree()) {
    std::vector<std::size_t> all(m_records.size());
    std::iota(all.begin(), all.end(), std::size_t{0});
    return all;
  }
  for (std::size_t i = m_records.size(); i-- > 0;) {
    const Envelope& e = m_records[i].envelope;
    if (!e.uuid.empty() && e.is_sidechain == m_all_sidechain) {
      return thread_from(i);
    }
  }
  return {};
}

std::vector<std::vector<std::size_t>> SessionTree::sidechain_threads() const {
  if (!has_tree() || m_all_sidechain) {
    return {};
  }
  // Each subagent's records hang below a root of their own (the prompt the parent
  // passed to its Task tool, whose parentUuid is null).
  std::unordered_map<std::size_t, std::size_t> root_of;  // record -> its root record
  std::vector<std::size_t> roots;                       // in order of appearance
  std::unordered_map<std::size_t, std::size_t> last_of;  // root -> last record under it
  for (std::size_t i = 0; i < m_records.size(); ++i) {
    const Envelope& e = m_records[i].envelope;
    if (e.uuid.empty() || !e.is_sidechain) {
      continue;
    }
    std::size_t root = i;
    if (auto parent = find(e.parent_uuid); parent && root_of.count(*parent) != 0) {
      root = root_of[*parent];
    } else {
      roots.push_back(i);
    }
    root_of[i] = root;
    last_of[root] = i;
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
  while (!taken[current]) {  // a parent loop ends the walk where it closes
    taken[current] = true;
    chain.push_back(current);
    const Message& record = m_records[current];
    // A compact boundary starts the conversation the model sees; the summary that
    // follows it stands in for everything before.
    if (is_compact_boundary(record)) {
      break;
    }
    auto parent = find(record.envelope.parent_uuid);
    if (!parent) {
      break;
    }
    current = *parent;
  }
  std::reverse(chain.begin(), chain.end());

  // A response split over several records, with parallel tool calls, is a fork:
  // each piece and each result hangs below the record written before it, and a
  // single-parent walk from the leaf passes through only one branch. Gather what it
  // missed around each response and put it after the response's last piece on the
  // chain, in file order.
  std::unordered_map<std::string_view, std::size_t> last_piece;  // message id -> chain position
  for (std::size_t position = 0; position < chain.size(); ++position) {
    const Message& record = m_records[chain[position]];
    if (record.is_turn() && record.role == Role::assistant && !record.envelope.message_id.empty()) {
      last_piece[record.envelope.message_id] = position;
    }
  }
  if (last_piece.empty()) {
    return chain;
  }
  std::unordered_map<std::string_view, std::vector<std::size_t>> pieces;
  for (std::vector<std::size_t>& group : response_groups(m_records)) {
    const std::string& id = m_records[group.front()].envelope.message_id;
    if (!id.empty() && last_piece.count(id) != 0) {
      pieces.emplace(id, std::move(group));
    }
  }
  std::vector<std::pair<std::size_t, std::string_view>> responses;  // (position, id)
  for (const auto& [id, position] : last_piece) {
    responses.emplace_back(position, id);
  }
  std::sort(responses.begin(), responses.end());

  std::unordered_map<std::size_t, std::vector<std::size_t>> after;  // position -> records
  for (const auto& [position, id] : responses) {
    std::vector<std::size_t> skipped;
    std::vector<std::size_t> pending;
    for (std::size_t piece : pieces[id]) {
      if (!taken[piece]) {
        taken[piece] = true;
        skipped.push_back(piece);
      }
      auto children = m_children.find(m_records[piece].envelope.uuid);
      if (children == m_children.end()) {
        continue;
      }
      for (std::size_t child : children->second) {
        if (carries_tool_result(m_records[child])) {
          pending.push_back(child);
        }
      }
    }
    std::vector<std::size_t> followers;
    while (!pending.empty()) {
      std::size_t next = pending.back();
      pending.pop_back();
      if (taken[next]) {
        continue;
      }
      taken[next] = true;
      followers.push_back(next);
      auto children = m_children.find(m_records[next].envelope.uuid);
      if (children != m_children.end()) {
        pending.insert(pending.end(), children->second.begin(), children->second.end());
      }
    }
    std::sort(skipped.begin(), skipped.end());
    std::sort(followers.begin(), followers.end());
    skipped.insert(skipped.end(), followers.begin(), followers.end());
    if (!skipped.empty()) {
      after[position] = std::move(skipped);
    }
  }
  if (after.empty()) {
    return chain;
  }
  std::vector<std::size_t> out;
  out.reserve(chain.size());
  for (std::size_t position = 0; position < chain.size(); ++position) {
    out.push_back(chain[position]);
    if (auto it = after.find(position); it != after.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
    }
  }
  return out;
}

}  // namespace convo
