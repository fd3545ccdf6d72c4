#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "formats/json_out.h"
#include "diagnostics.h"
#include "error.h"
#include "input_reader.h"
#include "io/mapped_file.h"
#include "io/record_reader.h"

using namespace convo;

namespace {

std::vector<Record> read_records(RecordReader& reader) {
  std::vector<Record> records;
  Record record;
  while (reader.next(record)) {
    records.push_back(record);
  }
  return records;
}

std::vector<Record> read_all(const std::string& text) {
  RecordReader reader(memory_source(text), "t.jsonl");
  return read_records(reader);
}

}  // namespace

TEST_CASE("records are lines, and blank lines are skipped but counted", "[io]") {
  auto records = read_all("{\"a\":1}\n\n   \n{\"a\":2}\n");
  REQUIRE(records.size() == 2);
  CHECK(records[0].raw == "{\"a\":1}");
  CHECK(records[0].where.line == 1);
  CHECK(records[1].where.line == 4);
  CHECK(*records[1].where.file == "t.jsonl");
}

TEST_CASE("CRLF line ends, a BOM and a missing final newline are fine", "[io]") {
  auto records = read_all("\xEF\xBB\xBF{\"a\":1}\r\n{\"a\":2}");
  REQUIRE(records.size() == 2);
  CHECK(records[0].raw == "{\"a\":1}");
  CHECK(records[0].ok());
  CHECK(records[1].raw == "{\"a\":2}");
}

TEST_CASE("a malformed line is a record with an error and a column", "[io]") {
  auto records = read_all("{\"a\":1}\n{\"a\" 1}\n{\"a\":3}\n");
  REQUIRE(records.size() == 3);
  CHECK_FALSE(records[1].ok());
  CHECK(records[1].error == "expected ':'");
  CHECK(records[1].where.line == 2);
  CHECK(records[1].where.column == 6);
  CHECK(records[1].raw == "{\"a\" 1}");
  CHECK(records[2].ok());
}

TEST_CASE("a truncated last line is an error on its own line", "[io]") {
  auto records = read_all("{\"a\":1}\n{\"a\":\"cut of");
  REQUIRE(records.size() == 2);
  CHECK(records[1].error == "unterminated string (truncated line?)");
  CHECK(records[1].where.line == 2);
}

TEST_CASE("a JSON value spanning lines is one record", "[io]") {
  auto records = read_all("{\n  \"messages\": [\n    {\"role\": \"user\"}\n  ]\n}\n{\"b\":\n 2}\n");
  REQUIRE(records.size() == 2);
  CHECK(records[0].ok());
  CHECK(records[0].where.line == 1);
  CHECK(records[0].raw == "{\n  \"messages\": [\n    {\"role\": \"user\"}\n  ]\n}");
  CHECK(records[1].where.line == 6);
  CHECK(records[1].source->doc["b"].GetInt() == 2);
}

TEST_CASE("an error inside a multi-line document points at its line", "[io]") {
  auto records = read_all("{\n  \"a\": 1,\n  \"b\" 2\n}\n");
  REQUIRE_FALSE(records.empty());
  CHECK_FALSE(records[0].ok());
  CHECK(records[0].where.line == 3);
  CHECK(records[0].where.column == 7);
  CHECK(records[0].error == "expected ':'");
}

TEST_CASE("a broken multi-line document is one bad record to the end of the input", "[io]") {
  // Nested past the depth limit: one error, not one per remaining line.
  std::string text;
  for (int i = 0; i < 1500; ++i) {
    text += "[\n";
  }
  for (int i = 0; i < 1500; ++i) {
    text += "]\n";
  }
  auto records = read_all(text);
  REQUIRE(records.size() == 1);
  CHECK_FALSE(records[0].ok());
  CHECK(records[0].where.line == 1001);
  CHECK(records[0].error == "JSON nested deeper than 1000 levels");
  CHECK(records[0].raw.size() == text.size() - 1);  // all of it, for --on-error keep
}

TEST_CASE("a first line cut short before the next record stays in line mode", "[io]") {
  auto records = read_all("{\"a\":1\n{\"a\":2}\n{\"a\":3}\n");
  REQUIRE(records.size() == 3);
  CHECK_FALSE(records[0].ok());
  CHECK(records[1].ok());
  CHECK(records[1].where.line == 2);
  CHECK(records[2].ok());
}

TEST_CASE("a truncated first line does not swallow the lines after it", "[io]") {
  auto records = read_all("{\"a\":\"cut\n{\"a\":2}\n{\"a\":3}\n");
  REQUIRE(records.size() == 3);
  CHECK_FALSE(records[0].ok());
  CHECK(records[0].where.line == 1);
  CHECK(records[1].ok());
  CHECK(records[1].where.line == 2);
  CHECK(records[2].where.line == 3);
}

TEST_CASE("a line of 64 MB is read whole", "[io][big]") {
  std::string big(64u << 20, 'x');
  std::string text = "{\"a\":1}\n{\"text\":\"" + big + "\"}\n{\"a\":3}\n";
  auto records = read_all(text);
  REQUIRE(records.size() == 3);
  REQUIRE(records[1].ok());
  CHECK(records[1].source->doc["text"].GetStringLength() == big.size());
  CHECK(records[2].where.line == 3);
}

TEST_CASE("a long line becomes its record's bytes and the lines after it are read", "[io]") {
  // Past 1 MB a line's read buffer is its record's bytes: at the start of the input,
  // after other lines, with a CR, twice in a row and at the end without a newline.
  const std::string long_text(3u << 20, 'y');
  const std::string line = "{\"text\":\"" + long_text + "\"}";
  const std::string text = line + "\n{\"a\":1}\n" + line + "\r\n" + line + "\n\n{\"a\":2}\n" + line;
  auto records = read_all(text);
  REQUIRE(records.size() == 6);
  for (std::size_t i : {0, 2, 3, 5}) {
    INFO(i);
    REQUIRE(records[i].ok());
    CHECK(records[i].raw == line);
    CHECK(view_of(records[i].source->doc["text"]) == long_text);
  }
  CHECK(records[1].raw == "{\"a\":1}");
  CHECK(records[2].where.line == 3);
  CHECK(records[3].where.line == 4);
  CHECK(records[4].raw == "{\"a\":2}");
  CHECK(records[4].where.line == 6);
  CHECK(records[5].where.line == 7);
}

TEST_CASE("an empty input has no records", "[io]") {
  CHECK(read_all("").empty());
  CHECK(read_all("\n\n").empty());
}

TEST_CASE("a lone surrogate escape is read as U+FFFD and the raw bytes are kept", "[io]") {
  auto records = read_all("{\"a\":\"cut \\ud83d\"}\n");
  REQUIRE(records.size() == 1);
  REQUIRE(records[0].ok());
  CHECK(records[0].lone_surrogates == 1);
  CHECK(records[0].raw == "{\"a\":\"cut \\ud83d\"}");
  CHECK(view_of(records[0].source->doc["a"]) == "cut \xEF\xBF\xBD");
}

TEST_CASE("a long line is parsed from its bytes, which stay as read, its strings apart",
          "[io]") {
  // Escapes of every kind, keys, numbers and empty strings, past 1 MB.
  std::string body;
  while (body.size() < (2u << 20)) {
    body += R"(line \"quoted\"\tand \\ a path\u00e9\n)";
  }
  const std::string line = R"({"n":-12.5,"":"","text":")" + body + R"(","list":[1,"two",{"k":"v"}]})";
  auto records = read_all("{\"a\":1}\n" + line + "\n{\"a\":3}\n");
  REQUIRE(records.size() == 3);
  const Record& record = records[1];
  REQUIRE(record.ok());
  CHECK(record.raw == line);
  CHECK(record.source->text.empty());  // no copy of the line
  CHECK(record.source->strings.size() == line.size());  // each string at its own offset
  JsonDoc expected;
  REQUIRE_FALSE(parse_json(line, expected));
  CHECK(to_json(record.source->doc) == to_json(expected));
  CHECK(records[2].where.line == 3);
}

TEST_CASE("a long bad line or one with a lone surrogate is read as any line", "[io]") {
  const std::string body(2u << 20, 'z');
  auto records = read_all(R"({"a":")" + body + R"(\ud800"})" + "\n" + R"({"a":")" + body + "\"x}\n");
  REQUIRE(records.size() == 2);
  REQUIRE(records[0].ok());
  CHECK(records[0].lone_surrogates == 1);
  CHECK(view_of(records[0].source->doc["a"]).ends_with("z\xEF\xBF\xBD"));
  CHECK_FALSE(records[1].ok());
  CHECK(records[1].raw == R"({"a":")" + body + "\"x}");
  CHECK(records[1].where.line == 2);
  CHECK(records[1].where.column == body.size() + 8);
}

TEST_CASE("a multi-line document whose first line is long is read whole", "[io]") {
  // The first line, past 1 MB, became its record's bytes before the parse found
  // that the document goes on past it; it was lost, and the document read from its
  // second line (issue 15: found by fuzz_record_reader once it read lines as long
  // from a few bytes on).
  const std::string body(2u << 20, 'w');
  const std::string first = R"({"messages": [{"role": "user", "content": ")" + body + R"("},)";
  for (const std::string bom : {"", "\xEF\xBB\xBF"}) {
    INFO(bom.size());
    const std::string document = first + "\r\n  {\"role\": \"assistant\", \"content\": \"hi\"}\n]}";
    auto records = read_all(bom + document + "\n{\"a\":1}\n");
    REQUIRE(records.size() == 2);
    REQUIRE(records[0].ok());
    CHECK(records[0].where.line == 1);
    CHECK((records[0].raw == document));  // not printed: 2 MB
    CHECK(records[0].source->doc["messages"].Size() == 2);
    CHECK(records[1].where.line == 4);
    CHECK(records[1].raw == "{\"a\":1}");
  }
}

TEST_CASE("a long first line cut short is an error on its line", "[io]") {
  const std::string body(2u << 20, 'v');
  auto records = read_all(R"({"a":")" + body + "\n{\"b\":2}\n");
  REQUIRE(records.size() == 2);
  CHECK_FALSE(records[0].ok());
  CHECK(records[0].where.line == 1);
  CHECK(records[0].raw.size() == body.size() + 6);
  CHECK(records[1].ok());
  CHECK(records[1].where.line == 2);
}

namespace {

// Sets a size the reader takes for the whole process (`Set`) for the life of a
// test, and back to `Default`.
template <void (*Set)(std::size_t), std::size_t Default>
struct ScopedSize {
  explicit ScopedSize(std::size_t bytes) { Set(bytes); }
  ~ScopedSize() { Set(Default); }
  ScopedSize(const ScopedSize&) = delete;
  ScopedSize& operator=(const ScopedSize&) = delete;
};
// The long-line size; the mapping's window.
using LongLineSize = ScopedSize<&RecordReader::set_long_line_size, RecordReader::k_long_line>;
using WindowSize = ScopedSize<&MappedFile::set_window_size, MappedFile::k_window>;

}  // namespace

TEST_CASE("a line long from a lower size makes the record a short line makes", "[io]") {
  // What fuzz_record_reader checks: a long line is kept as read and parsed apart
  // from its bytes, and says the same as a short one, whatever the long-line size.
  const std::vector<std::string> inputs = {
      "{\"a\":1}\n\n   \n{\"a\":\"two \\\"quoted\\\" \\u00e9\"}\n",
      "\xEF\xBB\xBF{\"a\":1}\r\n{\"b\":[1,2,{\"c\":null}]}",
      "{\"a\":\"cut \\ud83d\"}\n{\"a\":\"low \\udc00 half\"}\n",
      "{\"a\":1,\"b\":\"x}\n{\"a\":2}\n",
      "{\n  \"messages\": [\n    {\"role\": \"user\"}\n  ]\n}\n{\"b\":\n 2}\n",
      "{\"messages\": [{\"role\": \"user\", \"content\": \"a first line\"},\r\n {\"role\": "
      "\"assistant\"}]}\n",
      "{\"a\": [\"cut\",\n{\"b\":2}\n",
      std::string("{\"a\":\"nul ") + '\0' + " inside\"}\n{\"a\":2}\n"};
  for (const std::string& input : inputs) {
    std::vector<Record> as_short = read_all(input);
    for (std::size_t size : {1, 8, 16, 64}) {
      INFO(input << " long from " << size);
      LongLineSize long_lines(size);
      std::vector<Record> as_long = read_all(input);
      REQUIRE(as_long.size() == as_short.size());
      for (std::size_t i = 0; i < as_long.size(); ++i) {
        CHECK(as_long[i].raw == as_short[i].raw);
        CHECK(as_long[i].where.line == as_short[i].where.line);
        CHECK(as_long[i].where.column == as_short[i].where.column);
        CHECK(as_long[i].error == as_short[i].error);
        CHECK(as_long[i].lone_surrogates == as_short[i].lone_surrogates);
        CHECK((as_long[i].ok() ? to_json(as_long[i].source->doc) : "") ==
              (as_short[i].ok() ? to_json(as_short[i].source->doc) : ""));
      }
    }
  }
}

TEST_CASE("a data URL read without escapes is plain and written as it was, one with escapes is not",
          "[io]") {
  // Text::plain: the writers copy a base64 image's data rather than escape it, when
  // the parse saw no escape in its string; what they write is the same either way.
  auto records = read_all(
      "{\"u\":\"data:image/png;base64,iVBORw0KGgo=\",\"v\":\"data:image/png;base64,iVBO\\/w==\","
      "\"w\":\"https://example.com/a.png\",\"x\":\"x\\u0001\\\"\\u0000y\"}\n"
      "{\"u\":\"another record\"}\n");
  REQUIRE(records.size() == 2);
  const auto& doc = records[0].source->doc;
  std::shared_ptr<const Source> owner = records[0].source;
  MediaSource plain = MediaSource::from_url(doc["u"], owner);
  MediaSource escaped = MediaSource::from_url(doc["v"], owner);
  MediaSource url = MediaSource::from_url(doc["w"], owner);
  CHECK(plain.data.plain());
  CHECK(plain.data == "iVBORw0KGgo=");
  CHECK_FALSE(escaped.data.plain());
  CHECK(escaped.data == "iVBO/w==");
  CHECK(url.data.plain());
  // Moved, as a Block is into its reply, it stays plain, and its bytes borrowed or not.
  Block block;
  block.source = plain;
  const Block moved(std::move(block));
  CHECK(moved.source.data.plain());
  CHECK(moved.source.data.borrowed() == plain.data.borrowed());
  CHECK(moved.source.data == "iVBORw0KGgo=");
  // A string with escapes (\u0001 and \u0000 among them) is not plain.
  Text part;
  part.set_plain_as(doc["x"], owner.get());
  CHECK_FALSE(part.plain());
  // Nor a string said to be another record's, or no record's: its place is not in
  // that record's strings, so no mark is read.
  Text other;
  other.set_plain_as(doc["u"], records[1].source.get());
  CHECK_FALSE(other.plain());
  Text none;
  none.set_plain_as(doc["u"], nullptr);
  CHECK_FALSE(none.plain());
  Text own;
  own.set_plain_as(records[1].source->doc["u"], records[1].source.get());
  CHECK(own.plain());
  for (const MediaSource* source : {&plain, &escaped, &url}) {
    rapidjson::StringBuffer fast;
    rapidjson::StringBuffer slow;
    JsonWriter wf(fast);
    JsonWriter ws(slow);
    write_media_url(wf, *source);
    write_string(ws, source->to_url());
    CHECK(std::string_view(fast.GetString(), fast.GetSize()) ==
          std::string_view(slow.GetString(), slow.GetSize()));
  }
  // Changed, it is no longer plain.
  plain.data.edit() += "\"";
  CHECK_FALSE(plain.data.plain());
  Text copy = url.data;
  CHECK(copy.plain());
  copy = std::string("a\"b");
  CHECK_FALSE(copy.plain());
}

namespace {

// A file of `text` under the system's temporary folder, removed at the end.
struct TempFile {
  explicit TempFile(const std::string& text) {
    static int count = 0;
    path = (std::filesystem::temp_directory_path() /
            ("convo-reader-" + std::to_string(::getpid()) + "-" + std::to_string(++count)))
               .string();
    std::ofstream(path, std::ios::binary) << text;
  }
  ~TempFile() { std::filesystem::remove(path); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  std::string path;
};

// A file source that counts the bytes a reader took from its mapping rather than
// read: a test of the mapped reader must see it used.
class MappedCount final : public ByteSource {
 public:
  MappedCount(std::unique_ptr<ByteSource> input, std::size_t& mapped)
      : m_input(std::move(input)), m_mapped(mapped) {}
  std::size_t read(char* buffer, std::size_t size) override { return m_input->read(buffer, size); }
  int file_descriptor() const override { return m_input->file_descriptor(); }
  void mapped(std::size_t n) override { m_mapped += n; }

 private:
  std::unique_ptr<ByteSource> m_input;
  std::size_t& m_mapped;
};

}  // namespace

// A regular file past the buffer's first read is read, with --mmap, through a
// mapping after its first record (io/mapped_file.h): every record must come out as the buffer reads
// it, whatever the line (CRLF, blank, bad, lone surrogates, a NUL, longer than the
// mapping's window, last without a newline), and wherever it ends in a window: a
// line is parsed in the mapping, with the next lines after it, and must stop at its
// newline (a line cut short is an error of its own, not read on into the next);
// one too near the window's end is copied out first. Small windows put many lines
// there.
TEST_CASE("a file read through its mapping gives the records its bytes do", "[io]") {
  std::string text = "{\"first\":1}\n";
  for (int i = 0; i < 3000; ++i) {
    text += "{\"i\":" + std::to_string(i) + ",\"t\":\"" + std::string(300 + i % 700, 'x') +
            "\\n\\\"q\\\" \\u00e9 \\ud800 caf\xC3\xA9\"}" + (i % 7 == 0 ? "\r\n" : "\n");
    if (i % 500 == 0) {
      text += "\n   \n\r\n{\"a\" 1}\n{\"nul\":\"a";
      text += '\0';
      text += "b\"}\n";
    }
    if (i % 300 == 0) {  // lines cut short before lines that would complete them
      text += "[\n1,2]\n{\"a\":\n1}\n{\"b\":\"c\r\n\"}\n{\"d\":tr\nue}\n  [1, \r\n 2 ]  \r\n";
    }
    if (i % 100 == 0) {  // short lines, ending at every offset of a window's end
      for (int j = 0; j < 40; ++j) {
        text += "{\"s\":\"" + std::string(j, 's') + "\"}\n";
      }
    }
  }
  text += "{\"long\":\"" + std::string(9u << 20, 'y') + "\"}\n";  // past an 8 MB window
  text += "[1,2,\n";                                                // cut short
  text += "{\"last\":true}";                                        // no newline
  TempFile file(text);
  RecordReader buffered(memory_source(text), file.path);
  const std::vector<Record> want = read_records(buffered);
  REQUIRE(want.size() > 3000);
  CHECK(want.back().raw == "{\"last\":true}");
  // (window, long-line size): the last makes most lines long, after blank lines too.
  const std::pair<std::size_t, std::size_t> settings[] = {
      {MappedFile::k_window, RecordReader::k_long_line},
      {4096, RecordReader::k_long_line},
      {65536 + 100, RecordReader::k_long_line},
      {65536, 600}};
  for (auto [window, long_line] : settings) {
    INFO("window " << window << ", long lines from " << long_line);
    WindowSize size(window);
    LongLineSize long_size(long_line);
    std::size_t mapped_bytes = 0;
    RecordReader mapped(std::make_unique<MappedCount>(open_input(file.path), mapped_bytes), file.path,
                        k_default_max_record_size, true);
    std::vector<Record> got = read_records(mapped);
    CHECK(mapped_bytes > text.size() - (std::size_t{2} << 20));  // all past the first read
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      INFO("record " << i << " at line " << want[i].where.line);
      CHECK(got[i].raw == want[i].raw);
      CHECK(got[i].where.line == want[i].where.line);
      CHECK(got[i].where.column == want[i].where.column);
      CHECK(got[i].error == want[i].error);
      CHECK(got[i].lone_surrogates == want[i].lone_surrogates);
      if (got[i].ok() && want[i].ok()) {
        CHECK(to_json(got[i].source->doc) == to_json(want[i].source->doc));
      }
    }
  }
}

// Lines cut short before lines that would complete them (a megabyte of array
// elements) are each an error of their own, read in the mapping with a large
// window and a small one. (That the parse stops at the newline, and reads no
// further, json_test.cc shows before an unreadable page: here a parse that went on
// would fail all the same when its text is looked at again.)
TEST_CASE("lines cut short before lines that would complete them are each an error, mapped or read", "[io]") {
  std::string text = "{\"first\":1}\n";
  while (text.size() < (std::size_t{3} << 20)) {
    text += "{\"t\":\"" + std::string(1000, 'u') + "\"}\n";
  }
  text += "[\n";
  for (int i = 0; i < 200000; ++i) {
    text += "1,\n";
  }
  text += "1]\n";
  TempFile file(text);
  // Read with read(2), then mapped with a large window and a small one.
  const std::pair<bool, std::size_t> ways[] = {
      {false, MappedFile::k_window}, {true, MappedFile::k_window}, {true, 4096}};
  for (auto [map, window] : ways) {
    INFO("mapped " << map << ", window " << window);
    WindowSize size(window);
    RecordReader reader(open_input(file.path), file.path, k_default_max_record_size, map);
    std::vector<Record> got = read_records(reader);
    std::size_t bad = 0;
    for (const Record& record : got) {
      if (!record.ok()) {
        ++bad;
        CHECK(record.where.column > 0);
      }
    }
    CHECK(bad == 200002);  // "[", each "1,", "1]"
  }
}

// A file that shrinks while it is read through its mapping raises SIGBUS on the
// pages it lost; convo must say so at the line, not die of the signal, nor pass
// the zeros off as records.
TEST_CASE("a mapped file that shrinks under the reader is an error, not a crash", "[io]") {
  std::string line = "{\"t\":\"" + std::string(1000, 'z') + "\"}\n";
  std::string text;
  while (text.size() < (std::size_t{24} << 20)) {
    text += line;
  }
  TempFile file(text);
  RecordReader reader(open_input(file.path), file.path, k_default_max_record_size, true);
  Record record;
  for (int i = 0; i < 10; ++i) {
    REQUIRE(reader.next(record));
  }
  REQUIRE(::truncate(file.path.c_str(), 3 << 20) == 0);
  std::size_t read = 10;
  try {
    while (reader.next(record)) {
      REQUIRE(record.ok());
      ++read;
    }
    FAIL("the file's shrinking went unnoticed");
  } catch (const Error& error) {
    CHECK_THAT(error.what(), Catch::Contains("shrank while convo read it"));
  }
  CHECK(read >= (std::size_t{3} << 20) / line.size() - 1);
}

TEST_CASE("a line past 1 MB with a NUL byte stops the run at the NUL, mapped or read", "[io]") {
  std::string text = "{\"first\":1}\n";
  while (text.size() < (std::size_t{3} << 20)) {
    text += "{\"t\":\"" + std::string(1000, 'w') + "\"}\n";
  }
  std::string line = "{\"t\":\"" + std::string(std::size_t{2} << 20, 'v') + "\"}";
  line[1500000] = '\0';
  text += line + "\n{\"after\":1}\n";
  TempFile file(text);
  for (bool map : {true, false}) {
    RecordReader reader(open_input(file.path), file.path, k_default_max_record_size, map);
    Record record;
    try {
      while (reader.next(record)) {
      }
      FAIL("the NUL went unnoticed");
    } catch (const Error& error) {
      CHECK_THAT(error.what(), Catch::Contains("NUL byte in JSON text"));
      CHECK(error.where().column == 1500001);
    }
  }
}

TEST_CASE("the progress count counts a mapped file's bytes once", "[io]") {
  std::string text;
  while (text.size() < (std::size_t{5} << 20)) {
    text += "{\"t\":\"" + std::string(700, 'p') + "\"}\n";
  }
  TempFile file(text);
  Progress progress;
  std::size_t mapped_bytes = 0;
  RecordReader reader(
      counted(std::make_unique<MappedCount>(open_input(file.path), mapped_bytes), &progress), file.path,
      k_default_max_record_size, true);
  CHECK(read_records(reader).size() == text.size() / 709);
  CHECK(mapped_bytes > 0);
  CHECK(progress.bytes.load() == text.size());
}

namespace {
class CountMessages final : public InputHandler {
 public:
  void message(Message&& message) override {
    (void)message;
    ++count;
  }
  std::size_t count = 0;
};
}  // namespace

// --mmap (ReadOptions::map_files) maps a large file; without it the file is read
// with read(2), the default (io/record_reader.h says why). Both give every message;
// that they give the same records, byte for byte, the test of the mapping above shows.
TEST_CASE("a file is read through a mapping only with map_files", "[io]") {
  std::string text;
  while (text.size() < (std::size_t{3} << 20)) {
    text += "{\"role\":\"user\",\"content\":\"" + std::string(900, 'm') + "\"}\n";
  }
  TempFile file(text);
  for (bool map : {false, true}) {
    INFO("map_files " << map);
    std::size_t mapped_bytes = 0;
    ReadOptions options;
    options.map_files = map;
    CountMessages handler;
    NullDiagnostics diagnostics;
    read_inputs({file.path}, options, handler, diagnostics, [&](const std::string& path) {
      return std::make_unique<MappedCount>(open_input(path), mapped_bytes);
    });
    CHECK(handler.count == text.size() / 929);
    CHECK((mapped_bytes > 0) == map);
  }
}
