#include "string_table.h"

#include <algorithm>
#include <cstring>
#include <functional>

namespace convo {

std::uint32_t StringTable::intern(std::string_view text) {
  if (text.empty()) {
    return k_none;
  }
  const auto hash = static_cast<std::uint32_t>(std::hash<std::string_view>{}(text));
  if ((m_entries.size() + 1) * 2 > m_slots.size()) {
    // At most half full: double, and place every id again.
    std::vector<std::uint32_t> slots(std::max<std::size_t>(m_slots.size() * 2, 1024), 0);
    const std::size_t mask = slots.size() - 1;
    for (std::uint32_t id = 0; id < m_entries.size(); ++id) {
      std::size_t slot = m_entries[id].hash & mask;
      while (slots[slot] != 0) {
        slot = (slot + 1) & mask;
      }
      slots[slot] = id + 1;
    }
    m_slots = std::move(slots);
  }
  const std::size_t mask = m_slots.size() - 1;
  std::size_t slot = hash & mask;
  for (; m_slots[slot] != 0; slot = (slot + 1) & mask) {
    const Entry& entry = m_entries[m_slots[slot] - 1];
    if (entry.hash == hash && std::string_view(entry.data, entry.size) == text) {
      return m_slots[slot] - 1;
    }
  }
  // The bytes go into the current chunk, or a new one (of their own when larger).
  if (k_chunk - m_chunk_used < text.size()) {
    m_chunks.push_back(std::make_unique_for_overwrite<char[]>(std::max(k_chunk, text.size())));
    m_chunk_used = 0;
  }
  char* data = m_chunks.back().get() + m_chunk_used;
  std::memcpy(data, text.data(), text.size());
  m_chunk_used = text.size() > k_chunk ? k_chunk : m_chunk_used + text.size();
  const auto id = static_cast<std::uint32_t>(m_entries.size());
  m_entries.push_back(Entry{data, static_cast<std::uint32_t>(text.size()), hash});
  m_slots[slot] = id + 1;
  return id;
}

void StringTable::clear() {
  std::vector<std::unique_ptr<char[]>>().swap(m_chunks);
  std::vector<Entry>().swap(m_entries);
  std::vector<std::uint32_t>().swap(m_slots);
  m_chunk_used = k_chunk;
}

}  // namespace convo
