#include <catch2/catch.hpp>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "formats/object_writer.h"
#include "formats/records.h"
#include "json.h"
#include "message.h"

using namespace convo;

namespace {

JsonDoc parsed(const std::string& text) {
  JsonDoc doc;
  doc.Parse(text.c_str());
  REQUIRE(!doc.HasParseError());
  return doc;
}

// Counts the copies of a callable that are alive: each is destroyed once.
struct Alive {
  std::shared_ptr<int> count;
  explicit Alive(std::shared_ptr<int> c) : count(std::move(c)) { ++*count; }
  Alive(const Alive& other) : count(other.count) { ++*count; }
  Alive(Alive&& other) noexcept : count(other.count) { ++*count; }
  ~Alive() { --*count; }
  void operator()(JsonWriter& w) const { w.Int(*count); }
};

}  // namespace

TEST_CASE("an object writer keeps the original's members in place and adds new ones after",
          "[object_writer]") {
  JsonDoc original = parsed(R"({"a":1,"b":"x","c":[true],"d":null})");
  rapidjson::StringBuffer out;
  JsonWriter w(out);
  ObjectWriter object(w, &original);
  object.set_string("b", "changed").remove("c").set_int("z", 7).set_raw("y", R"({"k":[]})");
  object.set_bool("a", false).set_null("x").set_string("empty", "");
  object.write();
  CHECK(std::string(out.GetString()) ==
        R"({"a":false,"b":"changed","d":null,"z":7,"y":{"k":[]},"x":null,"empty":""})");
}

TEST_CASE("an object writer holds more members, longer strings and larger callables than its room",
          "[object_writer]") {
  auto count = std::make_shared<int>(0);
  std::string expected = "{";
  std::vector<std::string> keys;
  for (int i = 0; i < 40; ++i) {
    keys.push_back("key" + std::to_string(i));
  }
  const std::string long_text(3000, 'q');
  {
    rapidjson::StringBuffer out;
    JsonWriter w(out);
    ObjectWriter object(w, nullptr);
    for (int i = 0; i < 40; ++i) {
      const std::string& key = keys[static_cast<std::size_t>(i)];
      if (i % 3 == 0) {
        object.set_string(key, long_text + std::to_string(i));
        expected += "\"" + key + "\":\"" + long_text + std::to_string(i) + "\",";
      } else if (i % 3 == 1) {
        // A capture of 2 KB: larger than the room left.
        object.set(key, [big = std::array<char, 2048>{}, i](JsonWriter& vw) {
          (void)big;
          vw.Int(i);
        });
        expected += "\"" + key + "\":" + std::to_string(i) + ",";
      } else {
        object.set(key, Alive(count));
        expected += "\"" + key + "\":13,";  // the 13 copies held while written
      }
    }
    CHECK(*count == 13);
    object.write();
    expected.back() = '}';
    CHECK(std::string(out.GetString()) == expected);
  }
  CHECK(*count == 0);
}

TEST_CASE("an object writer's member set twice is written once, with the later value",
          "[object_writer]") {
  auto count = std::make_shared<int>(0);
  rapidjson::StringBuffer out;
  {
    JsonWriter w(out);
    ObjectWriter object(w, nullptr);
    object.set("a", Alive(count));
    CHECK(*count == 1);
    object.set_string("a", "now a string");
    CHECK(*count == 0);  // the callable it replaced is gone
    object.set("a", Alive(count)).remove("a").set_int("b", 2);
    CHECK(*count == 0);
    object.write();
  }
  CHECK(std::string(out.GetString()) == R"({"b":2})");
}

TEST_CASE("an object writer's empty block list leaves the member out", "[object_writer]") {
  JsonDoc original = parsed(R"({"role":"assistant","tool_calls":[{"id":"x"}]})");
  Block call;
  call.id = "call_1";
  for (bool empty : {true, false}) {
    rapidjson::StringBuffer out;
    JsonWriter w(out);
    ObjectWriter object(w, &original);
    std::vector<const Block*> blocks;
    if (!empty) {
      blocks.push_back(&call);
    }
    object.set_blocks("tool_calls", blocks, [](JsonWriter& bw, const Block& b) {
      bw.String(b.id.data(), static_cast<rapidjson::SizeType>(b.id.size()));
    });
    object.write();
    CHECK(std::string(out.GetString()) == (empty ? R"({"role":"assistant"})"
                                                 : R"({"role":"assistant","tool_calls":["call_1"]})"));
  }
}

TEST_CASE("records past the first few are kept and taken back like the first", "[records]") {
  rapidjson::StringBuffer buffer;
  buffer.Put('>');
  Records records(buffer);
  std::string lines;
  for (int i = 0; i < 9; ++i) {
    if (i % 2 == 0) {
      records.add("{\"n\":" + std::to_string(i) + "}");
    } else {
      JsonWriter w(records.open());
      w.StartObject();
      w.Key("n");
      w.Int(i);
      w.EndObject();
      records.close();
    }
    lines += "{\"n\":" + std::to_string(i) + "}\n";
    // One opened and taken back leaves the records as they were.
    JsonWriter w(records.open());
    w.StartArray();
    w.EndArray();
    records.cancel();
  }
  REQUIRE(records.size() == 9);
  for (std::size_t i = 0; i < 9; ++i) {
    CHECK(records[i] == "{\"n\":" + std::to_string(i) + "}");
  }
  CHECK(records.lines() == lines);
  records.keep();
  CHECK(std::string(buffer.GetString(), buffer.GetSize()) == ">" + lines);
  records.clear();
  CHECK(records.empty());
  CHECK(buffer.GetSize() == 1);
}
