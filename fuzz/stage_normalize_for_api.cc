// normalize-for-api: a whole-conversation stage, writing messages, or one request
// body (inputs alternate by length).
#include "fuzz.h"
#include "stages/normalize_for_api.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto make_stage = [] {
    return convo::make_normalize_stage(convo::NormalizeOptions{}, convo::GroupBy::session);
  };
  convo::fuzz::run_stage_on(data, size, make_stage,
                            size % 2 == 0 ? convo::request_sink(convo::RequestOptions{})
                                          : convo::SinkFactory{});
  return 0;
}
