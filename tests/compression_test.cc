#include <catch2/catch.hpp>

#include <zlib.h>
#include <zstd.h>

#include <string>

#include "error.h"
#include "io/compression.h"

using namespace convo;

namespace {

std::string gzip(const std::string& text) {
  z_stream stream{};
  REQUIRE(deflateInit2(&stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&stream, text.size()) + 32, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<uInt>(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&stream, Z_FINISH) == Z_STREAM_END);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

std::string zstd(const std::string& text) {
  std::string out(ZSTD_compressBound(text.size()), '\0');
  std::size_t n = ZSTD_compress(out.data(), out.size(), text.data(), text.size(), 3);
  REQUIRE(ZSTD_isError(n) == 0);
  out.resize(n);
  return out;
}

// Everything `bytes` decompresses to, read in small pieces.
std::string read_all(const std::string& bytes) {
  auto source = decompressing(memory_source(bytes), "f.gz");
  std::string out;
  char buffer[7];
  while (std::size_t n = source->read(buffer, sizeof buffer)) {
    out.append(buffer, n);
  }
  return out;
}

std::string error_of(const std::string& bytes) {
  try {
    read_all(bytes);
  } catch (const Error& error) {
    return error.message();
  }
  return "no error";
}

const std::string k_text = "{\"role\":\"user\",\"content\":\"h\xc3\xa9llo\"}\n{\"a\":1}\n";

}  // namespace

TEST_CASE("plain bytes pass through, however short", "[compression]") {
  CHECK(read_all(k_text) == k_text);
  CHECK(read_all("").empty());
  CHECK(read_all("{").empty() == false);
  CHECK(read_all("\x1f") == "\x1f");
}

TEST_CASE("gzip and zstd are told by their first bytes and decompressed", "[compression]") {
  CHECK(read_all(gzip(k_text)) == k_text);
  CHECK(read_all(zstd(k_text)) == k_text);
  std::string big(3u << 20, 'x');
  CHECK(read_all(gzip(big)) == big);
  CHECK(read_all(zstd(big)) == big);
}

TEST_CASE("concatenated gzip members and zstd frames read as one stream", "[compression]") {
  CHECK(read_all(gzip("a\n") + gzip("b\n")) == "a\nb\n");
  CHECK(read_all(zstd("a\n") + zstd("b\n")) == "a\nb\n");
}

TEST_CASE("broken compressed data is an error naming the file and the offset", "[compression]") {
  std::string gz = gzip(k_text);
  CHECK(error_of(gz.substr(0, gz.size() - 3)) ==
        "f.gz: truncated gzip data (the input ends at byte " + std::to_string(gz.size() - 3) + ")");
  CHECK(error_of(gz + "junk") ==
        "f.gz: unexpected data after gzip data at byte " + std::to_string(gz.size()));
  std::string corrupt = gz;
  corrupt[3] = '\xff';  // reserved flag bits
  CHECK(error_of(corrupt).rfind("f.gz: corrupt gzip data at byte ", 0) == 0);
  std::string zs = zstd(k_text);
  CHECK(error_of(zs.substr(0, zs.size() - 2)).rfind("f.gz: truncated zstd data", 0) == 0);
  CHECK(error_of(std::string("\x28\xb5\x2f\xfd", 4) + "garbage!").rfind("f.gz: corrupt zstd data at byte", 0) == 0);
  CHECK(error_of("\x1f\x8b") == "f.gz: truncated gzip data (the input ends at byte 2)");
}
