// buffer-string: every message rendered as text, in the prefix and xml formats
// (inputs alternate between them by length).
#include "fuzz.h"
#include "stages/buffer_string.h"
#include "stages/convert.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto options = std::make_shared<convo::BufferStringOptions>();
  if (size % 2 == 1) {
    options->style = convo::BufferStringOptions::Style::xml;
  }
  convo::fuzz::run_stage_on(
      data, size, [] { return std::make_unique<convo::PassThrough>(); },
      convo::buffer_string_sink(options));
  return 0;
}
