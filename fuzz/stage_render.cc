// render: every input rendered as a page, HTML and Markdown (inputs alternate
// between them by length).
#include "fuzz.h"
#include "stages/convert.h"
#include "stages/render.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto options = std::make_shared<convo::RenderOptions>();
  if (size % 2 == 1) {
    options->style = convo::RenderOptions::Style::markdown;
  }
  convo::fuzz::run_stage_on(
      data, size, [] { return std::make_unique<convo::PassThrough>(); },
      convo::render_sink(options));
  return 0;
}
