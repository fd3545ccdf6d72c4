#include <catch2/catch.hpp>

#include "json_dialects.h"

using namespace convo;

namespace {

std::string written(const std::string& text, void (*append)(const JsonValue&, std::string&)) {
  JsonDoc doc;
  REQUIRE_FALSE(parse_json(text, doc));
  std::string out;
  append(doc, out);
  return out;
}

std::string js(const std::string& text) { return written(text, append_js_json); }
std::string python(const std::string& text) { return written(text, append_python_json); }

}  // namespace

TEST_CASE("JSON as JSON.stringify writes it", "[json_dialects]") {
  CHECK(js(R"({"a": [1, 2.5, true, null], "b": {}})") == R"({"a":[1,2.5,true,null],"b":{}})");
  CHECK(js("[1.0, 100, 1e2, 1e21, 1e-7, 0.000001, 123456789.125, -0.0, 12345678901234567890]") ==
        "[1,100,100,1e+21,1e-7,0.000001,123456789.125,0,12345678901234567000]");
  CHECK(js(R"({"b": 1, "10": 2, "2": 3, "02": 4, "b": 5})") == R"({"2":3,"10":2,"b":5,"02":4})");
  CHECK(js(R"("t\tq\"\u0001é/\\")") == R"("t\tq\"\u0001é/\\")");
}

TEST_CASE("JSON as Python's json.dumps writes it", "[json_dialects]") {
  CHECK(python(R"({"a": [1, 2.5, true, null], "b": {}, "c": []})") ==
        R"({"a": [1, 2.5, true, null], "b": {}, "c": []})");
  CHECK(python("[1.0, 100, 1e2, 1e16, 1234567890123456.0, 1e-5, 0.0001, -0.0, 1e21, "
               "12345678901234567890, 1.5e300]") ==
        "[1.0, 100, 100.0, 1e+16, 1234567890123456.0, 1e-05, 0.0001, -0.0, 1e+21, "
        "12345678901234567890, 1.5e+300]");
  CHECK(python(R"({"b": 1, "10": 2, "b": 3})") == R"({"b": 3, "10": 2})");
}
