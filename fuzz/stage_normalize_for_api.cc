// normalize-for-api: a whole-conversation stage, writing messages, or one request
// body (inputs alternate by length), grouped by session or by file (held compactly
// in `HeldRecords`) as the last byte says.
#include "fuzz.h"
#include "stages/normalize_for_api.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const convo::GroupBy grouping = convo::fuzz::grouping(convo::fuzz::last_byte(data, size));
  auto make_stage = [grouping] {
    return convo::make_normalize_stage(convo::NormalizeOptions{}, grouping);
  };
  convo::fuzz::run_stage_on(data, size, make_stage,
                            size % 2 == 0 ? convo::request_sink(convo::RequestOptions{})
                                          : convo::SinkFactory{});
  return 0;
}
