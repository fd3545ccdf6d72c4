#include "io/compression.h"

#include <fmt/format.h>

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "error.h"

namespace convo {

namespace {

constexpr std::size_t k_in_chunk = std::size_t{1} << 18;

// Hands back `head` (bytes already read from `rest`) before the rest of `rest`.
class PrefixedSource final : public ByteSource {
 public:
  PrefixedSource(std::string head, std::unique_ptr<ByteSource> rest)
      : m_head(std::move(head)), m_rest(std::move(rest)) {}

  std::size_t read(char* buffer, std::size_t size) override {
    if (m_pos < m_head.size()) {
      // Fill the rest of this read from the source, so that the plain path makes
      // no extra small read.
      std::size_t n = std::min(size, m_head.size() - m_pos);
      std::memcpy(buffer, m_head.data() + m_pos, n);
      m_pos += n;
      if (n < size && m_pos == m_head.size()) {
        n += m_rest->read(buffer + n, size - n);
      }
      return n;
    }
    return m_rest->read(buffer, size);
  }
  // The head is the file's first bytes: the source reads the file as it is.
  int file_descriptor() const override { return m_rest->file_descriptor(); }
  void mapped(std::size_t n) override { m_rest->mapped(n); }

 private:
  std::string m_head;
  std::size_t m_pos = 0;
  std::unique_ptr<ByteSource> m_rest;
};

// The compressed bytes, read in chunks, with the offset of the next one.
class CompressedInput {
 public:
  CompressedInput(std::unique_ptr<ByteSource> input, std::string name)
      : m_input(std::move(input)), m_name(std::move(name)), m_buffer(k_in_chunk) {}

  // Reads more when all was consumed; false at the end of the input.
  bool refill() {
    if (m_pos < m_size) {
      return true;
    }
    m_offset += m_size;
    m_pos = 0;
    m_size = m_input->read(m_buffer.data(), m_buffer.size());
    return m_size > 0;
  }
  const char* data() const { return m_buffer.data() + m_pos; }
  std::size_t available() const { return m_size - m_pos; }
  void consume(std::size_t n) { m_pos += n; }
  // Offset in the compressed stream of the next unconsumed byte.
  std::uint64_t offset() const { return m_offset + m_pos; }
  const std::string& name() const { return m_name; }

  [[noreturn]] void fail(std::string_view what) const {
    throw Error(fmt::format("{}: {}", m_name, what));
  }

 private:
  std::unique_ptr<ByteSource> m_input;
  std::string m_name;
  std::vector<char> m_buffer;
  std::size_t m_pos = 0;
  std::size_t m_size = 0;
  std::uint64_t m_offset = 0;  // offset of m_buffer[0]
};

class GzipSource final : public ByteSource {
 public:
  GzipSource(std::unique_ptr<ByteSource> input, std::string name)
      : m_in(std::move(input), std::move(name)) {
    // 15 + 16: a gzip wrapper (not zlib, not raw deflate), the largest window.
    if (inflateInit2(&m_stream, 15 + 16) != Z_OK) {
      throw std::bad_alloc();
    }
  }
  ~GzipSource() override { inflateEnd(&m_stream); }
  GzipSource(const GzipSource&) = delete;
  GzipSource& operator=(const GzipSource&) = delete;

  std::size_t read(char* buffer, std::size_t size) override {
    // zlib counts in uInt; never ask for more than it can say.
    size = std::min<std::size_t>(size, 1u << 30);
    while (!m_done) {
      if (m_member_ended) {
        // Another member may follow (`cat a.gz b.gz`); anything else is an error.
        if (!m_in.refill()) {
          m_done = true;
          break;
        }
        if (static_cast<unsigned char>(*m_in.data()) != 0x1f) {
          m_in.fail(fmt::format("unexpected data after gzip data at byte {}", m_in.offset()));
        }
        inflateReset(&m_stream);
        m_member_ended = false;
      }
      if (!m_in.refill()) {
        m_in.fail(fmt::format("truncated gzip data (the input ends at byte {})", m_in.offset()));
      }
      m_stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(m_in.data()));
      m_stream.avail_in = static_cast<uInt>(m_in.available());
      m_stream.next_out = reinterpret_cast<Bytef*>(buffer);
      m_stream.avail_out = static_cast<uInt>(size);
      std::uint64_t at = m_in.offset();
      int result = inflate(&m_stream, Z_NO_FLUSH);
      m_in.consume(m_in.available() - m_stream.avail_in);
      std::size_t produced = size - m_stream.avail_out;
      if (result == Z_STREAM_END) {
        m_member_ended = true;
      } else if (result != Z_OK && result != Z_BUF_ERROR) {
        if (result == Z_MEM_ERROR) {
          throw std::bad_alloc();
        }
        m_in.fail(fmt::format("corrupt gzip data at byte {}: {}", std::max(at, m_in.offset()),
                              m_stream.msg != nullptr ? m_stream.msg : "invalid data"));
      }
      if (produced > 0) {
        return produced;
      }
    }
    return 0;
  }

 private:
  CompressedInput m_in;
  z_stream m_stream{};
  bool m_member_ended = false;
  bool m_done = false;
};

class ZstdSource final : public ByteSource {
 public:
  ZstdSource(std::unique_ptr<ByteSource> input, std::string name)
      : m_in(std::move(input), std::move(name)), m_stream(ZSTD_createDStream()) {
    if (m_stream == nullptr) {
      throw std::bad_alloc();
    }
    // Accept the windows `zstd --long` writes (up to 2 GB), not more: a hostile
    // frame header must not make us allocate without bound.
    ZSTD_DCtx_setParameter(m_stream, ZSTD_d_windowLogMax, 31);
  }
  ~ZstdSource() override { ZSTD_freeDStream(m_stream); }
  ZstdSource(const ZstdSource&) = delete;
  ZstdSource& operator=(const ZstdSource&) = delete;

  std::size_t read(char* buffer, std::size_t size) override {
    for (;;) {
      bool more = m_in.refill();
      if (!more && !m_frame_open) {
        return 0;
      }
      // At the end of the input, a frame still open may hold decoded bytes that did
      // not fit the last read: ask for them with no new input.
      ZSTD_inBuffer in{m_in.data(), more ? m_in.available() : 0, 0};
      ZSTD_outBuffer out{buffer, size, 0};
      std::uint64_t at = m_in.offset();
      std::size_t result = ZSTD_decompressStream(m_stream, &out, &in);
      m_in.consume(in.pos);
      if (ZSTD_isError(result) != 0) {
        m_in.fail(fmt::format("corrupt zstd data at byte {}: {}", at,
                              ZSTD_getErrorName(result)));
      }
      // 0: a frame has just ended and been flushed whole.
      m_frame_open = result != 0;
      if (out.pos > 0) {
        return out.pos;
      }
      if (!more) {
        m_in.fail(fmt::format("truncated zstd data (the input ends at byte {})", m_in.offset()));
      }
    }
  }

 private:
  CompressedInput m_in;
  ZSTD_DStream* m_stream;
  bool m_frame_open = false;
};

}  // namespace

Sniffed sniff_compression(std::unique_ptr<ByteSource> input) {
  std::string head(4, '\0');
  std::size_t got = 0;
  while (got < head.size()) {
    std::size_t n = input->read(head.data() + got, head.size() - got);
    if (n == 0) {
      break;
    }
    got += n;
  }
  head.resize(got);
  Compression compression = Compression::none;
  if (head.size() >= 2 && head[0] == '\x1f' && head[1] == '\x8b') {
    compression = Compression::gzip;
  } else if (head == std::string_view("\x28\xb5\x2f\xfd", 4)) {
    compression = Compression::zstd;
  }
  return {compression, std::make_unique<PrefixedSource>(std::move(head), std::move(input))};
}

std::unique_ptr<ByteSource> decompressing(std::unique_ptr<ByteSource> input, std::string name) {
  Sniffed sniffed = sniff_compression(std::move(input));
  switch (sniffed.compression) {
    case Compression::gzip:
      return std::make_unique<GzipSource>(std::move(sniffed.input), std::move(name));
    case Compression::zstd:
      return std::make_unique<ZstdSource>(std::move(sniffed.input), std::move(name));
    case Compression::none:
      break;
  }
  return std::move(sniffed.input);
}

}  // namespace convo
