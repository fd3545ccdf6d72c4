// A conversation held compactly, for the whole-conversation stages that use few of
// a file's records in the end: normalize-for-api and check with --group-by file hold
// a Claude Code log whole, but write or check only its threads. A record is its
// bytes (a turn held as bytes, conversation.h) or nothing (a record the view never
// reads), plus what the session tree reads: 48 bytes and its strings, each held
// once, where a `Message` is 200 bytes and its `RecordMeta` 456 more.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "error.h"
#include "message.h"
#include "session_tree.h"

namespace convo {

// A record a held conversation dropped, as check's file integrity rules read it:
// its uuid, parentUuid (views into the `HeldRecords` that dropped it) and place.
struct RecordLink {
  std::string_view uuid;
  std::string_view parent;
  Location where;
};

// A sink that is told the links of the records a held conversation dropped, before
// the conversation itself (check's report, found through `MessageSink::target`).
class HeldLinksSink {
 public:
  virtual ~HeldLinksSink() = default;
  virtual void put_held_links(std::vector<RecordLink>&& links) = 0;
};

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

// One conversation's records, in file order, held as compactly as each allows:
// a turn held as its bytes (`held_as_bytes`) or a record the API view never reads
// (progress, bookkeeping, summaries, events other than local commands) as what the
// session tree reads; any other record (attachments, bad lines, tombstones) as its
// `Message`. Records must come from one input.
class HeldRecords final : public TreeRecords {
 public:
  void hold(Message&& record);
  bool empty() const { return m_records.empty(); }

  std::size_t size() const override { return m_records.size(); }
  TreeNode node(std::size_t index) const override;
  std::string_view uuid(std::size_t index) const override;

  // The records the session tree's threads use (the main thread's and each
  // subagent's), as `Message`s in file order, with those whose uuid is held twice,
  // the first record, and every record held as its `Message`; a turn held as bytes
  // stays marked so. With the records that are left out, the threads over what is
  // returned are those over every record: where they would not be (a tombstone
  // taking a record back), every record is returned. With `links`, the links of
  // the records left out are appended to it, as views valid until `clear`. The
  // bytes of a record left out are given back as it is.
  std::vector<Message> take_used(std::vector<RecordLink>* links);
  // Empties it, giving back its memory.
  void clear();

 private:
  // Frees the records, their bytes and the full ones; the strings stay (links view them).
  void release_records();

  enum Flag : std::uint8_t {
    k_full = 1,  // held as its Message: `line` is its index in m_full
    k_sidechain = 2,
    k_tool_result = 4,
    k_as_bytes = 8,  // a turn held as its bytes
  };
  struct Held {
    const char* bytes = nullptr;  // in m_bytes (a turn held as its bytes)
    std::uint64_t line = 0;
    std::uint32_t uuid = StringTable::k_none;
    std::uint32_t parent = StringTable::k_none;
    std::uint32_t message_id = StringTable::k_none;
    std::uint32_t record_type = StringTable::k_none;
    std::uint32_t subtype = StringTable::k_none;
    std::uint32_t timestamp = StringTable::k_none;
    Kind kind = Kind::turn;
    Role role = Role::user;
    Format origin{};
    std::uint8_t flags = 0;
    std::uint32_t size = 0;  // of `bytes`
  };

  // Whether `record` can be held compactly (see the class comment).
  bool compact(const Message& record) const;
  Message make_message(Held& held);
  // The threads of the tree over `records`, as indexes into this.
  static std::vector<std::vector<std::size_t>> threads(const TreeRecords& records);

  // Where the bytes of the turns held as bytes are copied, one after another: each
  // record's own block (malloc's header, a 4-byte size, a NUL, and the rounding) cost
  // about 20 bytes, and blocks cut from read buffers of every size between the
  // parser's freed memory left the heap about 6% larger than the bytes. Chunks of
  // 64 MB, past malloc's mmap threshold, go back to the system when freed.
  static constexpr std::size_t k_bytes_chunk = std::size_t{64} << 20;
  struct BytesChunk {
    std::unique_ptr<char[]> data;
    std::size_t size = 0;
  };
  std::vector<BytesChunk> m_bytes;
  char* m_bytes_next = nullptr;  // in the last chunk
  std::size_t m_bytes_left = 0;
  const char* store(std::string_view bytes);

  std::vector<Held> m_records;
  std::vector<Message> m_full;
  StringTable m_strings;
  std::vector<std::uint8_t> m_uuid_records;  // records with each string as uuid (to 2)
  std::shared_ptr<const std::string> m_file;
  bool m_tombstones = false;
};

}  // namespace convo
