#include <catch2/catch.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/json_out.h"
#include "json.h"
#include "utf8.h"

using namespace convo;

TEST_CASE("parse_json reads one value with whitespace around it", "[json]") {
  JsonDoc doc;
  REQUIRE_FALSE(parse_json("  {\"a\": [1, 2.5, \"x\"]}\t ", doc));
  CHECK(doc["a"][1].GetDouble() == 2.5);
}

TEST_CASE("parse_json reads an empty first string wherever it starts", "[json]") {
  // The copying scan found the empty string's end at once and copied its none
  // bytes to where a stack with nothing pushed yet points: null (undefined
  // behaviour, which UBSan reports, found by fuzz_record_reader).
  for (std::size_t offset = 0; offset < 64; ++offset) {
    const std::string text = std::string(offset, ' ') + R"({"":"","k":["",""]})";
    JsonDoc doc;
    INFO("offset " << offset);
    REQUIRE_FALSE(parse_json(text, doc));
    CHECK(to_json(doc) == R"({"":"","k":["",""]})");
  }
}

TEST_CASE("parse_json names the place and kind of a syntax error", "[json]") {
  JsonDoc doc;
  SECTION("missing comma") {
    auto error = parse_json(R"({"a": 1 "b": 2})", doc);
    REQUIRE(error);
    CHECK(error->offset == 8);
    CHECK(error->message == "expected ',' or '}'");
  }
  SECTION("truncated line") {
    auto error = parse_json(R"({"a": "unfinished)", doc);
    REQUIRE(error);
    CHECK(error->message == "unterminated string (truncated line?)");
  }
  SECTION("text after the value") {
    auto error = parse_json(R"({"a": 1} x)", doc);
    REQUIRE(error);
    CHECK(error->offset == 9);
    CHECK(error->message == "unexpected text after the JSON value");
  }
  SECTION("NUL byte") {
    std::string text("{\"a\": 1}\0{}", 11);
    auto error = parse_json(text, doc);
    REQUIRE(error);
    CHECK(error->offset == 8);
    CHECK(error->message == "NUL byte in JSON text");
  }
  SECTION("control character in a string") {
    auto error = parse_json("{\"a\": \"x\ty\"}", doc);
    REQUIRE(error);
    CHECK(error->message == "unescaped control character in string");
  }
  SECTION("number out of range") {
    auto error = parse_json(R"({"a": 1e999})", doc);
    REQUIRE(error);
    CHECK(error->message == "number out of range");
  }
}

TEST_CASE("parse_json refuses deep nesting instead of overflowing the stack", "[json]") {
  JsonDoc doc;
  std::string deep(200000, '[');
  deep += std::string(200000, ']');
  auto error = parse_json(deep, doc);
  REQUIRE(error);
  CHECK(error->message == "JSON nested deeper than 1000 levels");
  CHECK(error->offset == static_cast<std::size_t>(k_max_json_depth));

  std::string ok(k_max_json_depth, '[');
  ok += std::string(k_max_json_depth, ']');
  CHECK_FALSE(parse_json(ok, doc));
}

TEST_CASE("parse_json_prefix reads consecutive values", "[json]") {
  std::string text = "{\"a\":1}\n  [2]";
  JsonDoc doc;
  std::size_t consumed = 0;
  REQUIRE_FALSE(parse_json_prefix(text, doc, consumed));
  CHECK(consumed == 7);
  REQUIRE_FALSE(parse_json_prefix(std::string_view(text).substr(consumed), doc, consumed));
  CHECK(doc.IsArray());
}

TEST_CASE("full-precision numbers survive a round trip", "[json]") {
  JsonDoc doc;
  REQUIRE_FALSE(parse_json(R"({"cost":0.01,"big":12345678901234567,"neg":-0.1})", doc));
  CHECK(to_json(doc) == R"({"cost":0.01,"big":12345678901234567,"neg":-0.1})");
}

TEST_CASE("set_member and erase_member keep member order", "[json]") {
  JsonDoc doc;
  REQUIRE_FALSE(parse_json(R"({"a":1,"b":2,"c":3})", doc));
  set_member(doc, "b", JsonValue(20), doc.GetAllocator());
  set_member(doc, "d", JsonValue(4), doc.GetAllocator());
  erase_member(doc, "a");
  CHECK(to_json(doc) == R"({"b":20,"c":3,"d":4})");
}

TEST_CASE("accessors answer absent for wrong types", "[json]") {
  JsonDoc doc;
  REQUIRE_FALSE(parse_json(R"({"s":"x","n":1,"b":true})", doc));
  CHECK(string_member(doc, "s") == std::optional<std::string_view>("x"));
  CHECK_FALSE(string_member(doc, "n"));
  CHECK_FALSE(string_member(doc, "missing"));
  CHECK(bool_member(doc, "b") == std::optional<bool>(true));
  CHECK(find_member(doc["n"], "x") == nullptr);
}

TEST_CASE("json_assertion_failed turns misuse into an exception", "[json]") {
  JsonDoc doc;
  REQUIRE_FALSE(parse_json("1", doc));
  CHECK_THROWS_AS(doc.GetString(), std::logic_error);
}

TEST_CASE("control characters are escaped when written, ANSI escapes included", "[json]") {
  // Long enough for RapidJSON's 16-byte string scanning, with ESC at every offset.
  std::string text;
  for (int i = 0; i < 40; ++i) {
    text += "ab\x1b[2K\x1a\x1f";
  }
  convo::JsonDoc doc;
  doc.SetString(text.data(), static_cast<rapidjson::SizeType>(text.size()), doc.GetAllocator());
  std::string json = convo::to_json(doc);
  CHECK(json.find('\x1b') == std::string::npos);
  CHECK(json.find('\x1a') == std::string::npos);
  CHECK(json.find('\x1f') == std::string::npos);
  convo::JsonDoc back;
  REQUIRE_FALSE(convo::parse_json(json, back));
  CHECK(std::string(convo::view_of(back)) == text);
}

TEST_CASE("every character that needs escaping is escaped, wherever it is", "[json]") {
  for (int special = 0; special <= 0x22; ++special) {
    if (special == 0x20 || special == 0x21) {
      continue;
    }
    for (std::size_t at = 0; at < 40; ++at) {
      std::string text(48, 'x');
      text[at] = static_cast<char>(special);
      text[47 - at / 2] = '\\';
      convo::JsonDoc doc;
      doc.SetString(text.data(), static_cast<rapidjson::SizeType>(text.size()),
                    doc.GetAllocator());
      convo::JsonDoc back;
      INFO("character " << special << " at " << at);
      std::string json = convo::to_json(doc);
      // RapidJSON's SIMD reader would take some raw control characters back; the
      // writer must not rely on that.
      CHECK(std::none_of(json.begin(), json.end(),
                         [](char c) { return static_cast<unsigned char>(c) < 0x20; }));
      REQUIRE_FALSE(convo::parse_json(json, back));
      CHECK(std::string(convo::view_of(back)) == text);
    }
  }
}

// RapidJSON's writer without convo's string scan (json.h specializes it for
// JsonWriter only): the bytes convo's writer must give.
namespace {
using ReferenceWriter =
    rapidjson::Writer<rapidjson::StringBuffer, rapidjson::UTF8<>, rapidjson::UTF8<>,
                      rapidjson::CrtAllocator, rapidjson::kWriteNanAndInfFlag>;

template <typename Writer>
std::string written(const std::string& text) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartArray();
  w.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
  w.Key(text.data(), static_cast<rapidjson::SizeType>(text.size()));  // keys too
  w.EndArray();
  return std::string(buffer.GetString(), buffer.GetSize());
}
}  // namespace

TEST_CASE("strings are written byte for byte as RapidJSON's own writer escapes them", "[json]") {
  // Every byte value at every offset of strings of every length around the 16-byte
  // steps, next to a run of escapes, and long pseudo-random strings dense with them.
  for (std::size_t length = 0; length <= 50; ++length) {
    for (int byte = 0; byte < 256; ++byte) {
      for (std::size_t at = 0; at < length; at += (length > 20 ? 3 : 1)) {
        std::string text(length, 'x');
        text[at] = static_cast<char>(byte);
        if (at + 3 < length) {
          text[at + 1] = '\n';
          text[at + 2] = '"';
        }
        INFO("length " << length << ", byte " << byte << " at " << at);
        REQUIRE(written<JsonWriter>(text) == written<ReferenceWriter>(text));
      }
    }
  }
  std::uint32_t seed = 12345;
  for (int round = 0; round < 200; ++round) {
    std::string text;
    std::size_t length = (seed = seed * 1103515245 + 12345) % 5000;
    for (std::size_t i = 0; i < length; ++i) {
      seed = seed * 1103515245 + 12345;
      std::uint32_t r = seed >> 16;
      text += static_cast<char>(r % 7 == 0 ? r % 40 : r % 5 == 0 ? r % 256 : 'a' + r % 26);
    }
    INFO("round " << round);
    REQUIRE(written<JsonWriter>(text) == written<ReferenceWriter>(text));
  }
}

TEST_CASE("strings past the 64-byte step are written as RapidJSON's own writer escapes them",
          "[json]") {
  const int specials[] = {0x00, 0x08, 0x1A, 0x1F, 0x20, '"', '\\', 'x', 0x7F, 0x80, 0xFF};
  for (std::size_t length = 55; length <= 200; length += 1) {
    for (int byte : specials) {
      for (std::size_t at = 0; at < length; at += (length > 140 ? 7 : 1)) {
        std::string text(length, 'A');
        text[at] = static_cast<char>(byte);
        if (at + 70 < length) {
          text[at + 70] = '\n';  // a second escape in the next 64-byte step
        }
        INFO("length " << length << ", byte " << byte << " at " << at);
        REQUIRE(written<JsonWriter>(text) == written<ReferenceWriter>(text));
      }
    }
  }
}

namespace {
// `escape_json`'s output for `text`, checked to stay within its room (six bytes a
// byte) and to be what the byte-at-a-time escaper writes.
std::string escaped_checked(std::string_view text) {
  const std::size_t room = text.size() * 6;
  std::vector<char> out(room + 64, '#');
  std::vector<char> expected(room + 1);
  char* end = escape_json(out.data(), text.data(), text.data() + text.size());
  char* expected_end = escape_json_bytes(expected.data(), text.data(), text.data() + text.size());
  CHECK(std::all_of(out.begin() + static_cast<std::ptrdiff_t>(room), out.end(),
                    [](char c) { return c == '#'; }));  // nothing past the room
  std::string got(out.data(), end);
  CHECK(got == std::string(expected.data(), expected_end));
  return got;
}
}  // namespace

TEST_CASE("escape_json writes what the byte-at-a-time escaper writes, within its room", "[json]") {
  // Escapes at every pair of offsets of a few 64-byte steps (several in one step,
  // one at a step's last byte, runs of them), at every length of a string's tail,
  // and pseudo-random strings of every density.
  const char specials[] = {'"', '\\', '\n', '\x00', '\x1f', '\x1a', '\x7f', '\x80', '\xff'};
  for (std::size_t length : {16, 63, 64, 65, 79, 80, 81, 95, 96, 97, 127, 128, 150, 200}) {
    for (std::size_t i = 0; i < length; i += (length > 100 ? 3 : 1)) {
      for (std::size_t j = i; j < length; j += 5) {
        std::string text(length, 'a');
        text[i] = specials[(i + j) % 9];
        text[j] = specials[(i * 7 + j) % 9];
        INFO("length " << length << " at " << i << " and " << j);
        escaped_checked(text);
      }
    }
  }
  std::uint32_t seed = 2026;
  for (int round = 0; round < 3000; ++round) {
    std::string text;
    seed = seed * 1103515245 + 12345;
    std::size_t length = (seed >> 16) % (round % 10 == 0 ? 2000 : 150);
    unsigned density = 1 + round % 40;  // one byte in `density` needs escaping
    for (std::size_t i = 0; i < length; ++i) {
      seed = seed * 1103515245 + 12345;
      std::uint32_t r = seed >> 16;
      text += r % density == 0 ? specials[r % 9]
                               : static_cast<char>(r % 3 == 0 ? r % 256 : 'a' + r % 26);
    }
    INFO("round " << round);
    escaped_checked(text);
  }
  CHECK(escaped_checked("") == "");
  CHECK(escaped_checked("a\"b\\c\n\x01\x7f") == "a\\\"b\\\\c\\n\\u0001\x7f");
}

namespace {
// A page that can be read and written, followed by one that cannot: a load past
// `end()` kills the test. Unmapped when it goes.
class GuardedPage {
 public:
  GuardedPage() : m_size(static_cast<std::size_t>(sysconf(_SC_PAGESIZE))) {
    void* map =
        mmap(nullptr, 2 * m_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(map != MAP_FAILED);
    m_begin = static_cast<char*>(map);
    REQUIRE(mprotect(m_begin + m_size, m_size, PROT_NONE) == 0);
  }
  ~GuardedPage() { munmap(m_begin, 2 * m_size); }
  GuardedPage(const GuardedPage&) = delete;
  GuardedPage& operator=(const GuardedPage&) = delete;

  char* begin() const { return m_begin; }
  char* end() const { return m_begin + m_size; }
  std::size_t size() const { return m_size; }

 private:
  std::size_t m_size;
  char* m_begin = nullptr;
};
}  // namespace

TEST_CASE("escape_json reads no byte of the next page after a string's end", "[json]") {
  // A string that ends at the end of a page followed by one that cannot be read:
  // the tail's 16-byte load must not cross into it, at any length or offset.
  const GuardedPage page;
  char* const page_end = page.end();
  for (std::size_t length = 0; length <= 100; ++length) {
    for (char special : {'a', '"', '\n'}) {
      char* text = page_end - length;
      std::memset(text, 'x', length);
      if (length > 0) {
        text[length / 2] = special;
      }
      INFO("length " << length);
      escaped_checked(std::string_view(text, length));
    }
  }
}

TEST_CASE("a string written in pieces is the string of the pieces joined", "[json]") {
  const std::vector<std::string> pieces = {"",  "data:", "image/png", ";base64,",
                                           std::string(300, 'Q') + "\"\x01" + std::string(70, '+'),
                                           "\n", "\xC3\xA9"};
  for (std::size_t first = 0; first < pieces.size(); ++first) {
    for (std::size_t second = 0; second < pieces.size(); ++second) {
      rapidjson::StringBuffer joined_buffer;
      JsonWriter joined(joined_buffer);
      rapidjson::StringBuffer pieces_buffer;
      JsonWriter in_pieces(pieces_buffer);
      for (JsonWriter* w : {&joined, &in_pieces}) {
        w->StartObject();
        w->Key("a");
        w->Int(1);
        w->Key("url");
      }
      write_string(joined, pieces[first] + pieces[second]);
      write_string_pieces(in_pieces, {pieces[first], pieces[second]});
      for (JsonWriter* w : {&joined, &in_pieces}) {
        w->Key("b");
        w->StartArray();
      }
      write_string(joined, pieces[second]);
      write_string_pieces(in_pieces, {pieces[second]});
      write_string(joined, "");
      write_string_pieces(in_pieces, {});
      for (JsonWriter* w : {&joined, &in_pieces}) {
        w->EndArray();
        w->EndObject();
        CHECK(w->IsComplete());
      }
      INFO("pieces " << first << ", " << second);
      CHECK(std::string_view(pieces_buffer.GetString(), pieces_buffer.GetSize()) ==
            std::string_view(joined_buffer.GetString(), joined_buffer.GetSize()));
    }
  }
}

namespace {

// Every string and non-empty object of `value`, depth first.
void values_with_positions(const JsonValue& value, std::vector<const JsonValue*>& out) {
  if (value.IsString() || (value.IsObject() && value.MemberCount() > 0)) {
    out.push_back(&value);
  }
  if (value.IsObject()) {
    for (const auto& member : value.GetObject()) {
      values_with_positions(member.value, out);
    }
  } else if (value.IsArray()) {
    for (const JsonValue& element : value.GetArray()) {
      values_with_positions(element, out);
    }
  }
}

// How many values of `raw`, read as the reader reads a line, json_as_read gives
// bytes for; every one of them must be what to_json writes. Parsed in place and
// into a shadow (as the reader parses), which must give the same bytes.
std::size_t as_read_count(const std::string& raw) {
  std::string text = raw;
  JsonDoc doc;
  REQUIRE(parse_json_in_place(text, doc));
  std::vector<const JsonValue*> values;
  values_with_positions(doc, values);
  std::string padded = raw;
  padded.append(k_json_parse_padding, '\0');
  std::vector<char> shadow(raw.size() + k_json_parse_padding);
  JsonDoc shadowed;
  std::size_t lone = 0;
  REQUIRE(parse_json_shadowed(std::string_view(padded.data(), raw.size()), shadow.data(), shadowed,
                              lone));
  std::vector<const JsonValue*> shadowed_values;
  values_with_positions(shadowed, shadowed_values);
  REQUIRE(shadowed_values.size() == values.size());
  std::size_t found = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::string_view bytes = json_as_read(*values[i], text, raw);
    INFO(raw << " -> " << bytes);
    CHECK(json_as_read(*shadowed_values[i], std::string_view(shadow.data(), raw.size()), raw) ==
          bytes);
    if (!bytes.empty()) {
      CHECK(bytes == to_json(*values[i]));
      ++found;
    }
  }
  return found;
}

}  // namespace

TEST_CASE("json_as_read gives a value's source bytes only when they are as written", "[json]") {
  // Compact, the writer's escapes, integers: every object and string.
  CHECK(as_read_count(R"({"a":1,"b":[true,null,"x",{"c":-12}],"d":{"e":"f\"g\\h\n\u001F"}})") ==
        5);
  CHECK(as_read_count(R"({"":"","k":[],"o":{}})") == 2);  // the record and its ""
  // Spelled otherwise: whitespace, `\/`, lower-case or needless \u, -0, a fraction.
  CHECK(as_read_count(R"({"a": 1})") == 0);
  CHECK(as_read_count(R"({"a":"\/"})") == 0);
  CHECK(as_read_count(R"({"a":"\u001f"})") == 0);
  CHECK(as_read_count(R"({"a":"\u000A"})") == 0);
  CHECK(as_read_count(R"({"a":"\u00e9"})") == 0);
  CHECK(as_read_count(R"({"a":-0})") == 0);
  CHECK(as_read_count(R"({"a":1.5})") == 0);
  CHECK(as_read_count(R"({"a":1e3})") == 0);
  CHECK(as_read_count(R"({"a":12345678901234567890})") == 0);
  // The parts spelled as written still are, beside parts that are not.
  CHECK(as_read_count(R"({"a":{"b":"c"},"d":{"e": 1}})") == 2);  // {"b":"c"} and "c"
  // Long strings, escapes that add more than 255 bytes, nesting, arrays of objects.
  const std::string long_text(300, 'x');
  std::string escapes;
  for (int i = 0; i < 300; ++i) {
    escapes += "\\n\\\"";
  }
  CHECK(as_read_count(R"({"a":")" + long_text + R"(","b":")" + escapes + R"(","c":[{"d":")" +
                      escapes + long_text + R"("},[],"e"]})") == 6);
  CHECK(as_read_count(R"({"a":[{"b":"\/"},{"c":"d"}],"e":"\u001F\u0001"})") == 3);
  // A value not parsed from the text given has no bytes.
  JsonDoc doc;
  REQUIRE_FALSE(parse_json(R"({"a":"b"})", doc));
  CHECK(json_as_read(doc, R"({"a":"b"})", R"({"a":"b"})").empty());
  // A lone surrogate half (the reader's text has U+FFFD's escape there): spelled otherwise.
  std::string raw = R"({"a":"x\ud800y"})";
  std::string text = raw;
  replace_lone_surrogates(text);
  JsonDoc lone;
  REQUIRE(parse_json_in_place(text, lone));
  CHECK(json_as_read(lone, text, raw).empty());
  CHECK(json_as_read(lone["a"], text, raw).empty());
}

TEST_CASE("json_valid_as_written is true only for JSON text to_json gives back", "[json]") {
  for (std::string text :
       {R"({"a":1,"b":[true,null,"x",{"c":-12}]})", R"({"k":"\t\u001F\"\\"})", R"([])",
        R"("x")", R"({"a": 1})", R"({"a":"\/"})", R"({"a":"\u001f"})", R"({"a":1.5})",
        R"({"a":-0})", R"({"a":1e2})", " {}", R"({"a":123456789012345678})",
        R"({"a":1234567890123456789})", R"({})", R"([[],{},[{}]])", R"(0)", R"(-1)"}) {
    JsonDoc doc;
    REQUIRE_FALSE(parse_json(text, doc));
    INFO(text);
    if (json_valid_as_written(text)) {
      CHECK(to_json(doc) == text);
    }
  }
  CHECK(json_valid_as_written(R"({"a":1,"b":[true,null,"x",{"c":-12}]})"));
  CHECK(json_valid_as_written(R"({"k":"\t\u001F\"\\"})"));
  CHECK(json_valid_as_written(R"([[],{},[{}],"",0])"));
  CHECK_FALSE(json_valid_as_written(R"({"a": 1})"));
  CHECK_FALSE(json_valid_as_written(R"({"a":1.5})"));  // the writer's may differ: not said
  // Not JSON at all: never as written (the parse would refuse it).
  for (const std::string& bad : std::vector<std::string>{
           R"({"a":})", R"({"a":1,})", R"({"a":01})", R"({"a":-01})", R"({"a"1})", R"({"a":1)",
        R"({"a":"x)", R"({"a":"x"}x)", R"({"a":"x"}})", R"({1:2})", R"([1,])", R"([,1])",
        R"({"a":tru})", R"({"a":"\x"})", R"({"a":"\u12"})", R"({"a":[1}})", R"({"a":{1]})",
        R"(})", R"()", "{\"a\":\"\x01\"}", "{\"a\":\"\t\"}", std::string("{\"a\":\"\0\"}", 8),
        R"({"a":-})"}) {
    INFO(bad);
    JsonDoc doc;
    CHECK(parse_json(bad, doc));
    CHECK_FALSE(json_valid_as_written(bad));
  }
  // Nested as deep as the parse reads, and one deeper.
  const std::string deep = std::string(k_max_json_depth, '[') + std::string(k_max_json_depth, ']');
  CHECK(json_valid_as_written(deep));
  CHECK_FALSE(json_valid_as_written("[" + deep + "]"));
  JsonDoc doc;
  CHECK(parse_json("[" + deep + "]", doc));
}

TEST_CASE("json_text_type answers for the text json_object_as_written last parsed", "[json]") {
  const std::string object = R"({"input":"a\nb","n":[1,2]})";
  REQUIRE(json_object_as_written(object) == true);
  CHECK(json_text_type(object) == rapidjson::kObjectType);
  // The same size, other bytes: parsed, not taken from the last answer.
  std::string broken = object;
  broken.back() = ']';
  CHECK_FALSE(json_text_type(broken));
  std::string array = "[" + object.substr(1, object.size() - 2) + "]";
  CHECK_FALSE(json_text_type(array));
  CHECK(json_text_type(R"([1,2])") == rapidjson::kArrayType);
  // A text spelled otherwise is still an object, parsed again.
  REQUIRE(json_object_as_written(R"({"a": 1})") == false);
  CHECK(json_text_type(R"({"a": 1})") == rapidjson::kObjectType);
  CHECK(json_text_type(object) == rapidjson::kObjectType);
  REQUIRE_FALSE(json_object_as_written("[1]"));
  CHECK(json_text_type("[1]") == rapidjson::kArrayType);
}

TEST_CASE("json_object_as_written tells compact objects from other spellings", "[json]") {
  CHECK(json_object_as_written(R"({"a":1,"b":[true,null,"x"],"c":{"d":1.5}})") == true);
  CHECK(json_object_as_written("{}") == true);
  CHECK(json_object_as_written(R"({"a": 1})") == false);
  CHECK(json_object_as_written(R"( {"a":1})") == false);
  CHECK(json_object_as_written("{\"a\":1}\n") == false);  // whitespace after: respelled
  CHECK(json_object_as_written(R"({"a":"\u00e9"})") == false);
  CHECK(json_object_as_written(R"({"a":"\/"})") == false);
  CHECK(json_object_as_written(R"({"a":1.0e2})") == false);
  CHECK(json_object_as_written(R"({"a":"\u001b"})") == false);  // written \u001B
  CHECK(json_object_as_written(R"({"a":"\u001B"})") == true);
  CHECK(json_object_as_written(R"({"a":1,"a":2})") == true);  // kept as it is, twice
  CHECK_FALSE(json_object_as_written("[1]"));
  CHECK_FALSE(json_object_as_written("\"x\""));
  CHECK_FALSE(json_object_as_written(""));
  CHECK_FALSE(json_object_as_written(R"({"a":1)"));
  CHECK_FALSE(json_object_as_written(R"({"a":1} x)"));
  CHECK_FALSE(json_object_as_written(std::string("{\"a\":1}\0", 8)));
  CHECK_FALSE(json_object_as_written(R"({"a":"\ud800"})"));
  std::string deep = std::string(1001, '[') + std::string(1001, ']');
  CHECK_FALSE(json_object_as_written("{\"a\":" + deep + "}"));
  // The same answer as parsing the object and writing it back, on every spelling.
  for (std::string text : {R"({"x":[1,2,{"y":"z"}]})", R"({"x":-0})",
                           R"({"x":12345678901234567890})", R"({"x":0.1})", R"({"k":"\t"})"}) {
    JsonDoc doc;
    REQUIRE_FALSE(parse_json(text, doc));
    INFO(text);
    CHECK(json_object_as_written(text) == (to_json(doc) == text));
  }
}

TEST_CASE("json_spelling tells spaced JSON from other spellings, and nothing invalid", "[json]") {
  CHECK(json_spelling(R"({"a":1,"b":[true,null,"x"]})") == JsonSpelling::as_written);
  // Whitespace wherever JSON allows it; only before a colon does the scan not look.
  const std::pair<std::string, JsonSpelling> spellings[] = {
      {R"({"a": 1})", JsonSpelling::spaced},
      {R"({"a":1, "b":[true, null, "x"]})", JsonSpelling::spaced},
      {" {}", JsonSpelling::spaced},
      {"{}\n", JsonSpelling::spaced},
      {"[ ]", JsonSpelling::spaced},
      {"{\n  \"a\": {\n    \"b\": [1,\t2]\r\n  }\n}", JsonSpelling::spaced},
      {R"({"redacted": true, "message": "Function call arguments removed"})", JsonSpelling::spaced},
      {R"({ "k" :1})", JsonSpelling::unknown},
  };
  for (const auto& [text, expected] : spellings) {
    INFO(text);
    JsonDoc doc;
    REQUIRE_FALSE(parse_json(text, doc));
    CHECK(json_spelling(text) == expected);
    CHECK(to_json(doc) != text);  // none comes back as it is
    if (text[text.find_first_not_of(" \n\r\t")] == '{') {
      CHECK(json_object_as_written(text) == false);  // an object, respelled
    }
  }
  CHECK(json_spelling(R"({"a": 1.5})") == JsonSpelling::unknown);  // not the writer's number
  CHECK(json_spelling(R"({"a": "\/"})") == JsonSpelling::unknown);
  // Not JSON, spaced or not: never said to be either.
  for (std::string bad :
       {R"({"a": })", R"({"a": 1, })", R"({"a": 01})", R"({"a" 1})", R"({"a": 1)",
        R"({"a": "x"} x)", R"({"a": 1} })", R"([1, ])", R"([ , 1])", R"({"a": tru})", "  ", "",
        R"({"a": "x"}, )", "{\"a\": \"\x01\"}", R"({ 1: 2})"}) {
    INFO(bad);
    JsonDoc doc;
    CHECK(parse_json(bad, doc));
    CHECK(json_spelling(bad) == JsonSpelling::unknown);
    CHECK_FALSE(json_object_as_written(bad));
  }
}

TEST_CASE("parse_json_in_place unescapes strings of every length and escape pattern", "[json]") {
  // The in-place parse scans strings 16 bytes at a time from any offset; these
  // strings put escapes, multi-byte characters and the end of the string at every
  // position of those blocks, and compare with what was written.
  const std::vector<std::string> pieces = {
      "a",  "bc",   "\xc3\xa9", "\xf0\x9f\x98\x80", "\n", "\"", "\\",
      "\t", "\x1b", "/",        "xxxxxxxxxxxxxxxx"};
  std::uint32_t state = 12345;
  auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  for (int round = 0; round < 3000; ++round) {
    std::string text;
    const std::size_t parts = next() % 40;
    for (std::size_t i = 0; i < parts; ++i) {
      text += pieces[next() % pieces.size()];
    }
    convo::JsonDoc doc;
    doc.SetObject();
    doc.AddMember("k", convo::JsonValue(text.data(), static_cast<rapidjson::SizeType>(text.size()),
                                       doc.GetAllocator()),
                  doc.GetAllocator());
    std::string json = convo::to_json(doc);
    json.shrink_to_fit();  // no spare capacity: the parse must make its own room
    INFO("round " << round << ": " << json);
    convo::JsonDoc back;
    REQUIRE(convo::parse_json_in_place(json, back));
    CHECK(std::string(convo::view_of(back["k"])) == text);
  }
}

TEST_CASE("parse_json_in_place refuses raw control characters in strings, wherever they are",
          "[json]") {
  for (int control = 1; control < 0x20; ++control) {
    for (std::size_t at = 1; at < 40; ++at) {
      std::string json = "\"" + std::string(48, 'x') + "\"";
      json[at] = static_cast<char>(control);
      if (at > 20) {
        json[at / 3 + 1] = '\\';  // an escape before it: the copying scan
        json[at / 3 + 2] = 'n';
      }
      INFO("character " << control << " at " << at);
      convo::JsonDoc doc;
      CHECK_FALSE(convo::parse_json_in_place(json, doc));
      CHECK(convo::parse_json(json, doc));  // and the error parse says so too
    }
  }
}

TEST_CASE("lone surrogate escapes become U+FFFD, pairs and other escapes stay", "[json]") {
  std::string text = R"({"a":"x\ud83d","b":"\ud83d\ude00","c":"\\ud800","d":"\udc00\u0041"})";
  CHECK(replace_lone_surrogates(text) == 2);
  CHECK(text == R"({"a":"x\ufffd","b":"\ud83d\ude00","c":"\\ud800","d":"\ufffd\u0041"})");
}

TEST_CASE("lone surrogates are found wherever they fall in the 64- and 16-byte steps",
          "[json]") {
  // A lone half, a pair and an escaped backslash before "u" at every offset of
  // lines around the steps' sizes, with or without other backslashes before them.
  for (std::size_t length = 8; length <= 160; length += 7) {
    for (std::size_t at = 0; at + 6 <= length; ++at) {
      for (const bool noise : {false, true}) {
        std::string base(length, 'x');
        if (noise && at > 2) {
          base[at / 2] = '\\';
          base[at / 2 + 1] = 'n';
        }
        INFO("length " << length << ", at " << at << (noise ? ", after \\n" : ""));
        std::string lone = base;
        lone.replace(at, 6, "\\ud800");
        CHECK(count_lone_surrogates(lone) == 1);
        CHECK(replace_lone_surrogates(lone) == 1);
        CHECK(lone.substr(at, 6) == "\\ufffd");
        if (at + 12 <= length) {
          std::string pair = base;
          pair.replace(at, 12, "\\ud83d\\ude00");
          CHECK(count_lone_surrogates(pair) == 0);
        }
        if (at + 7 <= length) {
          std::string escaped = base;
          escaped.replace(at, 7, "\\\\ud800");
          CHECK(count_lone_surrogates(escaped) == 0);
        }
      }
    }
  }
}

TEST_CASE("parse_json and json_text_type agree with the in-place parse on strings of every pattern",
          "[json]") {
  // parse_json scans strings 16 bytes at a time from aligned addresses, and
  // json_text_type parses a padded copy in place; both must read what the in-place
  // parse reads, raw control characters refused.
  const std::vector<std::string> pieces = {"a",  "bc", "\xc3\xa9", "\\n", "\\\"", "\\\\",
                                           "\\u00e9", "\x1a", "\x1f", "\x01",
                                           "xxxxxxxxxxxxxxxx"};
  std::uint32_t state = 777;
  auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  for (int round = 0; round < 3000; ++round) {
    std::string text = "{\"k\":\"";
    const std::size_t parts = next() % 40;
    for (std::size_t i = 0; i < parts; ++i) {
      text += pieces[next() % pieces.size()];
    }
    text += next() % 5 == 0 ? "\"" : "\"}";
    std::string in_place = text;
    convo::JsonDoc a;
    convo::JsonDoc b;
    const bool ok = convo::parse_json_in_place(in_place, a);
    INFO(text);
    REQUIRE(!convo::parse_json(text, b) == ok);
    CHECK(convo::json_text_type(text).has_value() == ok);
    if (ok) {
      CHECK(convo::to_json(a) == convo::to_json(b));
      CHECK(convo::json_text_type(text) == rapidjson::kObjectType);
    }
  }
  CHECK(convo::json_text_type(" [1, {\"a\": null}] ") == rapidjson::kArrayType);
  CHECK(convo::json_text_type("\"x\"") == rapidjson::kStringType);
  CHECK(convo::json_text_type("12") == rapidjson::kNumberType);
  CHECK_FALSE(convo::json_text_type(""));
  CHECK_FALSE(convo::json_text_type("{} x"));
  CHECK_FALSE(convo::json_text_type(std::string("{}\0", 3)));
  CHECK_FALSE(convo::json_text_type(std::string(1001, '[') + std::string(1001, ']')));
  CHECK(convo::json_text_type(std::string(1000, '[') + std::string(1000, ']')) ==
        rapidjson::kArrayType);
}

// Byte-at-a-time reference for find_invalid_utf8's block skipping: the first byte
// that does not begin a well-formed sequence (Unicode 15, table 3-7).
static std::optional<std::size_t> first_invalid_utf8(const std::string& text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  std::size_t i = 0;
  while (i < text.size()) {
    unsigned c = p[i];
    std::size_t length = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
                                                                   : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (length == 0 || i + length > text.size()) {
      return i;
    }
    unsigned low = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
    unsigned high = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
    for (std::size_t k = 1; k < length; ++k) {
      unsigned b = p[i + k];
      if (k == 1 ? (b < low || b > high) : (b & 0xC0) != 0x80) {
        return i;
      }
    }
    i += length;
  }
  return std::nullopt;
}

// Bytes (a record's raw bytes) ended where the text ends, with nothing after it: a
// text of ASCII to a 64-byte step's end was read one byte past it (ASan).
TEST_CASE("find_invalid_utf8 reads nothing past the end of its text", "[utf8]") {
  for (std::size_t length : {16, 64, 128, 320}) {
    auto bytes = std::make_unique<char[]>(length);
    std::fill_n(bytes.get(), length, 'a');
    CHECK_FALSE(find_invalid_utf8(std::string_view(bytes.get(), length)));
  }
}

TEST_CASE("find_invalid_utf8 finds the first bad byte wherever it falls in the 64- and 16-byte steps",
          "[utf8]") {
  const std::vector<std::string> pieces = {"\xC3\xA9", "\xE2\x94\x80", "\xF0\x9F\x98\x80", "\xFF",
                                           "\xC3",     "\xED\xA0\x80", "\xE0\x80\x80",     "\x80"};
  for (std::size_t length : {0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 200}) {
    for (std::size_t at = 0; at <= length; at += (length > 20 ? 7 : 1)) {
      for (const std::string& piece : pieces) {
        std::string text(length, 'a');
        text.insert(at, piece);
        INFO("length " << length << ", at " << at << ", piece of " << piece.size());
        CHECK(find_invalid_utf8(text) == first_invalid_utf8(text));
        text.append(std::string(70, 'b'));
        CHECK(find_invalid_utf8(text) == first_invalid_utf8(text));
      }
    }
  }
}

// A line in a file's mapping is parsed where it is: followed by its newline and the
// next lines, not by a NUL. The parse must stop at the newline even where the next
// lines would complete the value, and so never read on to the end of the mapping:
// here a page that cannot be read, which would kill the test.
TEST_CASE("a shadowed parse of a line stops at its newline", "[json]") {
  const GuardedPage guarded;
  const std::size_t page = guarded.size();
  char* const memory = guarded.begin();
  auto parse_line = [&](std::string_view line, std::string_view next) {
    // The line, its newline, then `next` repeated to the unreadable page.
    std::string bytes(line);
    bytes += '\n';
    while (bytes.size() < page) {
      bytes += next;
    }
    bytes.resize(page);
    std::memcpy(memory, bytes.data(), page);
    std::vector<char> shadow(line.size() + k_json_parse_padding);
    JsonDoc doc;
    std::size_t lone = 0;
    return parse_json_shadowed(std::string_view(memory, line.size()), shadow.data(), doc, lone);
  };
  for (std::string_view cut : {"[", "[1,", "{\"a\":", "{\"a\"", "{", "{\"a\":tr", "[1 ", "[\r"}) {
    INFO(cut);
    CHECK_FALSE(parse_line(cut, "1,"));
    CHECK_FALSE(parse_line(cut, " "));
    CHECK_FALSE(parse_line(cut, "\"a\":1,"));
  }
  CHECK_FALSE(parse_line("{\"a\":\"x", "yz"));
  CHECK(parse_line("12", "34"));  // a number ends at the newline, not in the digits after it
  CHECK(parse_line("{\"a\":[1,true]}", "1,"));
  CHECK(parse_line("{\"a\":1}  \r", "1,"));
}

namespace {

// `text` parsed by parse_json_shadowed from a copy followed by a NUL and bytes
// that are not zeros, which it must leave as it was: the document as JSON, or
// nullopt when the parse fails. Every string is at its own offset in the shadow.
std::optional<std::string> parsed_apart(std::string_view text, std::size_t* lone = nullptr) {
  std::string padded(text);
  padded.push_back('\0');
  padded.append(k_json_parse_padding - 1, '"');
  const std::string before = padded;
  std::vector<char> shadow(text.size() + k_json_parse_padding, '\x7f');
  JsonDoc doc;
  std::size_t lone_surrogates = 0;
  bool ok = parse_json_shadowed(std::string_view(padded.data(), text.size()), shadow.data(), doc,
                                lone_surrogates);
  CHECK(padded == before);  // only read
  if (!ok) {
    return std::nullopt;
  }
  if (lone != nullptr) {
    *lone = lone_surrogates;
  }
  // Every string is in the shadow just past where its opening quote was read.
  std::function<void(const JsonValue&)> check_place = [&](const JsonValue& value) {
    if (value.IsString()) {
      const char* at = value.GetString();
      REQUIRE(at > shadow.data());
      REQUIRE(at <= shadow.data() + text.size());
      CHECK(text[static_cast<std::size_t>(at - shadow.data()) - 1] == '"');
    } else if (value.IsObject()) {
      for (const auto& member : value.GetObject()) {
        check_place(member.name);
        check_place(member.value);
      }
    } else if (value.IsArray()) {
      for (const auto& element : value.GetArray()) {
        check_place(element);
      }
    }
  };
  check_place(doc);
  return to_json(doc);
}

}  // namespace

TEST_CASE("parse_json_shadowed reads as parse_json does and leaves its text as it was",
          "[json]") {
  for (std::string_view text : {
           R"({"a":"plain","b":"esc\"aped\\ \n\t\u00e9\ud83d\ude00","c":[1,-2.5,1e300,true,null]})",
           R"(["",{"":""},"x"])",
           R"(  {"k" : "v" , "n" : 12345678901234567890 , "o" : {"deep":["s",0]}}  )",
           R"("a root string")",
           R"(42)",
           R"({"long":"0123456789abcdef0123456789abcdef0123456789abcdef","t":"\"\"\"\""})",
       }) {
    INFO(text);
    JsonDoc expected;
    REQUIRE_FALSE(parse_json(text, expected));
    auto got = parsed_apart(text);
    REQUIRE(got);
    CHECK(*got == to_json(expected));
  }
  for (std::string_view bad : {R"({"a":"b")", R"({"a":"b"} x)", R"({"a":"\x"})", "{\"a\":\"\x01\"}"}) {
    INFO(bad);
    CHECK_FALSE(parsed_apart(bad));
  }
}

TEST_CASE("long clean runs parse alike at every alignment and end, shadowed and in place",
          "[json]") {
  // Past 1 KB of clean bytes the scan goes 64 at a time (AVX-512BW where the CPU
  // has it, json_wide.cc), from an aligned block: runs of every length around a
  // few such blocks past that, started at every offset of one, ended by each kind
  // of byte that ends a run, must read as the byte-wise parse reads them.
  const std::vector<std::string> ends = {"\",\"", "\\n", "\\\"", "\\u00e9", "\\/", "\xc3\xa9"};
  for (std::size_t offset = 0; offset < 64; offset += 7) {
    for (std::size_t run = 1000; run <= 1300; run += (run < 1240 ? 1 : 13)) {
      for (const std::string& end : ends) {
        std::string value(run, 'x');
        value[run / 3] = static_cast<char>('a' + run % 26);
        const std::string text = std::string(offset, ' ') + "[\"" + value + end + "tail\"]";
        INFO("offset " << offset << ", run " << run << ", end " << end);
        JsonDoc expected;
        REQUIRE_FALSE(parse_json(text, expected));
        auto shadowed = parsed_apart(text);
        REQUIRE(shadowed);
        CHECK(*shadowed == to_json(expected));
        std::string in_place = text;
        JsonDoc back;
        REQUIRE(parse_json_in_place(in_place, back));
        CHECK(to_json(back) == to_json(expected));
      }
    }
  }
  // A raw control character after a long run is still refused.
  for (std::size_t run = 1000; run <= 1100; ++run) {
    std::string text = "[\"" + std::string(run, 'x') + "\x01\"]";
    INFO("run " << run);
    CHECK_FALSE(parsed_apart(text));
    CHECK_FALSE(parse_json_in_place(text, *std::make_unique<JsonDoc>()));
  }
}

TEST_CASE("the string scan reads no page past its text's padding", "[json]") {
  // A text whose padding ends at the end of a page followed by one that cannot be
  // read, its last string long (the 64-byte steps past 1 KB) and ending at every
  // place.
  const GuardedPage page;
  char* const page_end = page.end();
  for (std::size_t run = 1000; run <= 1200; ++run) {
    const std::string text = "[\"" + std::string(run, 'y') + "\"]";
    char* at = page_end - k_json_parse_padding - text.size();
    std::memcpy(at, text.data(), text.size());
    std::memset(at + text.size(), 0, k_json_parse_padding);
    std::vector<char> shadow(text.size() + k_json_parse_padding);
    JsonDoc doc;
    std::size_t lone = 0;
    INFO("run " << run);
    REQUIRE(parse_json_shadowed(std::string_view(at, text.size()), shadow.data(), doc, lone));
    CHECK(view_of(doc[0]) == std::string(run, 'y'));
  }
}

TEST_CASE("strings dense in escapes parse alike at every alignment and end, shadowed and in place",
          "[json]") {
  // After a string's first escape, a shadowed parse unescapes 64 bytes a step
  // (AVX-512 where the CPU has it, json_wide.cc): escapes of every kind and runs of
  // backslashes at every place of those steps (one at a step's last byte among
  // them), and every way a string ends, must read as the in-place parse reads them,
  // with the same marks for json_as_read.
  const std::vector<std::string> pieces = {"a",
                                           "bcdefgh",
                                           "\\n",
                                           "\\\"",
                                           "\\\\",
                                           "\\\\\\\\",
                                           "\\\\\\\"",
                                           "\\t",
                                           "\\/",
                                           "\\b",
                                           "\\f",
                                           "\\r",
                                           "\\u001B",
                                           "\\u00e9",
                                           "\\ud83d\\ude00",
                                           "\xc3\xa9",
                                           "\xf0\x9f\x98\x80",
                                           "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"};
  const std::vector<std::string> ends = {"\"", "\\u0041\"", "\\/\"", "\\\\\""};
  std::uint32_t state = 2026;
  auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  for (int round = 0; round < 4000; ++round) {
    std::string value = "\\n";  // the first escape: the rest is the wide loop's
    const std::size_t parts = next() % 60;
    for (std::size_t i = 0; i < parts; ++i) {
      value += pieces[next() % pieces.size()];
    }
    const std::string raw = std::string(next() % 64, ' ') + "{\"k\":\"" + value +
                            ends[next() % ends.size()] + ",\"n\":\"x\\ny\"}";
    INFO("round " << round << ": " << raw);
    JsonDoc expected;
    REQUIRE_FALSE(parse_json(raw, expected));
    const auto shadowed = parsed_apart(raw);
    REQUIRE(shadowed);
    CHECK(*shadowed == to_json(expected));
    as_read_count(raw);  // the shadow's marks say what the in-place scan says
  }
  // What is not JSON after escapes is still refused: a raw control character, an
  // unknown escape, an escape cut by the text's end.
  for (std::size_t run = 0; run < 140; ++run) {
    std::string value;
    for (std::size_t i = 0; i < run; ++i) {
      value += i % 5 == 0 ? "\\n" : "x";
    }
    for (std::string_view bad : {"\x01", "\x1f", "\\x", "\\\x01", "\\u12"}) {
      const std::string text = "[\"\\\"" + value + std::string(bad) + "\"]";
      INFO("run " << run << ", " << text);
      CHECK_FALSE(parsed_apart(text));
    }
  }
}

TEST_CASE("the unescaping scan stays in its text's pages and its shadow's room", "[json]") {
  // A text dense in escapes whose padding ends at a page followed by one that cannot
  // be read, parsed into a shadow with no room past its own that ends likewise: no
  // load may cross into the text's next page, no store past the shadow's end.
  const GuardedPage text_page;
  const GuardedPage shadow_page;
  for (std::size_t run = 0; run <= 600; ++run) {
    // Escapes every few bytes, then clean runs (wide after 64 clean bytes).
    std::string value = run <= 300 ? "\\\"" : "";
    for (std::size_t i = 0; i < run % 301; ++i) {
      value += run <= 300 && i % 7 == 3 ? "\\n" : (run <= 300 && i % 11 == 5 ? "\\\\" : "z");
    }
    const std::string text = "[\"" + value + "\"]";
    char* at = text_page.end() - k_json_parse_padding - text.size();
    std::memcpy(at, text.data(), text.size());
    std::memset(at + text.size(), 0, k_json_parse_padding);
    char* shadow = shadow_page.end() - text.size() - k_json_parse_padding;
    JsonDoc doc;
    std::size_t lone = 0;
    INFO("run " << run);
    REQUIRE(parse_json_shadowed(std::string_view(at, text.size()), shadow, doc, lone));
    JsonDoc expected;
    REQUIRE_FALSE(parse_json(text, expected));
    CHECK(to_json(doc) == to_json(expected));
  }
}

TEST_CASE("parse_json_shadowed reads a lone surrogate escape as U+FFFD, as "
          "replace_lone_surrogates makes it", "[json]") {
  // Lone halves in values and keys, next to pairs, escaped backslashes and other
  // escapes; at the text's end and before its NUL.
  for (std::string_view text : {
           R"({"a":"cut \ud83d"})",
           R"({"a":"\udc00 low first"})",
           R"({"\ud800key":"v"})",
           R"(["\ud800\ud800\udc00","\ud83d\ude00\ud83d","\\ud800","\\\ud800"])",
           R"(["\ud800\u0041","\ud800\","x\ud800\n\ud800\udbff"])",
           R"("\ud800")",
           R"({"a":"no escapes","b":"\u00e9\n"})",
       }) {
    INFO(text);
    std::string replaced(text);
    const std::size_t expected_lone = replace_lone_surrogates(replaced);
    JsonDoc expected;
    const bool valid = !parse_json(replaced, expected);
    std::size_t lone = 0;
    auto got = parsed_apart(text, &lone);
    REQUIRE(got.has_value() == valid);
    if (valid) {
      CHECK(*got == to_json(expected));
      CHECK(lone == expected_lone);
    }
  }
}
