#include "io/record_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>

namespace convo {

namespace {

constexpr std::size_t k_chunk = std::size_t{1} << 20;

// Atomic only so that a test or fuzz target setting it is no data race; relaxed
// loads cost what plain ones do.
std::atomic<std::size_t> g_long_line{RecordReader::k_long_line};

bool is_blank(std::string_view line) {
  return std::all_of(line.begin(), line.end(),
                     [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f'; });
}

bool is_json_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// True when `line` may be the first line of a JSON value that continues on the next
// lines: it opens an object or array and the parser ran off its end.
bool may_continue(std::string_view line, const JsonParseError& error) {
  if (error.offset < line.size()) {
    return false;
  }
  auto first = std::find_if_not(line.begin(), line.end(), is_json_space);
  return first != line.end() && (*first == '{' || *first == '[');
}

}  // namespace

RecordReader::RecordReader(std::unique_ptr<ByteSource> input, std::string display_name,
                           std::uint64_t max_record_size, bool map_files)
    : m_input(std::move(input)),
      m_file(std::make_shared<const std::string>(std::move(display_name))),
      m_max_record_size(max_record_size),
      m_map_files(map_files) {}

void RecordReader::too_long(std::uint64_t line) const {
  throw Error(Location{m_file, line},
              fmt::format("record longer than {} bytes, the maximum record size (raise it "
                          "with --max-record-size)",
                          m_max_record_size));
}

RecordReader::~RecordReader() { std::free(m_block); }

std::size_t RecordReader::long_line_size() { return g_long_line.load(std::memory_order_relaxed); }

void RecordReader::set_long_line_size(std::size_t bytes) {
  g_long_line.store(bytes, std::memory_order_relaxed);
}

// Grows the buffer to `capacity` bytes with realloc: a large block is remapped, not
// copied, and the pages not yet read into take no memory (a std::string's resize
// copied the bytes and zeroed the new half).
void RecordReader::grow(std::size_t capacity) {
  void* grown = std::realloc(m_block, Bytes::k_header + capacity + k_json_parse_padding);
  if (grown == nullptr) {
    throw std::bad_alloc();
  }
  m_block = static_cast<char*>(grown);
  m_capacity = capacity;
}

void RecordReader::fill() {
  if (m_begin > 0) {
    std::memmove(buffer(), buffer() + m_begin, m_end - m_begin);
    m_end -= m_begin;
    m_begin = 0;
  }
  // One spare byte past m_end always exists, for the NUL read_all ends the text with.
  if (m_capacity < m_end + k_chunk / 2 + 1) {
    grow(std::max(m_capacity * 2, m_end + k_chunk + 1));
  }
  std::size_t n = m_input->read(buffer() + m_end, m_capacity - m_end - 1);
  if (n == 0) {
    m_eof = true;
  }
  m_end += n;
  m_read += n;
  // Past the bytes read, what a parse of the last line may read past its end.
  std::memset(buffer() + m_end, 0, k_json_parse_padding);
}

void RecordReader::read_all() {
  while (!m_eof) {
    if (m_end - m_begin > m_max_record_size) {
      too_long(m_line + 1);
    }
    fill();
  }
  buffer()[m_end] = '\0';
}

bool RecordReader::next_line(std::string_view& line, std::uint64_t& number) {
  if (m_line == 0 && m_begin == 0) {
    while (m_end < 3 && !m_eof) {
      fill();
    }
    if (m_end >= 3 && std::memcmp(buffer(), "\xEF\xBB\xBF", 3) == 0) {
      m_begin = 3;
    }
  }
  std::size_t scanned = 0;   // bytes after m_begin known to hold no newline
  std::size_t nul_free = 0;  // bytes after m_begin known to hold no NUL (long lines)
  for (;;) {
    const char* start = buffer() + m_begin;
    const void* newline = std::memchr(start + scanned, '\n', m_end - m_begin - scanned);
    if (newline != nullptr) {
      std::size_t length = static_cast<const char*>(newline) - start;
      line = std::string_view(start, length);
      m_begin += length + 1;
      break;
    }
    if (m_eof) {
      if (m_begin == m_end) {
        return false;
      }
      line = std::string_view(start, m_end - m_begin);
      m_begin = m_end;
      break;
    }
    const std::size_t pending = m_end - m_begin;
    if (pending > m_max_record_size) {
      too_long(m_line + 1);
    }
    if (pending > k_chunk) {
      // A long line: a NUL byte makes it bad JSON whatever follows, so say so now
      // rather than read on (an endless line of them is /dev/zero).
      if (const void* nul = std::memchr(start + nul_free, '\0', pending - nul_free)) {
        std::size_t column = static_cast<const char*>(nul) - start + 1;
        throw Error(Location{m_file, m_line + 1, column},
                    "NUL byte in JSON text (binary data, not a transcript?)");
      }
    }
    scanned = pending;
    nul_free = pending > k_chunk ? pending : 0;
    fill();
  }
  if (line.size() > m_max_record_size) {
    too_long(m_line + 1);
  }
  if (!line.empty() && line.back() == '\r') {
    line.remove_suffix(1);
  }
  number = ++m_line;
  return true;
}

bool RecordReader::next(Record& record) {
  if (m_document) {
    return next_in_document(record);
  }
  if (m_map_files && !m_first && !m_map_tried) {
    try_mapping();
  }
  if (m_map) {
    return next_mapped(record);
  }
  std::string_view line;
  std::uint64_t number = 0;
  do {
    if (!next_line(line, number)) {
      return false;
    }
  } while (is_blank(line));

  const bool long_line = line.size() >= long_line_size();
  if (long_line) {
    adopt_line(line, record.raw);  // a long line is not copied to be kept
  } else {
    record.raw.assign(line.data(), line.size());
  }
  record.where = Location{m_file, number, 0};
  record.error.clear();
  record.lone_surrogates = 0;
  record.source = Source::make(record.raw.size());
  const bool first = m_first;
  m_first = false;
  // Parsed where its bytes are, the buffer's (a long line's are its record's bytes
  // already), not from a copy: one copy of the line is kept, `raw`.
  if (parse_shadowed(long_line ? record.raw.view() : line, record, true)) {
    return true;
  }
  return explain(record, first, long_line);
}

// A record whose bytes did not parse: parse them again, pristine (their lone
// halves replaced as above), to say what is wrong and where (rare). The first
// record may be the start of a document spanning lines instead.
bool RecordReader::explain(Record& record, bool first, bool adopted) {
  record.lone_surrogates = 0;
  std::string& text = record.source->text;
  reserve_parse_padding(text, record.raw.size());
  text.assign(record.raw);
  replace_lone_surrogates(text);
  auto error = parse_json(text, record.source->doc);
  text.clear();
  if (!error) {
    return true;  // cannot happen: both parses accept the same texts
  }
  if (first && may_continue(record.raw, *error) && try_document_mode(record, adopted)) {
    return true;
  }
  record.source.reset();
  record.error = error->message;
  record.where.column = error->offset + 1;
  return true;
}

// After the first record, which the buffer read (document mode looks back at it):
// the rest of a regular file larger than the buffer's first reads is read through a
// mapping. A smaller one was read whole already.
void RecordReader::try_mapping() {
  m_map_tried = true;
  if (m_eof) {
    return;
  }
  const int fd = m_input->file_descriptor();
  if (fd < 0) {
    return;
  }
  // Not a file that says it is smaller than what was read of it (a /proc file
  // says 0 bytes), nor one whose first window cannot be mapped (a file system
  // without mmap): those are read on.
  auto map = MappedFile::open(fd);
  if (!map || map->size() < m_read) {
    return;
  }
  const std::uint64_t offset = m_read - (m_end - m_begin);
  try {
    std::size_t available = 0;
    map->at(offset, available);
  } catch (const std::bad_alloc&) {
    return;
  }
  m_map = std::move(map);
  m_offset = offset;
  m_begin = m_end = 0;  // the buffer holds each line to parse from now on
}

// The next line of a mapped file: its offset and length, without its LF; false at
// the end of the file. A line past 1 MB that holds a NUL byte stops the run as the
// buffer's do (next_line), at the NUL, found as the line is scanned.
bool RecordReader::next_mapped_line(std::uint64_t& start, std::size_t& length) {
  start = m_offset;
  std::size_t scanned = 0;    // bytes of the line in the windows before this one
  std::size_t nul_free = 0;   // bytes of the line known to hold no NUL
  for (;;) {
    std::size_t available = 0;
    const char* data = m_map->at(start + scanned, available);
    if (available == 0) {  // the end of the file
      if (scanned == 0) {
        return false;
      }
      length = scanned;
      m_offset = start + scanned;
      break;
    }
    const void* newline = std::memchr(data, '\n', available);
    if (m_map->shrank()) {
      shrank();
    }
    const std::size_t in_window =
        newline != nullptr ? static_cast<std::size_t>(static_cast<const char*>(newline) - data) : available;
    if (scanned + in_window > k_chunk) {
      refuse_nul(start, nul_free, scanned + in_window);
      nul_free = scanned + in_window;
    }
    if (newline != nullptr) {
      length = scanned + in_window;
      m_offset = start + length + 1;
      break;
    }
    scanned += available;
    if (scanned > m_max_record_size) {
      too_long(m_line + 1);
    }
  }
  if (length > m_max_record_size) {
    too_long(m_line + 1);
  }
  if (m_offset > m_read) {  // bytes the buffer did not read before the mapping
    m_input->mapped(static_cast<std::size_t>(m_offset - m_read));
    m_read = m_offset;
  }
  return true;
}

// Throws at the first NUL byte of the mapped line at `start` between its bytes
// `from` and `to`, if there is one.
void RecordReader::refuse_nul(std::uint64_t start, std::size_t from, std::size_t to) {
  while (from < to) {
    std::size_t available = 0;
    const char* data = m_map->at(start + from, available);
    const std::size_t n = std::min(available, to - from);
    if (n == 0) {
      shrank();
    }
    if (const void* nul = std::memchr(data, '\0', n)) {
      const std::size_t column = from + static_cast<std::size_t>(static_cast<const char*>(nul) - data) + 1;
      throw Error(Location{m_file, m_line + 1, column},
                  "NUL byte in JSON text (binary data, not a transcript?)");
    }
    from += n;
  }
}

// What a read(2) of a file that shrank would not notice: the bytes it had are not
// all there (the mapping read the missing ones as zeros: io/mapped_file.h).
void RecordReader::shrank() const {
  throw Error(Location{m_file, m_line + 1},
              "the file shrank while convo read it (another program changed it); read it again");
}

// Copies the mapped file's `length` bytes from `start` to `to`, and after them the
// zeros a parse may read past them (`to` has room for them).
void RecordReader::copy_mapped(std::uint64_t start, std::size_t length, char* to) {
  for (std::size_t copied = 0; copied < length;) {
    std::size_t available = 0;
    const char* data = m_map->at(start + copied, available);
    const std::size_t n = std::min(available, length - copied);
    if (n == 0) {  // the file shrank below the line found in it
      shrank();
    }
    std::memcpy(to + copied, data, n);
    copied += n;
  }
  std::memset(to + length, 0, k_json_parse_padding);
  if (m_map->shrank()) {
    shrank();
  }
}

// Like the buffer's lines (next_line, next), from the mapping. A line with its
// newline and k_json_parse_padding bytes after it in the window is parsed where
// it is, in the mapping (a line's parse stops at its newline: SkipWhitespace for
// PaddedInsituStream), and its record's bytes are the one copy of it, laid out as
// the buffer's lines' are (`Bytes::assign`: a conversation of millions of short
// records held whole takes no more a record). A line at a window's end is copied
// into the buffer and parsed there; a long line is copied once, into its record's
// bytes, which the parse reads in place.
bool RecordReader::next_mapped(Record& record) {
  std::string_view line;
  bool long_line = false;
  bool in_map = false;
  for (;;) {
    std::uint64_t start = 0;
    std::size_t length = 0;
    if (!next_mapped_line(start, length)) {
      return false;
    }
    ++m_line;
    long_line = length >= long_line_size();
    const char* data = nullptr;
    in_map = false;
    if (!long_line) {
      std::size_t available = 0;
      data = m_map->at(start, available);
      in_map = available > length + k_json_parse_padding;
    }
    char* block = nullptr;  // a long line's: its record's bytes, laid out for Bytes::adopt
    if (!in_map) {
      if (long_line) {
        block = static_cast<char*>(std::malloc(Bytes::k_header + length + k_json_parse_padding));
        if (block == nullptr) {
          throw std::bad_alloc();
        }
      } else if (m_capacity < length + 1) {
        grow(length + 1);
      }
      char* const to = long_line ? block + Bytes::k_header : buffer();
      try {
        copy_mapped(start, length, to);
      } catch (...) {
        std::free(block);
        throw;
      }
      data = to;
    }
    line = std::string_view(data, length);
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    if (is_blank(line)) {
      std::free(block);
      continue;
    }
    if (long_line) {
      record.raw.adopt(block, line.size());  // its NUL where a CR was
    } else {
      record.raw.assign(line.data(), line.size());
    }
    break;
  }
  record.where = Location{m_file, m_line, 0};
  record.error.clear();
  record.lone_surrogates = 0;
  record.source = Source::make(record.raw.size());
  const bool parsed = parse_shadowed(line, record, !in_map);
  if (in_map && m_map->shrank()) {  // the bytes copied or parsed were zeros put for lost ones
    shrank();
  }
  if (parsed) {
    return true;
  }
  return explain(record, false, long_line);
}

// Parses the record's JSON from `text`, its bytes where they are (the read
// buffer, or the record's own bytes for a long line), which stay as they are: each
// string is unescaped into a block of the record's (`Source::strings`) at its own
// offset, rather than into a copy of the whole line, so a line is copied once (to
// be kept as `raw`) and a record of 500 MB takes its bytes and its strings. Half a
// surrogate pair (`\ud800` or `\udc00` alone; JSON.stringify writes them when it
// cuts a string mid-pair) is read as U+FFFD, counted: the record passes through
// unchanged, and re-encoded it has the replacement character. False, with
// `record.source` fresh, when the text is not JSON: the caller looks again to say
// why.
bool RecordReader::parse_shadowed(std::string_view text, Record& record, bool terminate) {
  // The parse reads up to the NUL that ends the text, or the newline after it in a
  // mapping (read-only), and may load a little past: the buffer has
  // k_json_parse_padding bytes after the last one read, a long line's block zeros
  // (adopt_line), a mapped line's window its next bytes (next_mapped).
  char* const end = const_cast<char*>(text.data()) + text.size();
  const char after = *end;
  if (terminate) {
    *end = '\0';
  }
  // Room for every byte of the text: a long line's pages never written to take no
  // memory.
  auto* block = static_cast<char*>(std::malloc(Bytes::k_header + text.size() + k_json_parse_padding + 1));
  if (block == nullptr) {
    if (terminate) {
      *end = after;
    }
    throw std::bad_alloc();
  }
  std::size_t lone = 0;
  const bool parsed =
      parse_json_shadowed(text, block + Bytes::k_header, record.source->doc, lone);
  if (terminate) {
    *end = after;
  }
  if (!parsed) {
    std::free(block);
    record.source = std::make_shared<Source>(text.size());
    return false;
  }
  // As long as the text, so that a string's offset in it is its offset in the
  // text (json_as_read); not cut to size: realloc might move it, and `doc` points
  // into it.
  record.source->strings.adopt(block, text.size());
  record.lone_surrogates = lone;
  return true;
}

// Makes the read buffer, which holds `line`, the line's record's bytes `raw`, cut
// to the line's size (realloc gives back the rest of a doubled capacity), and
// carries the bytes after the line to a new buffer: a line of hundreds of MB is
// read into memory once and not copied to be kept. The new buffer starts at the
// line's terminator (CR LF, LF or none), for try_document_mode to put the line
// back before it as it was.
void RecordReader::adopt_line(std::string_view line, Bytes& raw) {
  const std::size_t start = static_cast<std::size_t>(line.data() - buffer());
  const std::size_t length = line.size();
  const std::size_t after = start + length;  // its terminator
  const std::size_t rest = m_end - after;
  const std::size_t capacity = std::max(rest + k_chunk / 2 + 1, k_chunk + 1);
  auto* fresh = static_cast<char*>(std::malloc(Bytes::k_header + capacity + k_json_parse_padding));
  if (fresh == nullptr) {
    throw std::bad_alloc();
  }
  std::memcpy(fresh + Bytes::k_header, buffer() + after, rest);
  char* block = m_block;
  m_block = fresh;
  m_capacity = capacity;
  m_begin -= after;
  m_end = rest;
  if (start > 0) {  // fill() moves a line that outgrows a chunk to the start
    std::memmove(block + Bytes::k_header, block + Bytes::k_header + start, length);
  }
  // Zeros after the line, for the parse to read past its end.
  if (void* cut = std::realloc(block, Bytes::k_header + length + k_json_parse_padding)) {
    block = static_cast<char*>(cut);  // else it keeps its size, and its bytes
  }
  std::memset(block + Bytes::k_header + length, 0, k_json_parse_padding);
  raw.adopt(block, length);
}

// The first record did not end on its line. Rewind to its start, read the whole
// input, and see whether it parses as JSON values spanning lines. If the parse
// fails on the first line itself, that line was merely truncated: stay in line mode
// so that the error is reported on line 1 and the lines after it are still read.
bool RecordReader::try_document_mode(Record& record, bool adopted) {
  const std::uint64_t first_line = record.where.line;
  if (adopted) {
    // A long line is its record's bytes, no longer in the buffer, which starts at
    // its terminator (adopt_line): put it back before that, to be read again.
    const std::size_t length = record.raw.size();
    if (m_capacity < m_end + length + 1) {
      grow(m_end + length + 1);
    }
    std::memmove(buffer() + length, buffer(), m_end);
    std::memcpy(buffer(), record.raw.data(), length);
    m_begin += length;
    m_end += length;
  }
  // The line and its terminator are the bytes just before m_begin; find its start.
  std::size_t start = m_begin;  // one past the line's LF, or m_end at the end of input
  const char* const data = buffer();
  if (start > 0 && data[start - 1] == '\n') {
    --start;
  }
  while (start > 0 && data[start - 1] != '\n') {
    --start;
  }
  // (A BOM before a long line was not put back.)
  if (first_line == 1 && start == 0 && !adopted && m_end >= 3 &&
      std::memcmp(data, "\xEF\xBB\xBF", 3) == 0) {
    start = 3;
  }
  m_begin = start;
  read_all();  // compacts: the record now starts at offset 0
  std::string_view text(buffer() + m_begin, m_end - m_begin);
  auto source = std::make_shared<Source>();
  std::size_t consumed = 0;
  // Lone surrogate halves are read as U+FFFD, as in lines (see next()); the bytes
  // the record passes through are the document's own.
  std::size_t lone_surrogates = count_lone_surrogates(text);
  if (lone_surrogates > 0) {
    source->text.assign(text);
    replace_lone_surrogates(source->text);
  }
  if (auto error = parse_json_prefix(lone_surrogates > 0 ? std::string_view(source->text) : text,
                                     source->doc, consumed)) {
    std::size_t first_line_end = std::min(text.find('\n'), text.size());
    // The error at the first byte of the next line ("expected ',' or '}'" at a
    // '{') says the first line is JSONL cut short, not a document's first line.
    std::size_t next_value = first_line_end < text.size()
                                 ? text.find_first_not_of(" \t\r", first_line_end + 1)
                                 : std::string_view::npos;
    if (error->offset <= first_line_end ||
        (next_value != std::string_view::npos && error->offset <= next_value)) {
      // A truncated first line: skip it again and go on by lines.
      m_begin += first_line_end < text.size() ? first_line_end + 1 : text.size();
      return false;
    }
    // A broken multi-line document: report the error where it is.
    m_document = true;
    m_line = first_line;
    return next_in_document(record);
  }
  source->text.clear();  // the parse copied the strings it keeps
  source->text.shrink_to_fit();
  m_document = true;
  m_line = first_line;  // line number of the byte at m_begin
  record.lone_surrogates = lone_surrogates;
  record.raw.assign(text.data(), consumed);
  record.source = std::move(source);
  record.where = Location{m_file, first_line, 0};
  m_line += static_cast<std::uint64_t>(std::count(text.begin(), text.begin() + consumed, '\n'));
  m_begin += consumed;
  return true;
}

bool RecordReader::next_in_document(Record& record) {
  while (m_begin < m_end && is_json_space(buffer()[m_begin])) {
    if (buffer()[m_begin] == '\n') {
      ++m_line;
    }
    ++m_begin;
  }
  if (m_begin >= m_end) {
    return false;
  }
  std::string_view text(buffer() + m_begin, m_end - m_begin);
  record.error.clear();
  record.where = Location{m_file, m_line, 0};
  record.source = std::make_shared<Source>();
  std::size_t consumed = 0;
  record.lone_surrogates = count_lone_surrogates(text);  // as in try_document_mode
  std::string fixed;
  if (record.lone_surrogates > 0) {
    fixed.assign(text);
    replace_lone_surrogates(fixed);
  }
  if (auto error = parse_json_prefix(record.lone_surrogates > 0 ? std::string_view(fixed) : text,
                                     record.source->doc, consumed)) {
    record.lone_surrogates = 0;
    // Where a broken document ends cannot be told: it is one bad record from its
    // start to the end of the input, reported once at the error (a document nested
    // a million deep is one report, not two million), and kept whole by
    // --on-error keep.
    std::size_t offset = std::min(error->offset, text.size());
    std::string_view before = text.substr(0, offset);
    std::size_t newlines = static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
    std::size_t line_start = before.rfind('\n');
    line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
    record.where.line = m_line + newlines;
    record.where.column = offset - line_start + 1;
    record.error = error->message;
    std::string_view rest = text;
    while (!rest.empty() && is_json_space(rest.back())) {
      rest.remove_suffix(1);
    }
    record.raw.assign(rest.data(), rest.size());
    record.source.reset();
    m_begin = m_end;
    return true;
  }
  record.raw.assign(text.data(), consumed);
  m_line += static_cast<std::uint64_t>(std::count(text.begin(), text.begin() + consumed, '\n'));
  m_begin += consumed;
  return true;
}

}  // namespace convo
