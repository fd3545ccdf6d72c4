#include <catch2/catch.hpp>

#include "python_repr.h"

using namespace convo;

namespace {

std::size_t repr_of(const char* json) {
  JsonDoc doc;
  REQUIRE_FALSE(parse_json(json, doc));
  return python_repr_length(doc);
}

}  // namespace

// Every expected length below is CPython 3.11's len(repr(json.loads(text))).
TEST_CASE("python_repr: strings pick their quote and escape what Python escapes",
          "[python_repr]") {
  CHECK(repr_of(R"("plain")") == 7);
  CHECK(repr_of(R"("it\u0027s")") == 6);               // "it's"
  CHECK(repr_of(R"("say \"hi\"")") == 10);             // 'say "hi"'
  CHECK(repr_of(R"("both \u0027 and \"")") == 15);     // 'both \' and "'
  CHECK(repr_of(R"("tab\t nl\n cr\r bell\u0007 del\u007f")") == 34);
  CHECK(repr_of(R"("back\\slash")") == 13);
  CHECK(repr_of(R"("caf\u00e9 \u65e5\u672c")") == 9);  // printable non-ASCII is one each
  CHECK(repr_of(R"("\ud83d\ude00")") == 3);             // an emoji is one code point
  CHECK(repr_of(R"("nbsp\u00a0 shy\u00ad zwsp\u200b ls\u2028")") == 38);
  CHECK(repr_of(R"("\u0085")") == 6);        // \x85
  CHECK(repr_of(R"("\ue000")") == 8);        // private use: \ue000
  CHECK(repr_of(R"("\udb40\udc01")") == 12);  // \U000e0001
}

TEST_CASE("python_repr: numbers as Python prints ints and floats", "[python_repr]") {
  CHECK(repr_of("0") == 1);
  CHECK(repr_of("-7") == 2);
  CHECK(repr_of("12345678901234567890") == 20);
  CHECK(repr_of("-9223372036854775808") == 20);
  CHECK(repr_of("1.5") == 3);
  CHECK(repr_of("5.0") == 3);
  CHECK(repr_of("0.1") == 3);
  CHECK(repr_of("1e-05") == 5);
  CHECK(repr_of("0.0001") == 6);
  CHECK(repr_of("1e16") == 5);   // 1e+16
  CHECK(repr_of("1e15") == 18);  // 1000000000000000.0
  CHECK(repr_of("123456789.123") == 13);
  CHECK(repr_of("-0.0") == 4);
  CHECK(repr_of("2.5e-7") == 7);  // 2.5e-07
  CHECK(repr_of("1e22") == 5);
  CHECK(repr_of("1.7976931348623157e308") == 23);
  CHECK(repr_of("5e-324") == 6);
  CHECK(repr_of("2.5E+3") == 6);  // 2500.0: a float, however it is written
}

TEST_CASE("python_repr: containers and constants", "[python_repr]") {
  CHECK(repr_of("true") == 4);
  CHECK(repr_of("false") == 5);
  CHECK(repr_of("null") == 4);
  CHECK(repr_of("[]") == 2);
  CHECK(repr_of("{}") == 2);
  CHECK(repr_of(R"([1, [2, {}], "x"])") == 17);
  CHECK(repr_of(R"({"a": 1, "b": [true, null], "c": {"d": "e"}})") == 44);
  CHECK(repr_of(R"({"it's": "x"})") == 13);
}

TEST_CASE("python_len counts code points", "[python_repr]") {
  CHECK(python_len("") == 0);
  CHECK(python_len("abc") == 3);
  CHECK(python_len("caf\xc3\xa9") == 4);
  CHECK(python_len("\xf0\x9f\x98\x80") == 1);
}
