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
#include "string_table.h"

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

// One conversation's records, in file order, held as compactly as each allows:
// a turn held as its bytes (`held_as_bytes`) or a record the API view never reads
// (progress, bookkeeping, summaries, events other than local commands) as what the
// session tree reads; any other record (attachments, bad lines, tombstones) as its
// `Message`. Records must come from one input.
class HeldRecords final : public TreeRecords {
 public:
  // `api_view` false: only turns held as their bytes are held compactly, and
  // without the timestamps the session tree reads (trim --group-by file, which
  // builds no tree and writes what it keeps as its bytes).
  explicit HeldRecords(bool api_view = true) : m_api_view(api_view) {}

  void hold(Message&& record);
  bool empty() const { return m_records.empty(); }
  // Whether `record`, marked `held_as_bytes`, would be held as its bytes: unchanged,
  // read from the input's own line (not a container's), with its bytes.
  bool may_hold_as_bytes(const Message& record) const;

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

  // One record at a time (trim): its uuid and parentUuid as ids in `strings()`
  // (k_none when empty), its bytes, and the record as a `Message`: one held as its
  // `Message` is moved out (once), one held as its bytes is made from them and what
  // is held beside them, marked `held_as_bytes` (`decode_again` gives it whole).
  std::uint32_t uuid_id(std::size_t index) const { return m_records[index].uuid; }
  std::uint32_t parent_id(std::size_t index) const { return m_records[index].parent; }
  const StringTable& strings() const { return m_strings; }
  std::string_view bytes(std::size_t index) const;
  // The record held as its `Message`, or nullptr for one held compactly.
  const Message* full(std::size_t index) const;
  Message take(std::size_t index);
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
  Message make_message(const Held& held) const;
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
  bool m_api_view = true;
};

}  // namespace convo
