// Compressed input: gzip and zstd streams recognised by their magic bytes and
// decompressed on the fly, so that `.jsonl.gz`, `.jsonl.zst` and compressed data on
// standard input read like plain JSONL (line numbers count decompressed lines).
#pragma once

#include <memory>
#include <string>

#include "io/input.h"

namespace convo {

// How a byte stream is compressed, as told by its first bytes.
enum class Compression : std::uint8_t {
  none,
  gzip,  // 1f 8b (also several gzip members one after the other, as `cat a.gz b.gz`)
  zstd,  // 28 b5 2f fd (also several frames, and skippable frames)
};

// Looks at the first bytes of `input` and returns a source of its decompressed
// bytes, or of its bytes as they are when they are not gzip or zstd. `name` is used
// in errors, which say what is wrong and at which compressed byte offset:
// `session.jsonl.gz: corrupt gzip data at byte 1234: invalid distance too far back`.
// A stream that ends inside compressed data is an error too (a truncated download).
std::unique_ptr<ByteSource> decompressing(std::unique_ptr<ByteSource> input, std::string name);

// The compression `decompressing` found on `input`, and the input to read it from
// (the bytes looked at are handed back first).
struct Sniffed {
  Compression compression = Compression::none;
  std::unique_ptr<ByteSource> input;
};
Sniffed sniff_compression(std::unique_ptr<ByteSource> input);

}  // namespace convo
