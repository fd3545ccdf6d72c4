// The line reader: any bytes (compressed or not) become records or errors, with
// locations inside the input, and never a crash, a hang or an escaping exception
// other than convo::Error (a decompression error). The bytes are read twice: with
// lines long from convo's own size (1 MiB, which these inputs never reach), and
// from the lower one their last byte chooses (fuzz.h). A long line is kept as read
// and parsed apart from its bytes; it must make the same record as a short one.
// Each record's JSON must be what the copying parse (parse_json, no shadow and no
// AVX-512 unescape) makes of its bytes: with `scripts/fuzz --wide` (no
// AddressSanitizer) the reader's parse runs the AVX-512 loops of json_wide.cc.
#include <cstdint>
#include <string>
#include <vector>

#include "error.h"
#include "fuzz.h"
#include "io/compression.h"
#include "io/record_reader.h"
#include "json.h"

namespace {

// What a record says, to compare.
struct Read {
  std::string raw;
  std::string json;  // its parse written again; empty for a bad record
  std::string error;
  std::uint64_t line = 0;
  std::uint64_t column = 0;
  std::size_t lone_surrogates = 0;

  bool operator==(const Read&) const = default;
};

// The records of `bytes`, and the message of the convo::Error that ended them early.
std::vector<Read> read(const std::string& bytes, std::string& stopped) {
  std::vector<Read> out;
  try {
    convo::RecordReader reader(convo::decompressing(convo::memory_source(bytes), "f"), "f");
    convo::Record record;
    while (reader.next(record)) {
      if (!record.ok() && record.where.column == 0) {
        __builtin_trap();  // an error must say where it is
      }
      out.push_back(Read{record.raw.str(), record.ok() ? convo::to_json(record.source->doc) : "",
                         record.error, record.where.line, record.where.column,
                         record.lone_surrogates});
      if (record.ok() && record.lone_surrogates == 0) {
        convo::JsonDoc copied;
        if (convo::parse_json(record.raw.view(), copied) ||
            convo::to_json(copied) != out.back().json) {
          __builtin_trap();  // the reader's parse read otherwise than the copying one
        }
      }
    }
  } catch (const convo::Error& error) {
    stopped = error.what();
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  std::string stopped_short;
  convo::fuzz::choose_sizes(0);
  std::vector<Read> as_short = read(bytes, stopped_short);
  std::string stopped_long;
  convo::fuzz::choose_sizes(convo::fuzz::last_byte(data, size));
  std::vector<Read> as_long = read(bytes, stopped_long);
  if (as_short != as_long || stopped_short != stopped_long) {
    __builtin_trap();  // a long line read otherwise than a short one
  }
  return 0;
}
