#include "held_records.h"

#include <algorithm>
#include <cstring>
#include <functional>


#include "conversation.h"

namespace convo {

// --- HeldRecords ---

namespace {

// A record slim_for_api left with nothing the API view reads but what the session
// tree does (no bytes, content or parsed record).
bool unread_by_view(const Message& record) {
  switch (record.kind) {
    case Kind::progress:
    case Kind::summary:
    case Kind::bookkeeping:
    case Kind::remove:
      break;
    case Kind::event:
      if (record.meta->subtype == "local_command") {
        return false;
      }
      break;
    case Kind::unknown:
      if (record.record_type == "tombstone") {
        return false;
      }
      break;
    default:
      return false;
  }
  return record.raw.empty() && record.source == nullptr && record.json == nullptr &&
         record.content.is_string() && record.content.text.empty();
}

// The records of a `HeldRecords` that `kept` names, in its order.
class KeptRecords final : public TreeRecords {
 public:
  KeptRecords(const TreeRecords& all, const std::vector<std::size_t>& kept)
      : m_all(all), m_kept(kept) {}
  std::size_t size() const override { return m_kept.size(); }
  TreeNode node(std::size_t index) const override { return m_all.node(m_kept[index]); }
  std::string_view uuid(std::size_t index) const override { return m_all.uuid(m_kept[index]); }

 private:
  const TreeRecords& m_all;
  const std::vector<std::size_t>& m_kept;
};

}  // namespace

bool HeldRecords::compact(const Message& record) const {
  if (record.modified || record.container != nullptr || record.where.column != 0 ||
      record.where.file != m_file) {
    return false;
  }
  return (held_as_bytes(record) && record.raw.size() < UINT32_MAX) ||
         (m_api_view && unread_by_view(record));
}

bool HeldRecords::may_hold_as_bytes(const Message& record) const {
  return !record.modified && record.container == nullptr && record.where.column == 0 &&
         (m_records.empty() || record.where.file == m_file) && !record.raw.empty() &&
         record.raw.size() < UINT32_MAX;
}

void HeldRecords::hold(Message&& record) {
  static_assert(sizeof(Held) == 48, "a held record is 48 bytes (held_records.h)");
  if (m_records.empty()) {
    m_file = record.where.file;
  }
  Held& held = m_records.emplace_back();
  if (!compact(record)) {
    held.flags = k_full;
    held.line = m_full.size();
    if (record.record_type == "tombstone") {
      m_tombstones = true;
    }
    if (!m_api_view) {
      // For `uuid_id` and `parent_id` (the session tree reads the Message's own).
      held.uuid = m_strings.intern(record.meta->uuid);
      held.parent = m_strings.intern(record.meta->parent_uuid);
    }
    m_full.push_back(std::move(record));
    return;
  }
  const RecordMeta& e = *record.meta;
  held.line = record.where.line;
  held.uuid = m_strings.intern(e.uuid);
  if (held.uuid != StringTable::k_none) {
    if (held.uuid >= m_uuid_records.size()) {
      m_uuid_records.resize(m_strings.size(), 0);
    }
    m_uuid_records[held.uuid] = static_cast<std::uint8_t>(std::min(m_uuid_records[held.uuid] + 1, 2));
  }
  held.parent = m_strings.intern(e.parent_uuid);
  held.message_id = m_strings.intern(e.message_id);
  held.record_type = m_strings.intern(record.record_type);
  held.subtype = m_strings.intern(e.subtype);
  if (m_api_view) {
    held.timestamp = m_strings.intern(record.timestamp);
  }
  held.kind = record.kind;
  held.role = record.role;
  held.origin = record.origin;
  if (e.is_sidechain) {
    held.flags |= k_sidechain;
  }
  if (record.has_tool_results()) {
    held.flags |= k_tool_result;
  }
  if (held_as_bytes(record)) {
    held.flags |= k_as_bytes;
    held.bytes = store(record.raw);
    held.size = static_cast<std::uint32_t>(record.raw.size());
  }
}

const char* HeldRecords::store(std::string_view bytes) {
  if (bytes.size() > m_bytes_left) {
    std::size_t size = std::max(k_bytes_chunk, bytes.size());
    m_bytes.push_back(BytesChunk{std::make_unique_for_overwrite<char[]>(size), size});
    m_bytes_next = m_bytes.back().data.get();
    m_bytes_left = size;
  }
  char* at = m_bytes_next;
  std::memcpy(at, bytes.data(), bytes.size());
  m_bytes_next += bytes.size();
  m_bytes_left -= bytes.size();
  return at;
}

std::string_view HeldRecords::uuid(std::size_t index) const {
  const Held& held = m_records[index];
  return (held.flags & k_full) != 0 ? std::string_view(m_full[held.line].meta->uuid)
                                    : m_strings.text(held.uuid);
}

TreeNode HeldRecords::node(std::size_t index) const {
  const Held& held = m_records[index];
  if ((held.flags & k_full) != 0) {
    return tree_node(m_full[held.line]);
  }
  TreeNode node;
  node.uuid = m_strings.text(held.uuid);
  node.parent_uuid = m_strings.text(held.parent);
  node.timestamp = m_strings.text(held.timestamp);
  node.is_turn = held.kind == Kind::turn;
  node.is_assistant_turn = node.is_turn && held.role == Role::assistant;
  if (node.is_assistant_turn) {
    node.message_id = m_strings.text(held.message_id);
  }
  node.is_sidechain = (held.flags & k_sidechain) != 0;
  std::string_view type = m_strings.text(held.record_type);
  node.is_message_record = type == "user" || type == "assistant";
  node.is_compact_boundary =
      held.kind == Kind::event && m_strings.text(held.subtype) == "compact_boundary";
  node.carries_tool_result =
      node.is_turn && held.role == Role::user && (held.flags & k_tool_result) != 0;
  return node;
}

Message HeldRecords::make_message(const Held& held) const {
  Message message;
  message.kind = held.kind;
  message.role = held.role;
  message.origin = held.origin;
  message.where = Location{m_file, held.line, 0};
  if (held.record_type != StringTable::k_none) {
    message.record_type = std::string(m_strings.text(held.record_type));
  }
  if (held.timestamp != StringTable::k_none) {
    message.timestamp = std::string(m_strings.text(held.timestamp));
  }
  if (held.uuid != StringTable::k_none || held.parent != StringTable::k_none ||
      held.message_id != StringTable::k_none || held.subtype != StringTable::k_none ||
      (held.flags & k_sidechain) != 0) {
    RecordMeta& meta = message.meta.edit();
    meta.uuid = m_strings.text(held.uuid);
    meta.parent_uuid = m_strings.text(held.parent);
    meta.message_id = m_strings.text(held.message_id);
    meta.subtype = m_strings.text(held.subtype);
    meta.is_sidechain = (held.flags & k_sidechain) != 0;
  }
  if ((held.flags & k_tool_result) != 0) {
    message.content.form = Content::Form::blocks;
    message.content.blocks.emplace_back().type = BlockType::tool_result;
  }
  if ((held.flags & k_as_bytes) != 0) {
    message.raw = std::string_view(held.bytes, held.size);
    mark_held_as_bytes(message);
  }
  return message;
}

std::string_view HeldRecords::bytes(std::size_t index) const {
  const Held& held = m_records[index];
  if ((held.flags & k_full) != 0) {
    return m_full[held.line].raw.view();
  }
  return std::string_view(held.bytes, held.size);
}

const Message* HeldRecords::full(std::size_t index) const {
  const Held& held = m_records[index];
  return (held.flags & k_full) != 0 ? &m_full[held.line] : nullptr;
}

Message HeldRecords::take(std::size_t index) {
  const Held& held = m_records[index];
  return (held.flags & k_full) != 0 ? std::move(m_full[held.line]) : make_message(held);
}

std::vector<std::vector<std::size_t>> HeldRecords::threads(const TreeRecords& records) {
  SessionTree tree(records);
  std::vector<std::vector<std::size_t>> threads;
  threads.push_back(tree.main_thread());
  for (std::vector<std::size_t>& thread : tree.sidechain_threads()) {
    threads.push_back(std::move(thread));
  }
  return threads;
}

std::vector<Message> HeldRecords::take_used(std::vector<RecordLink>* links) {
  const std::size_t n = m_records.size();
  std::vector<bool> keep(n, true);
  if (n > 0 && !m_tombstones) {
    // A tombstone takes a record out of the view but leaves its place in the tree:
    // with one, every record is kept, as the view reads them.
    std::vector<std::vector<std::size_t>> all = threads(*this);
    keep.assign(n, false);
    keep[0] = true;  // the input's first record names it
    for (const std::vector<std::size_t>& thread : all) {
      for (std::size_t i : thread) {
        keep[i] = true;
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      const Held& held = m_records[i];
      if ((held.flags & k_full) != 0 ||
          (held.uuid != StringTable::k_none && m_uuid_records[held.uuid] > 1)) {
        keep[i] = true;  // a uuid held twice: the last one is the tree's
      }
    }
    // The threads over the records kept must be the threads over all of them (the
    // stage builds its tree again over what it is given); where they would not be,
    // every record is kept.
    std::vector<std::size_t> kept;
    for (std::size_t i = 0; i < n; ++i) {
      if (keep[i]) {
        kept.push_back(i);
      }
    }
    if (kept.size() < n) {
      std::vector<std::vector<std::size_t>> over_kept = threads(KeptRecords(*this, kept));
      for (std::vector<std::size_t>& thread : over_kept) {
        for (std::size_t& i : thread) {
          i = kept[i];
        }
      }
      if (over_kept != all) {
        keep.assign(n, true);
      }
    }
  }
  std::vector<Message> out;
  out.reserve(static_cast<std::size_t>(std::count(keep.begin(), keep.end(), true)));
  if (links != nullptr) {
    std::size_t dropped = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const Held& held = m_records[i];
      dropped += !keep[i] && (held.uuid != StringTable::k_none || held.parent != StringTable::k_none);
    }
    links->reserve(links->size() + dropped);
  }
  // The chunks of bytes are given back as the records in them are passed: the
  // bytes are most of what is held, and the links and messages grow meanwhile.
  std::size_t chunk = 0;
  for (std::size_t i = 0; i < n; ++i) {
    Held& held = m_records[i];
    if ((held.flags & k_as_bytes) != 0) {
      while (std::less<const char*>{}(held.bytes, m_bytes[chunk].data.get()) ||
             !std::less<const char*>{}(held.bytes, m_bytes[chunk].data.get() + m_bytes[chunk].size)) {
        m_bytes[chunk++].data.reset();
      }
    }
    if (keep[i]) {
      out.push_back((held.flags & k_full) != 0 ? std::move(m_full[held.line]) : make_message(held));
      continue;
    }
    if (links != nullptr &&
        (held.uuid != StringTable::k_none || held.parent != StringTable::k_none)) {
      links->push_back(RecordLink{m_strings.text(held.uuid), m_strings.text(held.parent),
                                  Location{m_file, held.line, 0}});
    }
  }
  release_records();
  return out;
}

void HeldRecords::clear() {
  release_records();
  m_strings.clear();
  m_file.reset();
}

void HeldRecords::release_records() {
  std::vector<BytesChunk>().swap(m_bytes);
  m_bytes_next = nullptr;
  m_bytes_left = 0;
  std::vector<Held>().swap(m_records);
  std::vector<Message>().swap(m_full);
  std::vector<std::uint8_t>().swap(m_uuid_records);
  m_tombstones = false;
}

}  // namespace convo
