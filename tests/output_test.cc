#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "formats/records.h"
#include "io/output.h"

using namespace convo;

namespace {

// Records what reaches the destination, emit by emit.
class Recording final : public Output {
 public:
  std::string emitted;

 protected:
  void emit(std::string_view bytes) override { emitted.append(bytes); }
};

}  // namespace

TEST_CASE("holding back: only complete output is written out early", "[output]") {
  Recording out;
  out.set_holding(true);
  const std::string line(1000, 'x');
  for (int i = 0; i < 300; ++i) {  // past the 256 KB flush point, none of it complete
    out.write_line(line);
  }
  CHECK(out.emitted.empty());
  out.mark_complete();
  out.write_line("incomplete");
  for (int i = 0; i < 300; ++i) {
    out.write_line(line);
  }
  // The flush point wrote the complete part; the rest is held.
  CHECK(out.emitted.size() == 300 * 1001);
  out.discard_incomplete();
  out.flush();
  CHECK(out.emitted.size() == 300 * 1001);
}

TEST_CASE("without holding, discard_incomplete takes nothing back", "[output]") {
  Recording out;
  out.write_line("a");
  out.discard_incomplete();
  out.flush();
  CHECK(out.emitted == "a\n");
}

TEST_CASE("a long write reaches the destination uncopied, in order", "[output]") {
  // Records where each emit's bytes live, to tell a pass-through from a copy.
  class Pointers final : public Output {
   public:
    std::string emitted;
    std::vector<const char*> starts;

   protected:
    void emit(std::string_view bytes) override {
      emitted.append(bytes);
      starts.push_back(bytes.data());
    }
  };
  Pointers out;
  const std::string record(1 << 20, 'r');  // 1 MB: past the 256 KB flush point
  out.write_line("before");
  out.write_line(record);
  out.write("after");
  out.flush();
  CHECK(out.emitted == "before\n" + record + "\nafter");
  REQUIRE(out.starts.size() == 3);
  CHECK(out.starts[1] == record.data());  // the record's own bytes, not a buffered copy
}

TEST_CASE("a long write while holding back is buffered", "[output]") {
  Recording out;
  out.set_holding(true);
  out.write_line(std::string(1 << 20, 'r'));
  CHECK(out.emitted.empty());
  out.discard_incomplete();
  out.flush();
  CHECK(out.emitted.empty());
}

TEST_CASE("records written in place go out as lines, and records taken back leave nothing",
          "[output]") {
  Recording out;
  out.set_holding(true);
  out.write_line("kept");
  {
    Records records(out.buffer());
    records.add(R"({"a":1})");
    JsonWriter w(records.open());
    w.StartObject();
    w.Key("b");
    w.Int(2);
    w.EndObject();
    records.close();
    records.open().Put('x');  // a record begun, then not made after all
    records.cancel();
    REQUIRE(records.size() == 2);
    CHECK(records[0] == R"({"a":1})");
    CHECK(records[1] == R"({"b":2})");
    CHECK(records.lines() == "{\"a\":1}\n{\"b\":2}\n");
    records.keep();
    out.wrote();
  }
  {
    Records failed(out.buffer());  // an encoder that threw: its records are taken back
    failed.add(R"({"c":3})");
  }
  out.mark_complete();
  out.write_line("incomplete");
  out.discard_incomplete();
  out.flush();
  CHECK(out.emitted == "kept\n{\"a\":1}\n{\"b\":2}\n");
}

TEST_CASE("records in place past the flush point are written out whole", "[output]") {
  Recording out;
  const std::string big(300000, 'x');
  Records records(out.buffer());
  records.add("\"" + big + "\"");
  records.keep();
  out.wrote();
  CHECK(out.emitted == "\"" + big + "\"\n");
}
