// Mapping code every format needs in the same shape: sniffing a list of messages,
// the factory pair a registry row calls, and a block's fit in a target format (what
// it keeps and what it loses), so that a format adds only what is its own.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/format.h"
#include "json.h"

namespace convo {

// Scores a list of messages (`array`) by `sniff`ing its first 32 elements: -1 when
// one of them is -1 (not this format), else the sum.
int sniff_each(const JsonValue& array, int (*sniff)(const JsonValue& element));

// The factories behind a format's registry row: `make_x_decoder()` returns
// `make_decoder<XDecoder>()`, `make_x_encoder(loss)` `make_encoder<XEncoder>(loss)`.
template <class D>
std::unique_ptr<Decoder> make_decoder();
template <class E>
std::unique_ptr<Encoder> make_encoder(LossReport& loss);

// What a target format makes of a block: whether it writes it, and what it loses
// either way, in order (plural noun phrases such as "thinking signatures"). A
// format's fit test only answers; its encoder counts `lost` once, where it writes.
struct BlockFit {
  bool written = true;
  std::vector<std::string> lost;

  // Adds `what` to what is lost; the block is still written.
  BlockFit& losing(std::string what) {
    lost.push_back(std::move(what));
    return *this;
  }
  // Adds `what` to what is lost, and the block is not written.
  BlockFit& dropping(std::string what) {
    written = false;
    return losing(std::move(what));
  }
};

// `fit.written`, after calling `drop` with each of `fit.lost`: the one place an
// encoder counts what a block loses.
bool admit(const BlockFit& fit, const std::function<void(std::string_view what)>& drop);

// "image blocks": a block counted by its type_name when it has one (a block of a
// type only its format knows), else by its type.
std::string blocks_of(const Block& block);

// --- Inline implementations ---

template <class D>
std::unique_ptr<Decoder> make_decoder() {
  return std::make_unique<D>();
}

template <class E>
std::unique_ptr<Encoder> make_encoder(LossReport& loss) {
  return std::make_unique<E>(loss);
}

}  // namespace convo
