// Page-locks the shared-memory ranges of one run, so the copies to and from
// the GPU are real asynchronous DMA. Not cached across runs: the engine may
// remap shared memory at the same addresses, and a stale registration would
// copy the old pages. No CUDA header here; nccl/host_pin.cpp has the calls.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "engine/text.h"

namespace collviz {

class HostPin {
 public:
  HostPin() = default;
  HostPin(const HostPin&) = delete;
  HostPin& operator=(const HostPin&) = delete;
  ~HostPin();  // unregisters; a failure is logged on stderr

  // Registers [a, a+an) and [b, b+bn) (either may be null/empty). On failure
  // the copies stay pageable, which describe() says.
  void pin(const void* a, std::size_t an, const void* b, std::size_t bn);
  // "page-locked (cudaHostRegister)" or "pageable (why)"; empty before pin().
  Text describe() const;
  // After a failure copies may still be in flight: leave the pages pinned
  // (the worker is about to be replaced).
  void keep() { pinned_.clear(); tried_ = false; }
  bool active() const { return tried_; }

 private:
  std::vector<void*> pinned_;
  std::string pageable_;  // why not page-locked
  bool tried_ = false;    // past allocation: copies may have been queued
};

}  // namespace collviz
