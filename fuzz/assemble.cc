// assemble: server-sent event streams (Anthropic, OpenAI, LangChain) put back
// together into responses, written in every format.
#include <cstdint>
#include <span>
#include <string>

#include "error.h"
#include "formats/format.h"
#include "io/output.h"
#include "stages/assemble.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) {
    return 0;
  }
  std::span<const convo::FormatInfo> formats = convo::all_formats();
  convo::AssembleOptions options;
  options.inputs = {"stream.sse"};
  std::size_t to = data[0] % (formats.size() + 1);
  if (to < formats.size()) {
    options.to = formats[to].format;
  }
  options.on_error = (data[0] & 0x80) != 0 ? convo::OnError::skip : convo::OnError::fail;
  std::string bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  convo::StringOutput out;
  convo::NullDiagnostics diagnostics;
  try {
    convo::assemble(options, out, diagnostics,
                    [&bytes](const std::string&) { return convo::memory_source(bytes); });
  } catch (const convo::Error&) {
  }
  return 0;
}
