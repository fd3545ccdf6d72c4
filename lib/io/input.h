// Byte sources: where input comes from (a file, standard input, or memory in tests).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace convo {

// A stream of bytes. `read` returns 0 only at the end; errors throw convo::Error.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to `size` bytes into `buffer`; returns how many, 0 at the end.
  virtual std::size_t read(char* buffer, std::size_t size) = 0;
  // The descriptor of the file this source reads as it is, from its first byte
  // on, so that a reader may map it rather than read it when it is a regular file
  // (io/mapped_file.h); -1 when there is none (standard input, decompressed bytes).
  virtual int file_descriptor() const { return -1; }
  // Told of `n` more bytes of that file that the reader took from its mapping
  // rather than from `read` (a progress count counts them).
  virtual void mapped(std::size_t n) { (void)n; }
};

// The name under which standard input appears in messages.
inline constexpr std::string_view k_stdin_name = "<stdin>";

// Opens `path` for reading; "-" means standard input. Throws convo::Error with
// ExitCode::input when the file cannot be opened (missing, a directory, ...).
std::unique_ptr<ByteSource> open_input(const std::string& path);

// A source over bytes held in memory (tests, fuzzers).
std::unique_ptr<ByteSource> memory_source(std::string bytes);

// The name to show for `path` in messages: "<stdin>" for "-", else the path.
std::string display_name(const std::string& path);

}  // namespace convo
