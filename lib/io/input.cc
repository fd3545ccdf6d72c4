#include "io/input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "error.h"

namespace convo {

namespace {

class FileSource final : public ByteSource {
 public:
  FileSource(int fd, bool owned, std::string name) : m_fd(fd), m_owned(owned), m_name(std::move(name)) {}
  ~FileSource() override {
    if (m_owned) {
      ::close(m_fd);
    }
  }
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  std::size_t read(char* buffer, std::size_t size) override {
    for (;;) {
      ssize_t n = ::read(m_fd, buffer, size);
      if (n >= 0) {
        return static_cast<std::size_t>(n);
      }
      if (errno == EINTR) {
        continue;
      }
      throw Error(fmt::format("{}: cannot read: {}", m_name, std::strerror(errno)));
    }
  }

  // A file convo opened (standard input may not be at its start); whether it is a
  // regular file is MappedFile::open's to tell.
  int file_descriptor() const override { return m_owned ? m_fd : -1; }

 private:
  int m_fd;
  bool m_owned;
  std::string m_name;
};

class MemorySource final : public ByteSource {
 public:
  explicit MemorySource(std::string bytes) : m_bytes(std::move(bytes)) {}
  std::size_t read(char* buffer, std::size_t size) override {
    std::size_t n = std::min(size, m_bytes.size() - m_pos);
    std::memcpy(buffer, m_bytes.data() + m_pos, n);
    m_pos += n;
    return n;
  }

 private:
  std::string m_bytes;
  std::size_t m_pos = 0;
};

}  // namespace

std::string display_name(const std::string& path) {
  return path == "-" ? std::string(k_stdin_name) : path;
}

std::unique_ptr<ByteSource> open_input(const std::string& path) {
  if (path == "-") {
    return std::make_unique<FileSource>(STDIN_FILENO, false, std::string(k_stdin_name));
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw Error(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  }
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw Error(fmt::format("{}: is a directory", path));
  }
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  return std::make_unique<FileSource>(fd, true, path);
}

std::unique_ptr<ByteSource> memory_source(std::string bytes) {
  return std::make_unique<MemorySource>(std::move(bytes));
}

}  // namespace convo
