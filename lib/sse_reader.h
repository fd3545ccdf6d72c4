// Events of a recorded streaming response: Server-Sent Events (`event:` and
// `data:` lines, an empty line ending each event, `:` comments), one JSON value
// per line (streams recorded with the SSE framing stripped), or, when the input
// begins with `[`, the elements of a JSON array (Gemini's streamGenerateContent
// without `alt=sse`), each an event however it is spread over lines. Each event
// knows the line it starts on.
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

  // Where byte `offset` of `data` is: on a later line when an array element spread
  // over lines has line breaks before it (SSE data lines joined by "\n" are
  // counted from the event's first line, as before).
  Location at(std::size_t offset) const;
};

// Reads events from a byte stream. Lines end in LF or CRLF; a UTF-8 byte order
// mark at the start is dropped; lines may be of any length.
class StreamEventReader {
 public:
  StreamEventReader(std::unique_ptr<ByteSource> input, std::string display_name);

  // Reads the next event into `event`; false at the end of the input. `id:` and
  // `retry:` fields and comments are skipped. In a JSON array, an element cut off
  // by the end of the input is an event as far as it came.
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
  bool read_more();
  void decide_mode();
  bool next_element(StreamEvent& event);
  void consume(std::size_t n);

  enum class Mode : std::uint8_t { undecided, lines, array };
  Mode m_mode = Mode::undecided;
  bool m_in_array = false;     // array mode: between a `[` and its `]`
  std::size_t m_column = 1;    // array mode: the column of the next byte

  std::unique_ptr<ByteSource> m_input;
  std::shared_ptr<const std::string> m_file;
  std::string m_buffer;
  std::size_t m_begin = 0;
  bool m_eof = false;
  std::uint64_t m_line = 0;
};

}  // namespace convo
