// stream: bytes read as messages or as a stream of any protocol, written (or
// translated event by event) as each protocol convo writes streams of.
#include <cstdint>
#include <string>
#include <vector>

#include "error.h"
#include "formats/format.h"
#include "io/output.h"
#include "stages/stream.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) {
    return 0;
  }
  std::vector<convo::Format> writers;
  for (const convo::FormatInfo& info : convo::all_formats()) {
    if (info.make_stream_writer != nullptr) {
      writers.push_back(info.format);
    }
  }
  convo::StreamCommandOptions options;
  options.inputs = {"stream.sse"};
  options.to = writers[data[0] % writers.size()];
  options.chunk_size = (data[0] >> 4) & 0x7;
  options.writer.include_usage = (data[0] & 0x08) != 0;
  std::string bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  convo::StringOutput out;
  convo::NullDiagnostics diagnostics;
  try {
    convo::write_streams(options, out, diagnostics,
                         [&bytes](const std::string&) { return convo::memory_source(bytes); });
  } catch (const convo::Error&) {
  }
  return 0;
}
