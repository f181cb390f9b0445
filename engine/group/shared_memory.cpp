#include "engine/group/shared_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

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

Result<SharedMemory> SharedMemory::create(std::size_t bytes, const char* name) {
  if (bytes == 0) bytes = 1;
  int fd = ::memfd_create(name, MFD_CLOEXEC);
  if (fd < 0) return Error{say("{0}: {1}", "memfd_create", std::strerror(errno))};
  if (::ftruncate(fd, off_t(bytes)) != 0) {
    const int err = errno;
    ::close(fd);
    return Error{say("shared memory of {0} bytes: {1}: {2}", bytes, "ftruncate", std::strerror(err))};
  }
  // Every page is written (inputs, poison, outputs): allocate them at once
  // rather than one fault per page in the middle of a run (where the
  // system refuses, they come as they are touched, as before).
  (void)::fallocate(fd, 0, 0, off_t(bytes));
  return attach(fd, bytes);
}

Result<SharedMemory> SharedMemory::attach(int fd, std::size_t bytes) {
  if (bytes == 0) bytes = 1;
  // MAP_POPULATE: the page tables filled now, not a fault per page later.
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
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
