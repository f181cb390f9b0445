#include "engine/group/shared_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace collviz {

SharedMemory::~SharedMemory() { reset(); }

SharedMemory::SharedMemory(SharedMemory&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)),
      size_(std::exchange(o.size_, 0)),
      fd_(std::exchange(o.fd_, -1)) {}

SharedMemory& SharedMemory::operator=(SharedMemory&& o) noexcept {
  if (this != &o) {
    reset();
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    fd_ = std::exchange(o.fd_, -1);
  }
  return *this;
}

void SharedMemory::reset() {
  if (data_) ::munmap(data_, size_);
  if (fd_ >= 0) ::close(fd_);
  data_ = nullptr;
  size_ = 0;
  fd_ = -1;
}

namespace {

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25  // Linux 6.1; glibc 2.36's headers lack it
#endif

// Huge pages (2 MiB) for a mapping of at least this size: one page-table
// entry instead of 512, so each process's first touch of its buffers costs
// a fault per 2 MiB, not per 4 KiB. Under a hypervisor that shadows the
// guest's page tables (this VM's) a 4 KiB first touch cost 3-12 us even
// after MAP_POPULATE: 128 MiB of a 4-rank 16 MiB all_reduce took 0.4-0.8 s
// of CPU across the engine and the ranks (docs/performance.md, one-shot).
constexpr std::size_t kHugePage = std::size_t(2) << 20;

std::size_t roundedSize(std::size_t bytes) {
  if (bytes < kHugePage) return bytes;
  return (bytes + kHugePage - 1) / kHugePage * kHugePage;
}

// `fd`'s first `bytes` mapped at an address aligned to a huge page (where it
// is big enough to hold one), so that huge pages of the file map whole.
void* mapAligned(int fd, std::size_t bytes, int flags) {
  if (bytes < kHugePage) return ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | flags, fd, 0);
  void* area = ::mmap(nullptr, bytes + kHugePage, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (area == MAP_FAILED) return MAP_FAILED;
  char* const start = static_cast<char*>(area);
  char* const at = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(start) + kHugePage - 1) & ~(kHugePage - 1));
  void* p = ::mmap(at, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | flags, fd, 0);
  if (p == MAP_FAILED) {
    const int err = errno;
    ::munmap(area, bytes + kHugePage);
    errno = err;
    return MAP_FAILED;
  }
  if (at > start) ::munmap(start, std::size_t(at - start));  // the slack around it
  char* const end = at + bytes;
  if (end < start + bytes + kHugePage) ::munmap(end, std::size_t(start + bytes + kHugePage - end));
  return p;
}

// The memfds' pages made huge where the kernel agrees: a byte written in
// each 2 MiB, then MADV_COLLAPSE, which fills each 2 MiB into one zeroed
// huge page (a hole alone is refused; a page per 2 MiB is cheap to copy).
// MADV_COLLAPSE works whatever /sys/kernel/mm/transparent_hugepage/
// shmem_enabled says ("never" here). Where it is refused (older kernels,
// memory too fragmented) the pages stay small, as before. One call for all
// of them, the files side by side: each call first drains every CPU's page
// lists, waiting for a kernel thread on each CPU, which on a loaded machine
// waits its turn (0.1-0.6 s a call on this 2-core VM under load 10).
void collapse(const std::vector<int>& fds, const std::vector<std::size_t>& sizes) {
  std::size_t total = 0;
  const char zero = 0;
  for (std::size_t i = 0; i < fds.size(); ++i) {
    if (sizes[i] < kHugePage) continue;
    for (std::size_t at = 0; at < sizes[i]; at += kHugePage)
      if (::pwrite(fds[i], &zero, 1, off_t(at)) != 1) return;
    total += sizes[i];
  }
  if (total == 0) return;
  void* area = ::mmap(nullptr, total + kHugePage, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (area == MAP_FAILED) return;
  char* at = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(area) + kHugePage - 1) & ~(kHugePage - 1));
  char* const first = at;
  bool mapped = true;
  for (std::size_t i = 0; i < fds.size() && mapped; ++i) {
    if (sizes[i] < kHugePage) continue;
    mapped = ::mmap(at, sizes[i], PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fds[i], 0) != MAP_FAILED;
    at += sizes[i];  // whole huge pages: the next file starts aligned
  }
  if (mapped) (void)::madvise(first, total, MADV_COLLAPSE);
  ::munmap(area, total + kHugePage);
}

}  // namespace

Result<SharedMemory> SharedMemory::create(std::size_t bytes, const char* name) {
  auto many = createMany({bytes}, name);
  if (!many) return many.error();
  return std::move(many->front());
}

Result<std::vector<SharedMemory>> SharedMemory::createMany(const std::vector<std::size_t>& wanted,
                                                           const char* name) {
  std::vector<int> fds;
  std::vector<std::size_t> sizes;
  auto closeAll = [&] {
    for (int fd : fds) ::close(fd);
  };
  for (std::size_t bytes : wanted) {
    bytes = roundedSize(std::max<std::size_t>(bytes, 1));
    int fd = ::memfd_create(name, MFD_CLOEXEC);
    if (fd < 0) {
      const int err = errno;
      closeAll();
      return Error{say("{0}: {1}", "memfd_create", std::strerror(err))};
    }
    fds.push_back(fd);
    sizes.push_back(bytes);
    if (::ftruncate(fd, off_t(bytes)) != 0) {
      const int err = errno;
      closeAll();
      return Error{say("shared memory of {0} bytes: {1}: {2}", bytes, "ftruncate", std::strerror(err))};
    }
  }
  collapse(fds, sizes);
  std::vector<SharedMemory> out;
  for (std::size_t i = 0; i < fds.size(); ++i) {
    // Every page is written (inputs, poison, outputs): allocate them at
    // once rather than one fault per page in the middle of a run (where
    // the system refuses, they come as they are touched, as before; pages
    // made huge above are there already).
    (void)::fallocate(fds[i], 0, 0, off_t(sizes[i]));
    auto m = attach(fds[i], sizes[i]);  // closes its fd when it fails
    fds[i] = -1;
    if (!m) {
      for (std::size_t k = i + 1; k < fds.size(); ++k) ::close(fds[k]);
      return m.error();
    }
    out.push_back(std::move(*m));
  }
  return out;
}

Result<SharedMemory> SharedMemory::attach(int fd, std::size_t bytes) {
  if (bytes == 0) bytes = 1;
  // MAP_POPULATE: the page tables filled now, not a fault per page later.
  void* p = mapAligned(fd, bytes, MAP_POPULATE);
  if (p == MAP_FAILED) {
    const int err = errno;
    ::close(fd);
    return Error{say("shared memory of {0} bytes: {1}: {2}", bytes, "mmap", std::strerror(err))};
  }
  SharedMemory m;
  m.data_ = static_cast<char*>(p);
  m.size_ = bytes;
  m.fd_ = fd;
  return m;
}

}  // namespace collviz
