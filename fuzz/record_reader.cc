// The line reader: any bytes (compressed or not) become records or errors, with
// locations inside the input, and never a crash, a hang or an escaping exception
// other than convo::Error (a decompression error).
#include <cstdint>
#include <string>

#include "error.h"
#include "io/compression.h"
#include "io/record_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    convo::RecordReader reader(convo::decompressing(convo::memory_source(bytes), "f"), "f");
    convo::Record record;
    while (reader.next(record)) {
      if (!record.ok() && record.where.column == 0) {
        __builtin_trap();  // an error must say where it is
      }
    }
  } catch (const convo::Error&) {
  }
  return 0;
}
