#include "sse_reader.h"

#include <algorithm>
#include <cstring>

namespace convo {

namespace {

constexpr std::size_t k_chunk = std::size_t{1} << 16;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f'; }

}  // namespace

Location StreamEvent::at(std::size_t offset) const {
  Location location = where;
  std::size_t newline = sse ? std::string::npos : data.rfind('\n', offset == 0 ? 0 : offset - 1);
  if (newline == std::string::npos || offset == 0) {
    location.column = data_column + offset;
    return location;
  }
  location.line += static_cast<std::uint64_t>(
      std::count(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(newline) + 1, '\n'));
  location.column = offset - newline;
  return location;
}

StreamEventReader::StreamEventReader(std::unique_ptr<ByteSource> input, std::string display_name)
    : m_input(std::move(input)),
      m_file(std::make_shared<const std::string>(std::move(display_name))) {}

bool StreamEventReader::has_buffered_event() const {
  if (m_mode == Mode::array) {
    return false;  // an element's end is known only once it is read
  }
  // Line by line up to the event's end, so that the look costs what the event does.
  bool data = false;
  for (std::size_t at = m_begin;;) {
    std::size_t newline = m_buffer.find('\n', at);
    if (newline == std::string::npos) {
      return false;
    }
    std::string_view line(m_buffer.data() + at, newline - at);
    if (!line.empty() && line.back() == '\r') {
      line = line.substr(0, line.size() - 1);
    }
    std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos) {
      if (data) {
        return true;  // the empty line that ends an event with data
      }
    } else if (at == m_begin && (line[first] == '{' || line[first] == '[')) {
      return true;  // a JSON line, whole
    } else if (line.substr(0, 5) == "data:") {
      data = true;
    }
    at = newline + 1;
  }
}

bool StreamEventReader::next_line(std::string& line) {
  for (;;) {
    std::size_t newline = m_buffer.find('\n', m_begin);
    if (newline != std::string::npos) {
      line.assign(m_buffer, m_begin, newline - m_begin);
      m_begin = newline + 1;
      break;
    }
    if (m_eof) {
      if (m_begin >= m_buffer.size()) {
        return false;
      }
      line.assign(m_buffer, m_begin, std::string::npos);
      m_begin = m_buffer.size();
      break;
    }
    m_buffer.erase(0, m_begin);
    m_begin = 0;
    std::size_t size = m_buffer.size();
    m_buffer.resize(size + k_chunk);
    std::size_t n = m_input->read(m_buffer.data() + size, k_chunk);
    m_buffer.resize(size + n);
    m_eof = n == 0;
  }
  if (!line.empty() && line.back() == '\r') {
    line.pop_back();
  }
  if (++m_line == 1 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) {
    line.erase(0, 3);
  }
  return true;
}

bool StreamEventReader::read_more() {
  if (m_eof) {
    return false;
  }
  m_buffer.erase(0, m_begin);
  m_begin = 0;
  std::size_t size = m_buffer.size();
  m_buffer.resize(size + k_chunk);
  std::size_t n = m_input->read(m_buffer.data() + size, k_chunk);
  m_buffer.resize(size + n);
  m_eof = n == 0;
  return n > 0;
}

// A JSON array is told by its first byte that is not blank (after a byte order
// mark); reading that far waits for no more than the first event would.
void StreamEventReader::decide_mode() {
  for (std::size_t at = m_begin;;) {
    if (at == m_begin && m_buffer.compare(m_begin, 3, "\xEF\xBB\xBF") == 0) {
      at += 3;
    }
    while (at < m_buffer.size() && (is_space(m_buffer[at]) || m_buffer[at] == '\n')) {
      ++at;
    }
    if (at < m_buffer.size()) {
      m_mode = m_buffer[at] == '[' ? Mode::array : Mode::lines;
      if (m_mode == Mode::array) {
        m_line = 1;
        if (m_buffer.compare(m_begin, 3, "\xEF\xBB\xBF") == 0) {
          m_begin += 3;
        }
      }
      return;
    }
    std::size_t offset = at - m_begin;
    if (!read_more()) {
      m_mode = Mode::lines;
      return;
    }
    at = m_begin + offset;
  }
}

void StreamEventReader::consume(std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if (m_buffer[m_begin + i] == '\n') {
      ++m_line;
      m_column = 1;
    } else {
      ++m_column;
    }
  }
  m_begin += n;
}

bool StreamEventReader::next_element(StreamEvent& event) {
  for (;;) {
    if (m_begin >= m_buffer.size() && !read_more()) {
      return false;
    }
    char c = m_buffer[m_begin];
    if (is_space(c) || c == '\n' || c == ',' || (c == '[' && !m_in_array) || (c == ']' && m_in_array)) {
      m_in_array = c == '[' ? true : c == ']' ? false : m_in_array;
      consume(1);
      continue;
    }
    break;
  }
  event.where = Location{m_file, m_line, 0};
  event.data_column = m_column;
  int depth = 0;
  bool in_string = false;
  bool escape = false;
  std::size_t i = 0;
  for (;; ++i) {
    if (m_begin + i >= m_buffer.size() && !read_more()) {
      break;  // cut off: the element as far as it came
    }
    char c = m_buffer[m_begin + i];
    if (in_string) {
      if (escape) {
        escape = false;
      } else if (c == '\\') {
        escape = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (depth == 0) {
        break;
      }
      if (--depth == 0) {
        ++i;
        break;
      }
    } else if (depth == 0 && (c == ',' || is_space(c) || c == '\n')) {
      break;
    }
  }
  if (i == 0) {
    i = 1;  // a stray `]`: an event of its own, which is not JSON
  }
  event.data.assign(m_buffer, m_begin, i);
  consume(i);
  return true;
}

bool StreamEventReader::next(StreamEvent& event) {
  event = StreamEvent{};
  if (m_mode == Mode::undecided) {
    decide_mode();
  }
  if (m_mode == Mode::array) {
    return next_element(event);
  }
  bool has_data = false;
  bool started = false;
  std::string line;
  while (next_line(line)) {
    auto first = std::find_if_not(line.begin(), line.end(), is_space);
    if (first == line.end()) {
      if (has_data) {
        return true;  // an empty line ends the event
      }
      event = StreamEvent{};
      started = false;
      continue;
    }
    if (!started && (*first == '{' || *first == '[')) {
      // A stream recorded without its SSE framing: a JSON value per line.
      event.data.assign(first, line.end());
      event.where = Location{m_file, m_line, 0};
      event.data_column = static_cast<std::size_t>(first - line.begin()) + 1;
      return true;
    }
    if (line[0] == ':') {
      continue;  // a comment (": OPENROUTER PROCESSING", keep-alives)
    }
    std::size_t colon = line.find(':');
    std::string field = line.substr(0, colon);
    std::string value;
    std::size_t value_at = line.size();
    if (colon != std::string::npos) {
      value_at = colon + 1;
      if (value_at < line.size() && line[value_at] == ' ') {
        ++value_at;
      }
      value = line.substr(value_at);
    }
    if (!started) {
      event.where = Location{m_file, m_line, 0};
      event.sse = true;
      started = true;
    }
    if (field == "event") {
      event.name = value;
    } else if (field == "data") {
      if (has_data) {
        event.data += '\n';
      } else {
        event.where = Location{m_file, m_line, 0};
        event.data_column = value_at + 1;
      }
      event.data += value;
      has_data = true;
    }
    // id:, retry: and unknown fields carry nothing convo needs.
  }
  if (has_data) {
    return true;  // the last event, without its closing empty line
  }
  return false;
}

}  // namespace convo
