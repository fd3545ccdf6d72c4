#include "io/output.h"

#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include "error.h"

namespace convo {

void Output::flush() {
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

void FdOutput::emit(std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(m_fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      if (errno == EPIPE) {
        throw BrokenPipe();
      }
      throw Error(fmt::format("{}: write failed: {}", m_name, std::strerror(errno)),
                  ExitCode::output);
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

}  // namespace convo
