// SharedMemory: an anonymous memfd mapping. It has no name in /dev/shm, so
// nothing can be left behind by any exit, crash or kill: the memory goes
// when the last process holding the descriptor or a mapping ends. (The
// "create 0600, unlink once mapped" scheme has a window where a crash leaks
// the name; a memfd has no such window.) The engine creates one per rank and
// passes the descriptor to that rank's worker over its channel. One of 2 MiB
// or more is rounded up to whole 2 MiB and made of huge pages where the
// kernel agrees (MADV_COLLAPSE), each mapping aligned to them: a process's
// first touch of its buffers is then a fault per 2 MiB, not per 4 KiB.
#pragma once

#include <cstddef>
#include <vector>

#include "engine/text.h"

namespace collviz {

// Offsets of the buffers inside one rank's mapping start on a page.
inline constexpr std::size_t kPageAlign = 4096;
inline constexpr std::size_t alignToPage(std::size_t n) {
  return (n + kPageAlign - 1) / kPageAlign * kPageAlign;
}

class SharedMemory {
 public:
  SharedMemory() = default;
  ~SharedMemory();
  SharedMemory(SharedMemory&& o) noexcept;
  SharedMemory& operator=(SharedMemory&& o) noexcept;
  SharedMemory(const SharedMemory&) = delete;
  SharedMemory& operator=(const SharedMemory&) = delete;

  static Result<SharedMemory> create(std::size_t bytes, const char* name);
  // One for each of `bytes`, their huge pages made in one kernel call (its
  // fixed cost paid once: shared_memory.cpp, collapse).
  static Result<std::vector<SharedMemory>> createMany(const std::vector<std::size_t>& bytes,
                                                      const char* name);
  // Map a descriptor received from the peer; takes ownership of fd.
  static Result<SharedMemory> attach(int fd, std::size_t bytes);

  char* data() const { return data_; }
  std::size_t size() const { return size_; }
  int fd() const { return fd_; }
  void reset();

 private:
  char* data_ = nullptr;
  std::size_t size_ = 0;
  int fd_ = -1;
};

}  // namespace collviz
