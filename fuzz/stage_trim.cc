// trim: a whole-conversation stage (token counting, atomic units, --allow-partial),
// alternating strategies by input length, grouped by session or by file (held
// compactly in `HeldRecords`) as the last byte says.
#include "fuzz.h"
#include "stages/trim.h"
#include "tokens.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  convo::TrimOptions options;
  options.max_tokens = static_cast<std::int64_t>(size % 97) * 7;
  options.strategy = size % 2 == 0 ? convo::TrimStrategy::last : convo::TrimStrategy::first;
  options.allow_partial = size % 3 == 0;
  options.include_system = options.strategy == convo::TrimStrategy::last && size % 5 == 0;
  std::shared_ptr<const convo::TokenCounter> counter =
      convo::make_token_counter(convo::TokenCountOptions{});
  const convo::GroupBy grouping = convo::fuzz::grouping(convo::fuzz::last_byte(data, size));
  // Told the output format, as cmd/trim.cc tells it: a message written in its own
  // format is held as its bytes.
  const std::optional<convo::Format> to = convo::fuzz::output_format(data, size);
  convo::fuzz::run_stage_on(data, size, [&] {
    return convo::make_trim_stage(options, counter, grouping, to);
  });
  return 0;
}
