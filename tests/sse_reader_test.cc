#include <catch2/catch.hpp>

#include "sse_reader.h"

using namespace convo;

namespace {

std::vector<StreamEvent> events(const std::string& text) {
  StreamEventReader reader(memory_source(text), "s.sse");
  std::vector<StreamEvent> out;
  StreamEvent event;
  while (reader.next(event)) {
    out.push_back(event);
  }
  return out;
}

}  // namespace

TEST_CASE("SSE events: name, data lines joined, comments and other fields skipped",
          "[sse_reader]") {
  auto out = events("\xEF\xBB\xBF: keep-alive\r\n\r\nevent: message_start\r\nid: 7\r\nretry: 10\r\n"
                    "data: {\"a\":\r\ndata:1}\r\n\r\n\r\ndata: [DONE]\n");
  REQUIRE(out.size() == 2);
  CHECK(out[0].name == "message_start");
  CHECK(out[0].data == "{\"a\":\n1}");
  CHECK(out[0].sse);
  CHECK(out[0].where.str() == "s.sse:6");
  CHECK(out[0].data_column == 7);
  CHECK(out[1].name.empty());
  CHECK(out[1].data == "[DONE]");  // the last event needs no closing empty line
  CHECK(out[1].where.str() == "s.sse:10");
}

TEST_CASE("lines of bare JSON are one event each", "[sse_reader]") {
  auto out = events("{\"type\":\"ping\"}\n\n  {\"type\":\"message_stop\"}\n");
  REQUIRE(out.size() == 2);
  CHECK_FALSE(out[0].sse);
  CHECK(out[0].data == "{\"type\":\"ping\"}");
  CHECK(out[1].where.str() == "s.sse:3");
  CHECK(out[1].data_column == 3);
}

TEST_CASE("an event without data is no event", "[sse_reader]") {
  CHECK(events("event: ping\n\nevent: ping\n").empty());
  CHECK(events("").empty());
}

TEST_CASE("a JSON array's elements are one event each, however spread over lines",
          "[sse_reader]") {
  auto out = events("\xEF\xBB\xBF\n[{\"a\": \"x]}\\\"\",\n  \"b\": [1, {}]},\n {\"c\": 2}\n]\n[{\"d\":3}]\n");
  REQUIRE(out.size() == 3);
  CHECK_FALSE(out[0].sse);
  CHECK(out[0].data == "{\"a\": \"x]}\\\"\",\n  \"b\": [1, {}]}");
  CHECK(out[0].where.str() == "s.sse:2");
  CHECK(out[0].data_column == 2);
  CHECK(out[1].data == "{\"c\": 2}");
  CHECK(out[1].where.str() == "s.sse:4");
  CHECK(out[1].data_column == 2);
  CHECK(out[2].data == "{\"d\":3}");  // arrays one after another go on
}

TEST_CASE("a JSON array cut off gives its last element as far as it came", "[sse_reader]") {
  auto out = events("[{\"a\":1},{\"b\":");
  REQUIRE(out.size() == 2);
  CHECK(out[1].data == "{\"b\":");
}
