#include "io/output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include "error.h"

namespace convo {

void Output::flush_ready() {
  if (!m_holding) {
    flush();
    return;
  }
  if (m_complete == 0) {
    return;  // one incomplete conversation so far: it waits in memory
  }
  try {
    emit(std::string_view(m_buffer.data(), m_complete));
  } catch (...) {
    m_buffer.clear();  // never written twice by a later flush
    m_complete = 0;
    throw;
  }
  m_buffer.erase(0, m_complete);
  m_complete = 0;
}

void Output::flush() {
  m_complete = 0;
  if (m_buffer.empty()) {
    return;
  }
  // Clear first: if emit throws, nothing is written twice by a later flush.
  std::string pending;
  pending.swap(m_buffer);
  emit(pending);
  pending.clear();
  m_buffer.swap(pending);  // keep the capacity
}

namespace {

void write_all(int fd, std::string_view bytes, const std::string& name) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      if (errno == EPIPE) {
        throw BrokenPipe();
      }
      throw Error(fmt::format("{}: write failed: {}", name, std::strerror(errno)),
                  ExitCode::output);
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

}  // namespace

void FdOutput::emit(std::string_view bytes) { write_all(m_fd, bytes, m_name); }

FileOutput::FileOutput(std::string path) : m_path(std::move(path)) {
  // Beside the target, so that the rename stays within one file system.
  m_temporary = m_path + ".convo-XXXXXX";
  m_fd = ::mkstemp(m_temporary.data());
  if (m_fd < 0) {
    throw Error(fmt::format("{}: cannot create: {}", m_path, std::strerror(errno)),
                ExitCode::output);
  }
  // mkstemp makes the file private (0600); give it the mode a new file would get.
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(m_fd, 0666 & ~mask);
}

FileOutput::~FileOutput() {
  if (m_fd >= 0) {
    ::close(m_fd);
    ::unlink(m_temporary.c_str());
  }
}

void FileOutput::emit(std::string_view bytes) { write_all(m_fd, bytes, m_path); }

void FileOutput::commit() {
  flush();
  int fd = m_fd;
  m_fd = -1;
  if (::close(fd) != 0) {
    int error = errno;
    ::unlink(m_temporary.c_str());
    throw Error(fmt::format("{}: write failed: {}", m_path, std::strerror(error)),
                ExitCode::output);
  }
  if (::rename(m_temporary.c_str(), m_path.c_str()) != 0) {
    int error = errno;
    ::unlink(m_temporary.c_str());
    throw Error(fmt::format("{}: cannot write: {}", m_path, std::strerror(error)),
                ExitCode::output);
  }
}

}  // namespace convo
