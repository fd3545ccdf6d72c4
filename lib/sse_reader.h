// Events of a recorded streaming response: Server-Sent Events (`event:` and
// `data:` lines, an empty line ending each event, `:` comments), or one JSON value
// per line (streams recorded with the SSE framing stripped). Each event knows the
// line it starts on.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "error.h"
#include "io/input.h"

namespace convo {

// One event: its SSE name (empty when it has none, and for JSON lines) and data.
struct StreamEvent {
  std::string name;
  std::string data;  // the `data:` lines joined by "\n", or the JSON line
  Location where;    // the first line of the event's data
  std::size_t data_column = 1;  // where the data starts on that line, from 1
  bool sse = false;  // framed as SSE (false: a bare JSON line)
};

// Reads events from a byte stream. Lines end in LF or CRLF; a UTF-8 byte order
// mark at the start is dropped; lines may be of any length.
class StreamEventReader {
 public:
  StreamEventReader(std::unique_ptr<ByteSource> input, std::string display_name);

  // Reads the next event into `event`; false at the end of the input. `id:` and
  // `retry:` fields and comments are skipped.
  bool next(StreamEvent& event);

  // The name used in locations ("<stdin>" for standard input).
  const std::shared_ptr<const std::string>& file() const { return m_file; }
  // Where the input ended: its last line.
  Location end() const { return Location{m_file, m_line, 0}; }
  // True when the next event (a JSON line, or an SSE event with data and its empty
  // line) has arrived whole already, so that `next` will not wait for the input: a
  // live translator flushes only when the input has nothing more for it yet.
  bool has_buffered_event() const;

 private:
  bool next_line(std::string& line);

  std::unique_ptr<ByteSource> m_input;
  std::shared_ptr<const std::string> m_file;
  std::string m_buffer;
  std::size_t m_begin = 0;
  bool m_eof = false;
  std::uint64_t m_line = 0;
};

}  // namespace convo
