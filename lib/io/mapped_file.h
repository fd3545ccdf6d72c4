// A regular file read through a sliding read-only mapping instead of read(2): the
// record reader finds each line in the page cache, parses it there and copies it
// once, to keep, without a system call and the kernel's page-cache walk for each
// read (system time of a streaming conversion about halved). Only the window being
// read is mapped, so address space and resident memory stay flat whatever the
// file's size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace convo {

class MappedFile {
 public:
  // The file open on `fd` (which must stay open while this lives), or null when it
  // is not one to map (not a regular file, every guard slot taken, the SIGBUS
  // guard not installed): the caller reads it as before. Nothing is mapped yet.
  static std::unique_ptr<MappedFile> open(int fd);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  // The bytes from `offset` on, as many as the window holds (at least one, unless
  // `offset` is at the end of the file, when `available` is 0). Maps a new window
  // when `offset` is outside the current one; the file's size is looked at again
  // when `offset` reaches it, so bytes appended while it is read are read too.
  // Throws std::bad_alloc when the window cannot be mapped.
  const char* at(std::uint64_t offset, std::size_t& available);

  // True once a byte of a window could not be read because the file shrank under
  // it: the page read as zeros (instead of SIGBUS killing convo). Bytes read since
  // are not the file's; the reader reports the file as changed.
  bool shrank() const;

  // The window: large enough that mapping it costs nothing next to reading it (one
  // mmap and munmap per 8 MB), small enough to take no memory worth counting (a
  // long line's record takes twice its size; the window adds 8 MB to that, not the
  // line's size again). Measured on the 200 MB Responses bench file: the same CPU
  // time with windows of 8, 32 and 128 MB, and none better with MAP_POPULATE.
  static constexpr std::size_t k_window = std::size_t{8} << 20;
  // The window's size: `k_window` unless set lower (a page at least), as tests do
  // to meet lines at a window's end often. One for the process: set it while no
  // file is mapped.
  static std::size_t window_size();
  static void set_window_size(std::size_t bytes);

  // The file's size when last looked at.
  std::uint64_t size() const { return m_size; }

 private:
  MappedFile(int fd, std::uint64_t size, int slot);
  void unmap();

  int m_fd;
  std::uint64_t m_size;       // the file's size when last looked at
  int m_slot;                 // this file's slot in the SIGBUS guard
  char* m_window = nullptr;   // the mapping, or null
  std::uint64_t m_start = 0;  // file offset of m_window[0] (page aligned)
  std::size_t m_length = 0;   // bytes of the file in the mapping
};

}  // namespace convo
