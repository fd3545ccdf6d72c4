// Every format's decoder and encoder: the first byte picks a format from the
// registry (so a new format is fuzzed without a new target); every record of the
// rest is decoded as that format (no detection) and the messages are encoded back
// in it, every other one marked changed so that the encoder runs on it rather than
// passing its bytes through. The last byte chooses the long-line and borrow sizes
// (fuzz.h): records parsed apart from their bytes, texts borrowed from them.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "error.h"
#include "formats/format.h"
#include "fuzz.h"
#include "io/output.h"
#include "io/record_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) {
    return 0;
  }
  std::span<const convo::FormatInfo> formats = convo::all_formats();
  const convo::FormatInfo& info = formats[data[0] % formats.size()];
  std::string bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  convo::fuzz::choose_sizes(convo::fuzz::last_byte(data, size));
  convo::RecordReader reader(convo::memory_source(bytes), "f");
  auto decoder = info.make_decoder();
  convo::LossReport loss;
  auto encoder = info.make_encoder(loss);
  convo::StringOutput out;
  std::vector<convo::Message> messages;
  convo::Record record;
  while (reader.next(record)) {
    if (!record.ok()) {
      continue;
    }
    messages.clear();
    try {
      decoder->decode(std::move(record), messages);
    } catch (const convo::DecodeError&) {
      continue;
    }
    for (convo::Message& message : messages) {
      message.modified = (message.where.line % 2) == 0;
      try {
        encoder->write(std::move(message), out);
      } catch (const convo::EncodeError&) {
      }
    }
  }
  try {
    encoder->finish(out);
  } catch (const convo::EncodeError&) {
  }
  return 0;
}
