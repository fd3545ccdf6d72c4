// Buffered output. Everything convo writes to standard output goes through here, in
// large writes; a vanished reader (EPIPE) becomes convo::BrokenPipe, any other write
// failure a convo::Error with ExitCode::output.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <cstring>
#include <string>
#include <string_view>

#include "json.h"

namespace convo {

class Output {
 public:
  virtual ~Output() = default;

  // Bytes of k_flush_at or more (a record of hundreds of MB passed through) go
  // straight to the destination unless held back: buffering them would copy them.
  void write(std::string_view bytes) {
    if (bytes.size() >= k_flush_at && !m_holding) {
      write_through(bytes);
      return;
    }
    append(bytes);
    wrote();
  }
  // Writes `line` and a LF.
  void write_line(std::string_view line) {
    if (line.size() >= k_flush_at && !m_holding) {
      write_through(line);
      m_buffer.Put('\n');
      return;
    }
    append(line);
    m_buffer.Put('\n');
    wrote();
  }

  // --- Writing in place ---
  // The buffer that holds what is not written out yet: an encoder appends its
  // records there (`Records`) rather than building them elsewhere to be copied
  // here. Nothing else may write to this output until `wrote`.
  rapidjson::StringBuffer& buffer() { return m_buffer; }
  // What was appended to `buffer()` is written: it goes out once enough is held.
  void wrote() {
    if (m_buffer.GetSize() >= k_flush_at && ready_to_flush()) {
      flush_ready();
    }
  }
  // Hands everything buffered to the destination.
  void flush();

  // --- Holding back incomplete output (all-or-nothing per conversation) ---
  // While holding, the buffer is written out only up to the last `mark_complete`, so
  // that `discard_incomplete` can take back what was written after it (the part of a
  // conversation that failed). `flush` still writes everything.
  void set_holding(bool on) {
    m_holding = on;
    m_complete = m_buffer.GetSize();
  }
  bool holding() const { return m_holding; }
  // Everything written so far is complete: it may be written out.
  // While holding, the buffer is written out here once past the flush point (rather
  // than in the middle of a record, which would then be moved to the buffer's start).
  void mark_complete() {
    m_complete = m_buffer.GetSize();
    if (m_holding && m_complete >= k_flush_at) {
      flush_ready();
    }
  }
  // While holding, drops what was written since the last `mark_complete`.
  void discard_incomplete() {
    if (m_holding) {
      m_buffer.Pop(m_buffer.GetSize() - std::min(m_complete, m_buffer.GetSize()));
    }
  }

 protected:
  // Writes all of `bytes` to the destination or throws.
  virtual void emit(std::string_view bytes) = 0;

 private:
  // Writes out what may be written: all, or the complete part while holding.
  void flush_ready();
  // Not holding, or holding a flush point's worth of complete output.
  bool ready_to_flush() const { return !m_holding || m_complete >= k_flush_at; }
  // Flushes what is buffered, then hands `bytes` to the destination uncopied.
  void write_through(std::string_view bytes);
  void append(std::string_view bytes) {
    if (!bytes.empty()) {
      std::memcpy(m_buffer.Push(bytes.size()), bytes.data(), bytes.size());
    }
  }
  // What is buffered (the buffer's stack, without GetString's terminating NUL).
  char* data() { return m_buffer.stack_.Bottom<char>(); }

  static constexpr std::size_t k_flush_at = std::size_t{1} << 18;
  // A buffer grown past this by a long record (or the room reserved to escape a
  // long string) is freed once flushed, so that memory stays flat.
  static constexpr std::size_t k_keep_at_most = std::size_t{1} << 24;
  rapidjson::StringBuffer m_buffer;
  bool m_holding = false;
  std::size_t m_complete = 0;  // while holding: bytes of m_buffer that are complete
};

// Writes to a file descriptor (standard output by default). `name` is used in error
// messages ("<stdout>").
class FdOutput final : public Output {
 public:
  explicit FdOutput(int fd, std::string name = "<stdout>") : m_fd(fd), m_name(std::move(name)) {}

 protected:
  void emit(std::string_view bytes) override;

 private:
  int m_fd;
  std::string m_name;
};

// Writes to `path`, all or nothing where that is possible.
//
// A regular file (or a path that does not exist yet) gets the bytes in a temporary
// file beside it, renamed into place on commit and removed if the object is
// destroyed first, or the process is ended by SIGINT, SIGTERM or SIGHUP (it then
// dies of that signal). A failed run never leaves a partial file that looks
// complete, and never clobbers the file it would have replaced. A symlink is
// written through: the file it points to is replaced and the link stays. An
// existing file keeps its permission bits (and its owner, where that is allowed).
//
// Anything else (/dev/null, /dev/stdout on a pipe or terminal, a FIFO) is opened
// and written to directly, as the bytes come: it cannot be replaced, and a run that
// fails leaves there what it wrote before the failure.
class FileOutput final : public Output {
 public:
  // Opens the destination; throws convo::Error (ExitCode::output) when it cannot.
  explicit FileOutput(std::string path);
  ~FileOutput() override;
  FileOutput(const FileOutput&) = delete;
  FileOutput& operator=(const FileOutput&) = delete;

  // Flushes and closes the file, renaming it into place. Throws convo::Error.
  void commit();

 protected:
  void emit(std::string_view bytes) override;

 private:
  std::string m_path;       // as given, for messages
  std::string m_target;     // the regular file to replace (symlinks followed)
  std::string m_temporary;  // empty when writing straight to `m_path`
  int m_fd = -1;
};

// Collects output in memory (tests).
class StringOutput final : public Output {
 public:
  // Everything written so far, after a flush.
  const std::string& str() {
    flush();
    return m_text;
  }

 protected:
  void emit(std::string_view bytes) override { m_text.append(bytes); }

 private:
  std::string m_text;
};

}  // namespace convo
