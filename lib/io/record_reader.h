// JSON records from a byte stream: one per line (JSONL), or, when the input starts
// with a JSON value that spans lines (a pretty-printed request body, a
// `{"loglines": [...]}` file), one per top-level JSON value.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "error.h"
#include "io/input.h"
#include "io/mapped_file.h"
#include "message.h"

namespace convo {

// One record: its bytes, its parsed JSON, and where it starts. A record that is not
// valid JSON carries `error` instead of `source`, and `where.column` points at the
// problem.
struct Record {
  Bytes raw;                        // the bytes, without line terminator or BOM
  std::shared_ptr<Source> source;   // the parsed JSON; null when `error` is set
  Location where;                   // file and first line (and column of an error)
  std::string error;                // why the record is not JSON; empty when it is
  // Lone UTF-16 surrogate escapes read as U+FFFD (`raw` keeps them as they were).
  std::size_t lone_surrogates = 0;

  bool ok() const { return error.empty(); }
};

// The longest record read by default: 1 GiB. Far above any real record (the
// Messages API takes requests of at most 32 MB; a Claude Code line with a PDF is a
// few MB), far below what would exhaust a machine (a record takes about twice its
// size while read), and it bounds the memory an endless line (/dev/zero, a gzip
// bomb) takes before it fails. `--max-record-size` raises it.
inline constexpr std::uint64_t k_default_max_record_size = std::uint64_t{1} << 30;

// Splits input into records. Blank lines are skipped, a UTF-8 byte order mark at
// the start and a CR before each LF are dropped. Columns count bytes from 1.
//
// A line longer than `max_record_size` bytes, or a line past 1 MB that holds
// a NUL byte, is not read to its end: `next` throws convo::Error at its start
// whatever --on-error says (it cannot be skipped or kept without being read whole).
// A record that spans lines (document mode) is bounded the same way.
//
// With `map_files` (--mmap), a regular file larger than the buffer's first read is
// read, after its first record, through a sliding mapping (io/mapped_file.h)
// instead of read(2): each line is parsed where it is in the page cache and copied
// once, to be kept as read(2)'s lines are, without the system call and the
// kernel's copy of each read. The records are the same. A file that shrinks
// meanwhile is an error at the line reached (read(2) would have ended early, and
// silently).
//
// Which is faster depends on the machine: a page fault for every few pages of the
// mapping against a copy of every byte. On the machine of issue 16's last figures
// (AMD EPYC, 2 cores, a VM) read(2) is: converting the 200 MB Responses and Codex
// bench files takes 0.08-0.11 x parse-only less CPU than through the mapping
// (README, Speed); on the one before it the mapping halved system time. So
// read(2) is the default, and the mapping a flag, as ripgrep's --mmap is.
class RecordReader {
 public:
  RecordReader(std::unique_ptr<ByteSource> input, std::string display_name,
               std::uint64_t max_record_size = k_default_max_record_size,
               bool map_files = false);
  ~RecordReader();
  RecordReader(const RecordReader&) = delete;
  RecordReader& operator=(const RecordReader&) = delete;

  // Reads the next record into `record`; returns false at the end of the input.
  bool next(Record& record);

  // The name used in locations ("<stdin>" for standard input).
  const std::shared_ptr<const std::string>& file() const { return m_file; }

  // The number of the last line read.
  std::uint64_t line() const { return m_line; }

  // Lines this long or longer are long: read into memory once and kept as their
  // record's bytes, which the parse reads in place (`parse_json_shadowed`).
  static constexpr std::size_t k_long_line = std::size_t{1} << 20;
  // The size a line is long from: `k_long_line` unless set lower, as the fuzz
  // targets do to reach long lines with inputs of a few KB. One for the process:
  // set it while no reader reads.
  static std::size_t long_line_size();
  static void set_long_line_size(std::size_t bytes);

 private:
  bool next_line(std::string_view& line, std::uint64_t& number);
  void try_mapping();
  bool next_mapped(Record& record);
  bool next_mapped_line(std::uint64_t& start, std::size_t& length);
  void copy_mapped(std::uint64_t start, std::size_t length, char* to);
  void refuse_nul(std::uint64_t start, std::size_t from, std::size_t to);
  bool explain(Record& record, bool first, bool adopted);
  void fill();
  void read_all();
  bool next_in_document(Record& record);
  bool try_document_mode(Record& record, bool adopted);
  void adopt_line(std::string_view line, Bytes& raw);
  bool parse_shadowed(std::string_view text, Record& record, bool terminate);
  void grow(std::size_t capacity);
  [[noreturn]] void too_long(std::uint64_t line) const;
  [[noreturn]] void shrank() const;
  char* buffer() const { return m_block + Bytes::k_header; }

  std::unique_ptr<ByteSource> m_input;
  std::shared_ptr<const std::string> m_file;
  std::uint64_t m_max_record_size;
  // The read buffer: a block from malloc laid out as `Bytes` holds one (its header,
  // then `m_capacity` bytes), so that a long line can become its record's bytes.
  // Bytes read and not yet consumed live in [m_begin, m_end) of `buffer()`.
  char* m_block = nullptr;
  std::size_t m_capacity = 0;
  std::size_t m_begin = 0;
  std::size_t m_end = 0;
  bool m_eof = false;
  std::uint64_t m_line = 0;     // number of the last line handed out
  bool m_first = true;          // no record has been returned yet
  bool m_document = false;      // reading top-level JSON values rather than lines
  // Bytes read from m_input (the offset of m_end in it); with a mapping, the
  // file offset up to which the source was read or told of (ByteSource::mapped).
  std::uint64_t m_read = 0;
  // With `map_files`, a regular file is read through a mapping after its first
  // record (which the buffer reads, for document mode to look back at): each line
  // is parsed in the page cache and copied into its record (one at a window's end
  // into the buffer first, a long line into its record, each parsed there).
  bool m_map_files;
  bool m_map_tried = false;
  std::unique_ptr<MappedFile> m_map;
  std::uint64_t m_offset = 0;   // with a mapping: the file offset of the next line
};

}  // namespace convo
