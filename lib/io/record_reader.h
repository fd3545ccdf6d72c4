// JSON records from a byte stream: one per line (JSONL), or, when the input starts
// with a JSON value that spans lines (a pretty-printed request body, a
// `{"loglines": [...]}` file), one per top-level JSON value.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "error.h"
#include "io/input.h"
#include "message.h"

namespace convo {

// One record: its bytes, its parsed JSON, and where it starts. A record that is not
// valid JSON carries `error` instead of `source`, and `where.column` points at the
// problem.
struct Record {
  std::string raw;                  // the bytes, without line terminator or BOM
  std::shared_ptr<Source> source;   // the parsed JSON; null when `error` is set
  Location where;                   // file and first line (and column of an error)
  std::string error;                // why the record is not JSON; empty when it is

  bool ok() const { return error.empty(); }
};

// Splits input into records. Blank lines are skipped, a UTF-8 byte order mark at
// the start and a CR before each LF are dropped, and lines may be of any length.
// Columns count bytes from 1.
class RecordReader {
 public:
  RecordReader(std::unique_ptr<ByteSource> input, std::string display_name);
  ~RecordReader();
  RecordReader(const RecordReader&) = delete;
  RecordReader& operator=(const RecordReader&) = delete;

  // Reads the next record into `record`; returns false at the end of the input.
  bool next(Record& record);

  // The name used in locations ("<stdin>" for standard input).
  const std::shared_ptr<const std::string>& file() const { return m_file; }

  // The number of the last line read.
  std::uint64_t line() const { return m_line; }

 private:
  bool next_line(std::string_view& line, std::uint64_t& number);
  void fill();
  void read_all();
  bool next_in_document(Record& record);
  bool try_document_mode(Record& record);

  std::unique_ptr<ByteSource> m_input;
  std::shared_ptr<const std::string> m_file;
  std::string m_buffer;         // bytes read and not yet consumed live in [m_begin, m_end)
  std::size_t m_begin = 0;
  std::size_t m_end = 0;
  bool m_eof = false;
  std::uint64_t m_line = 0;     // number of the last line handed out
  bool m_first = true;          // no record has been returned yet
  bool m_document = false;      // reading top-level JSON values rather than lines
};

}  // namespace convo
