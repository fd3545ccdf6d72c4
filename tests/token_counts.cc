// A test helper, not part of convo: prints the tokens each message of a transcript
// counts, one number per line, as `node oracle.mjs count-tokens --per-message` does,
// so that tests/langchain/count_tokens.mjs can compare the two.
//
//   convo_token_counts [--chars-per-token X] [--counter approx|messages|usage] FILE
#include <fmt/format.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "pipeline.h"
#include "tokens.h"

namespace {

class Collect final : public convo::InputHandler {
 public:
  void message(convo::Message&& message) override { messages.push_back(std::move(message)); }
  std::vector<convo::Message> messages;
};

}  // namespace

int main(int argc, char** argv) {
  convo::TokenCountOptions options;
  std::string file;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--chars-per-token" && i + 1 < argc) {
      options.chars_per_token = std::atof(argv[++i]);
    } else if (arg == "--counter" && i + 1 < argc) {
      options.kind = convo::parse_token_counter(argv[++i]).value_or(convo::TokenCounterKind::approx);
    } else {
      file = arg;
    }
  }
  try {
    Collect collect;
    convo::NullDiagnostics diagnostics;
    convo::read_inputs({file}, {}, collect, diagnostics);
    auto counter = convo::make_token_counter(options);
    for (std::int64_t n : counter->count_conversation(collect.messages)) {
      fmt::print("{}\n", n);
    }
  } catch (const convo::Error& e) {
    fmt::print(stderr, "convo_token_counts: {}\n", e.message());
    return 1;
  }
  return 0;
}
