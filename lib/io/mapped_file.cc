#include "io/mapped_file.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <new>

namespace convo {

namespace {

std::atomic<std::size_t> g_window{MappedFile::k_window};

// The SIGBUS guard. A mapped page past the end of a file that shrank after it was
// mapped raises SIGBUS when read; the handler maps a page of zeros over it, marks
// the file's slot, and the read goes on, for the reader to report the file as
// changed. One slot per file mapped at once (one per input being read: -j reads a
// few); a file finding none is read with read(2). The handler reads only these
// atomics, and calls only mmap and sigaction (async-signal-safe).
constexpr int k_slots = 64;
struct Slot {
  std::atomic<bool> used{false};
  std::atomic<std::uintptr_t> begin{0};
  std::atomic<std::uintptr_t> end{0};
  std::atomic<bool> shrank{false};
};
Slot g_slots[k_slots];
struct sigaction g_previous_sigbus;

std::size_t page_size() {
  static const std::size_t size = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

extern "C" void on_sigbus(int signal, siginfo_t* info, void* context) {
  const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  for (Slot& slot : g_slots) {
    if (slot.used.load(std::memory_order_relaxed) &&
        address >= slot.begin.load(std::memory_order_relaxed) &&
        address < slot.end.load(std::memory_order_relaxed)) {
      const std::uintptr_t page = address & ~(static_cast<std::uintptr_t>(page_size()) - 1);
      void* zeros = ::mmap(reinterpret_cast<void*>(page), page_size(), PROT_READ,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
      if (zeros != MAP_FAILED) {
        slot.shrank.store(true, std::memory_order_relaxed);
        return;  // the read is retried, and reads zeros
      }
      break;
    }
  }
  // Not a window's: what would have happened without this handler.
  if ((g_previous_sigbus.sa_flags & SA_SIGINFO) != 0 && g_previous_sigbus.sa_sigaction != nullptr) {
    g_previous_sigbus.sa_sigaction(signal, info, context);
    return;
  }
  if (g_previous_sigbus.sa_handler != SIG_DFL && g_previous_sigbus.sa_handler != SIG_IGN) {
    g_previous_sigbus.sa_handler(signal);
    return;
  }
  struct sigaction action {};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGBUS, &action, nullptr);  // the fault recurs, and kills as SIGBUS does
}

bool install_guard() {
  static const bool installed = [] {
    struct sigaction action {};
    action.sa_sigaction = on_sigbus;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    return ::sigaction(SIGBUS, &action, &g_previous_sigbus) == 0;
  }();
  return installed;
}

int take_slot() {
  for (int i = 0; i < k_slots; ++i) {
    bool expected = false;
    if (g_slots[i].used.compare_exchange_strong(expected, true)) {
      g_slots[i].begin.store(0);
      g_slots[i].end.store(0);
      g_slots[i].shrank.store(false);
      return i;
    }
  }
  return -1;
}

}  // namespace

std::unique_ptr<MappedFile> MappedFile::open(int fd) {
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !install_guard()) {
    return nullptr;
  }
  const int slot = take_slot();
  if (slot < 0) {
    return nullptr;
  }
  return std::unique_ptr<MappedFile>(new MappedFile(fd, static_cast<std::uint64_t>(st.st_size), slot));
}

MappedFile::MappedFile(int fd, std::uint64_t size, int slot) : m_fd(fd), m_size(size), m_slot(slot) {}

MappedFile::~MappedFile() {
  unmap();
  g_slots[m_slot].used.store(false);
}

void MappedFile::unmap() {
  if (m_window == nullptr) {
    return;
  }
  // The guard forgets the window before it goes.
  g_slots[m_slot].end.store(0);
  g_slots[m_slot].begin.store(0);
  ::munmap(m_window, m_length);
  m_window = nullptr;
  m_length = 0;
}

bool MappedFile::shrank() const { return g_slots[m_slot].shrank.load(std::memory_order_relaxed); }

std::size_t MappedFile::window_size() { return g_window.load(std::memory_order_relaxed); }

void MappedFile::set_window_size(std::size_t bytes) {
  g_window.store(std::max(bytes, page_size()), std::memory_order_relaxed);
}

const char* MappedFile::at(std::uint64_t offset, std::size_t& available) {
  if (m_window != nullptr && offset >= m_start && offset < m_start + m_length) {
    available = static_cast<std::size_t>(m_start + m_length - offset);
    return m_window + (offset - m_start);
  }
  if (offset >= m_size) {
    struct stat st {};
    if (::fstat(m_fd, &st) == 0) {
      m_size = static_cast<std::uint64_t>(st.st_size);
    }
    if (offset >= m_size) {
      available = 0;
      return nullptr;
    }
  }
  unmap();
  const std::uint64_t start = offset & ~(static_cast<std::uint64_t>(page_size()) - 1);
  const auto length = static_cast<std::size_t>(std::min<std::uint64_t>(window_size(), m_size - start));
  void* window = ::mmap(nullptr, length, PROT_READ, MAP_PRIVATE, m_fd,
                        static_cast<off_t>(start));
  if (window == MAP_FAILED) {
    throw std::bad_alloc();
  }
  ::madvise(window, length, MADV_SEQUENTIAL);  // read ahead, and let pages read go
  m_window = static_cast<char*>(window);
  m_start = start;
  m_length = length;
  const auto begin = reinterpret_cast<std::uintptr_t>(m_window);
  g_slots[m_slot].begin.store(begin);
  g_slots[m_slot].end.store(begin + ((length + page_size() - 1) & ~(page_size() - 1)));
  available = static_cast<std::size_t>(m_start + m_length - offset);
  return m_window + (offset - m_start);
}

}  // namespace convo
