#include "engine/worker/nccl/host_pin.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <utility>

#include "engine/worker/nccl/common.h"

namespace collviz {

HostPin::~HostPin() {
  for (void* p : pinned_) {
    const cudaError_t e = cudaHostUnregister(p);
    if (e != cudaSuccess) {
      cudaGetLastError();
      std::fprintf(stderr, "collviz-rank: cudaHostUnregister(%p) failed: %s\n", p,
                   nccl_detail::cudaText(e).c_str());
    }
  }
}

void HostPin::pin(const void* a, std::size_t an, const void* b, std::size_t bn) {
  tried_ = true;
  pageable_.clear();
  const std::uintptr_t page = 4096;
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> r;
  for (auto [p, n] : {std::pair{a, an}, std::pair{b, bn}}) {
    if (!p || n == 0) continue;
    const auto lo = reinterpret_cast<std::uintptr_t>(p) & ~(page - 1);
    const auto hi = (reinterpret_cast<std::uintptr_t>(p) + n + page - 1) & ~(page - 1);
    if (!r.empty() && lo <= r[0].second && r[0].first <= hi) {  // overlap: one range
      r[0] = {std::min(lo, r[0].first), std::max(hi, r[0].second)};
    } else {
      r.emplace_back(lo, hi);
    }
  }
  for (auto [lo, hi] : r) {
    void* p = reinterpret_cast<void*>(lo);
    const cudaError_t e = cudaHostRegister(p, hi - lo, cudaHostRegisterDefault);
    if (e == cudaSuccess) {
      pinned_.push_back(p);
    } else {
      cudaGetLastError();
      if (e != cudaErrorHostMemoryAlreadyRegistered && pageable_.empty())
        pageable_ = "cudaHostRegister: " + nccl_detail::cudaText(e);
    }
  }
}

Text HostPin::describe() const {
  if (!tried_) return {};
  return pageable_.empty() ? say("page-locked (cudaHostRegister)") : say("pageable ({0})", pageable_);
}

}  // namespace collviz
