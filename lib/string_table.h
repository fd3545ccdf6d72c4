// Strings held once each, for what holds many records compactly (held_records.h,
// the atomic units built one record at a time in tool_links.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace convo {

// Strings held once each, numbered from 0 in the order first seen; the empty string
// is `k_none`. Views of them stay valid until the table is cleared.
class StringTable {
 public:
  static constexpr std::uint32_t k_none = UINT32_MAX;

  std::uint32_t intern(std::string_view text);
  std::string_view text(std::uint32_t id) const {
    return id == k_none ? std::string_view() : std::string_view(m_entries[id].data, m_entries[id].size);
  }
  std::size_t size() const { return m_entries.size(); }
  void clear();

 private:
  struct Entry {
    const char* data;
    std::uint32_t size;
    std::uint32_t hash;
  };
  static constexpr std::size_t k_chunk = std::size_t{1} << 20;
  std::vector<std::unique_ptr<char[]>> m_chunks;  // the bytes; chunks never move
  std::size_t m_chunk_used = k_chunk;
  std::vector<Entry> m_entries;
  std::vector<std::uint32_t> m_slots;  // open addressing: id + 1, 0 for free
};

}  // namespace convo
