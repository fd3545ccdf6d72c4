#include "io/output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <iterator>
#include <random>

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
    emit(std::string_view(data(), m_complete));
  } catch (...) {
    m_buffer.Clear();  // never written twice by a later flush
    m_complete = 0;
    throw;
  }
  const std::size_t rest = m_buffer.GetSize() - m_complete;
  std::memmove(data(), data() + m_complete, rest);
  m_buffer.Pop(m_complete);
  m_complete = 0;
}

void Output::flush() {
  m_complete = 0;
  if (m_buffer.GetSize() == 0) {
    return;
  }
  // Cleared first (the bytes stay where they are until the next write): if emit
  // throws, nothing is written twice by a later flush.
  const std::string_view pending(data(), m_buffer.GetSize());
  m_buffer.Clear();
  emit(pending);
  if (m_buffer.stack_.GetCapacity() > k_keep_at_most) {
    m_buffer.ShrinkToFit();
  }
}

void Output::write_through(std::string_view bytes) {
  flush();
  emit(bytes);
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

namespace {

// The temporary file to remove when a signal ends the run: one FileOutput at a
// time has one. The handler reads only this buffer (async-signal-safe).
char g_cleanup_path[4096];
volatile std::sig_atomic_t g_cleanup_armed = 0;
constexpr int k_cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction g_previous[3];

extern "C" void remove_temporary_and_die(int signal) {
  if (g_cleanup_armed != 0) {
    ::unlink(g_cleanup_path);
  }
  // Die of the signal, as without the handler: the shell sees 128 + signal.
  struct sigaction action {};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  ::sigaction(signal, &action, nullptr);
  ::raise(signal);
}

void arm_cleanup(const std::string& path) {
  if (path.size() >= sizeof g_cleanup_path) {
    return;  // too long to keep: a signal then leaves it behind
  }
  std::memcpy(g_cleanup_path, path.c_str(), path.size() + 1);
  g_cleanup_armed = 1;
  struct sigaction action {};
  action.sa_handler = remove_temporary_and_die;
  sigemptyset(&action.sa_mask);
  for (std::size_t i = 0; i < std::size(k_cleanup_signals); ++i) {
    ::sigaction(k_cleanup_signals[i], nullptr, &g_previous[i]);
    if (g_previous[i].sa_handler != SIG_IGN) {  // nohup's SIGHUP stays ignored
      ::sigaction(k_cleanup_signals[i], &action, nullptr);
    }
  }
}

void disarm_cleanup() {
  if (g_cleanup_armed == 0) {
    return;
  }
  for (std::size_t i = 0; i < std::size(k_cleanup_signals); ++i) {
    ::sigaction(k_cleanup_signals[i], &g_previous[i], nullptr);
  }
  g_cleanup_armed = 0;
}

// `path` with its symlinks followed to the last name, which may not exist yet (a
// dangling link names the file to create). Relative link targets are taken from
// the link's directory.
std::string follow_links(std::string path) {
  for (int hops = 0; hops < 40; ++hops) {
    struct stat info {};
    if (::lstat(path.c_str(), &info) != 0 || !S_ISLNK(info.st_mode)) {
      return path;
    }
    std::string target(PATH_MAX, '\0');
    ssize_t n = ::readlink(path.c_str(), target.data(), target.size());
    if (n <= 0) {
      return path;
    }
    target.resize(static_cast<std::size_t>(n));
    if (target.front() != '/') {
      std::size_t slash = path.rfind('/');
      target.insert(0, slash == std::string::npos ? std::string() : path.substr(0, slash + 1));
    }
    path = std::move(target);
  }
  return path;  // a loop: let open() report it
}

}  // namespace

FileOutput::FileOutput(std::string path) : m_path(std::move(path)) {
  struct stat info {};
  if (::stat(m_path.c_str(), &info) == 0 && !S_ISREG(info.st_mode)) {
    if (S_ISDIR(info.st_mode)) {
      throw Error(fmt::format("{}: cannot write: is a directory", m_path), ExitCode::output);
    }
    // A device, FIFO or socket (/dev/null, /dev/stdout on a pipe): write to it.
    m_fd = ::open(m_path.c_str(), O_WRONLY | O_CLOEXEC);
    if (m_fd < 0) {
      throw Error(fmt::format("{}: cannot write: {}", m_path, std::strerror(errno)),
                  ExitCode::output);
    }
    return;
  }
  m_target = follow_links(m_path);
  // Beside the target, so that the rename stays within one file system. The name
  // is armed for removal on a signal before the file exists (mkstemp would leave a
  // moment when it exists and is not armed).
  std::random_device random;
  for (int attempt = 0; m_fd < 0; ++attempt) {
    m_temporary = fmt::format("{}.convo-{:08x}", m_target, random());
    arm_cleanup(m_temporary);
    m_fd = ::open(m_temporary.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (m_fd < 0) {
      int error = errno;
      disarm_cleanup();
      if (error != EEXIST || attempt >= 100) {
        throw Error(fmt::format("{}: cannot create: {}", m_path, std::strerror(error)),
                    ExitCode::output);
      }
    }
  }
  if (::stat(m_target.c_str(), &info) == 0) {
    // Replacing a file: it keeps its permissions, and its owner where we may.
    ::fchmod(m_fd, info.st_mode & 07777);
    if (::fchown(m_fd, info.st_uid, info.st_gid) != 0) {
      // Not allowed (another user's file we may write): the file becomes ours.
    }
  } else {
    // The file was made private (0600); give it the mode a new file would get.
    mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(m_fd, 0666 & ~mask);
  }
}

FileOutput::~FileOutput() {
  if (m_fd >= 0) {
    ::close(m_fd);
    if (!m_temporary.empty()) {
      ::unlink(m_temporary.c_str());
      disarm_cleanup();
    }
  }
}

void FileOutput::emit(std::string_view bytes) { write_all(m_fd, bytes, m_path); }

void FileOutput::commit() {
  flush();
  int fd = m_fd;
  m_fd = -1;
  if (::close(fd) != 0) {
    int error = errno;
    if (!m_temporary.empty()) {
      ::unlink(m_temporary.c_str());
      disarm_cleanup();
    }
    throw Error(fmt::format("{}: write failed: {}", m_path, std::strerror(error)),
                ExitCode::output);
  }
  if (m_temporary.empty()) {
    return;
  }
  if (::rename(m_temporary.c_str(), m_target.c_str()) != 0) {
    int error = errno;
    ::unlink(m_temporary.c_str());
    disarm_cleanup();
    throw Error(fmt::format("{}: cannot write: {}", m_path, std::strerror(error)),
                ExitCode::output);
  }
  disarm_cleanup();
}

}  // namespace convo
