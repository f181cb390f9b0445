// The stand-in CUDA runtime's memory: "device memory" is host memory that
// cudaMalloc maps (and counts against its device's size), so every device
// pointer a call receives is checked against what was allocated; copies and
// memsets run on their stream; a copy from or to host memory that is not
// page-locked (cudaHostRegister, cudaMallocHost) is synchronous with the
// host, as CUDA documents for pageable memory, a page-locked one is not.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "tests/standin/runtime.h"

namespace collviz::standin {

std::size_t deviceBytes();            // runtime_devices.cpp
void synchronizeDevice(int device);  // runtime_streams.cpp

namespace {

struct Block {
  std::size_t bytes;
  std::size_t mapped;
  int device;
};

// Never destroyed: stream threads may outlive main.
std::mutex& g_mu = *new std::mutex;
std::map<const char*, Block>& g_device = *new std::map<const char*, Block>;  // base -> allocation
std::map<const char*, std::size_t>& g_pinned = *new std::map<const char*, std::size_t>;  // cudaHostRegister's, cudaMallocHost's
std::map<const char*, std::size_t>& g_host_alloc = *new std::map<const char*, std::size_t>;  // cudaMallocHost's own
std::map<int, std::size_t>& g_used = *new std::map<int, std::size_t>;  // device -> bytes allocated

std::string hex(const void* p) {
  char b[32];
  std::snprintf(b, sizeof b, "%p", p);
  return b;
}

// The allocation holding p, or end.
std::map<const char*, Block>::const_iterator holding(const char* p) {
  auto it = g_device.upper_bound(p);
  if (it == g_device.begin()) return g_device.end();
  --it;
  return p < it->first + it->second.bytes ? it : g_device.end();
}

bool pinnedRange(const void* p, std::size_t n) {
  const char* c = static_cast<const char*>(p);
  auto it = g_pinned.upper_bound(c);
  if (it == g_pinned.begin()) return false;
  --it;
  return c >= it->first && c + n <= it->first + it->second;
}

// Every page of [p, p+n) is mapped in this process.
bool mapped(const void* p, std::size_t n) {
  const std::uintptr_t page = std::uintptr_t(::sysconf(_SC_PAGESIZE));
  const std::uintptr_t lo = reinterpret_cast<std::uintptr_t>(p) & ~(page - 1);
  const std::uintptr_t hi = (reinterpret_cast<std::uintptr_t>(p) + n + page - 1) & ~(page - 1);
  std::vector<unsigned char> v((hi - lo) / page);
  return ::mincore(reinterpret_cast<void*>(lo), hi - lo, v.data()) == 0;
}

}  // namespace

std::string checkDeviceRange(const void* p, std::size_t bytes, int device, const std::string& what) {
  const char* c = static_cast<const char*>(p);
  std::lock_guard<std::mutex> lock(g_mu);
  if (!p) return what + " is a null pointer (" + std::to_string(bytes) + " bytes needed)";
  auto it = holding(c);
  if (it == g_device.end())
    return what + " " + hex(p) + " is not device memory: no cudaMalloc of this process holds it";
  const std::size_t off = std::size_t(c - it->first);
  if (bytes > it->second.bytes - off)
    return what + " " + hex(p) + " needs " + std::to_string(bytes) + " bytes, but its cudaMalloc (" +
           hex(it->first) + ", " + std::to_string(it->second.bytes) + " bytes) has " +
           std::to_string(it->second.bytes - off) + " from there";
  if (device >= 0 && it->second.device != device)
    return what + " " + hex(p) + " is memory of device " + std::to_string(it->second.device) + ", not of device " +
           std::to_string(device);
  return "";
}

bool isDeviceMemory(const void* p) {
  std::lock_guard<std::mutex> lock(g_mu);
  return holding(static_cast<const char*>(p)) != g_device.end();
}

void memoryInfo(int device, std::size_t* free, std::size_t* total) {
  std::lock_guard<std::mutex> lock(g_mu);
  *total = deviceBytes();
  *free = *total - std::min(*total, g_used[device]);
}

}  // namespace collviz::standin

using namespace collviz::standin;

namespace {

// A copy's or memset's stream work; pageable host memory makes the call wait for it.
cudaError_t queue(const char* call, cudaStream_t s, Task t, bool wait) {
  if (streamDevice(s) < 0)
    return fail(cudaErrorInvalidResourceHandle, std::string(call) + ": not a live stream of this process");
  if (!wait) {
    enqueue(s, std::move(t));
    return cudaSuccess;
  }
  auto m = std::make_shared<std::pair<std::mutex, std::condition_variable>>();
  auto finished = std::make_shared<bool>(false);
  enqueue(s, [t = std::move(t), m, finished] {
    t();
    std::lock_guard<std::mutex> lock(m->first);
    *finished = true;
    m->second.notify_all();
  });
  std::unique_lock<std::mutex> lock(m->first);
  m->second.wait(lock, [&] { return *finished; });
  return cudaSuccess;
}

cudaError_t copy(const char* call, void* dst, const void* src, std::size_t n, cudaMemcpyKind kind,
                 cudaStream_t s, bool async) {
  const int dev = streamDevice(s);
  if (dev < 0) return fail(cudaErrorInvalidResourceHandle, std::string(call) + ": not a live stream");
  if (n == 0) return cudaSuccess;
  const bool dst_dev = isDeviceMemory(dst), src_dev = isDeviceMemory(src);
  if (kind == cudaMemcpyDefault)
    kind = dst_dev ? (src_dev ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                   : (src_dev ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
  const bool want_dst = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const bool want_src = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (kind != cudaMemcpyHostToHost && kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToHost &&
      kind != cudaMemcpyDeviceToDevice)
    return fail(cudaErrorInvalidMemcpyDirection, std::string(call) + ": kind " + std::to_string(int(kind)));
  if (want_dst) {
    if (std::string why = checkDeviceRange(dst, n, dev, std::string(call) + " dst"); !why.empty())
      return fail(cudaErrorInvalidValue, why);
  } else if (dst_dev) {
    return fail(cudaErrorInvalidValue, std::string(call) + ": dst is device memory, but the kind says host");
  }
  if (want_src) {
    if (std::string why = checkDeviceRange(src, n, dev, std::string(call) + " src"); !why.empty())
      return fail(cudaErrorInvalidValue, why);
  } else if (src_dev) {
    return fail(cudaErrorInvalidValue, std::string(call) + ": src is device memory, but the kind says host");
  }
  const void* host = kind == cudaMemcpyHostToDevice ? src : kind == cudaMemcpyDeviceToHost ? dst : nullptr;
  bool pinned = false;
  if (host) {
    std::lock_guard<std::mutex> lock(g_mu);
    pinned = pinnedRange(host, n);
  }
  return queue(call, s, [dst, src, n] { std::memmove(dst, src, n); }, !async || (host && !pinned));
}

}  // namespace

extern "C" {

cudaError_t cudaMalloc(void** p, std::size_t bytes) {
  if (auto e = gate("cudaMalloc")) return e;
  if (!p) return fail(cudaErrorInvalidValue, "cudaMalloc: null pointer");
  *p = nullptr;
  if (bytes == 0) return cudaSuccess;
  const int dev = currentDevice();
  const std::size_t page = std::size_t(::sysconf(_SC_PAGESIZE));
  const std::size_t mapped_bytes = (bytes + page - 1) / page * page;
  std::lock_guard<std::mutex> lock(g_mu);
  if (bytes > deviceBytes() - std::min(deviceBytes(), g_used[dev])) return fail(cudaErrorMemoryAllocation);
  void* m = ::mmap(nullptr, mapped_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return fail(cudaErrorMemoryAllocation, "cudaMalloc: mmap of " + std::to_string(bytes) + " failed");
  g_device[static_cast<const char*>(m)] = Block{bytes, mapped_bytes, dev};
  g_used[dev] += bytes;
  *p = m;
  return cudaSuccess;
}

cudaError_t cudaFree(void* p) {
  if (auto e = gate("cudaFree")) return e;
  if (!p) return cudaSuccess;
  int dev = -1;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    auto it = g_device.find(static_cast<const char*>(p));
    if (it == g_device.end())
      return fail(cudaErrorInvalidValue, "cudaFree(" + hex(p) + "): not a pointer cudaMalloc returned (or freed twice)");
    dev = it->second.device;
  }
  synchronizeDevice(dev);  // cudaFree waits for the device's work, as CUDA's does
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = g_device.find(static_cast<const char*>(p));
  if (it == g_device.end()) return fail(cudaErrorInvalidValue, "cudaFree(" + hex(p) + "): freed twice at once");
  ::munmap(p, it->second.mapped);
  g_used[it->second.device] -= it->second.bytes;
  g_device.erase(it);
  return cudaSuccess;
}

cudaError_t cudaMemGetInfo(std::size_t* free, std::size_t* total) {
  if (auto e = gate("cudaMemGetInfo")) return e;
  if (!free || !total) return fail(cudaErrorInvalidValue, "cudaMemGetInfo: null pointer");
  memoryInfo(currentDevice(), free, total);
  return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t n, cudaMemcpyKind kind, cudaStream_t s) {
  if (auto e = gate("cudaMemcpyAsync")) return e;
  return copy("cudaMemcpyAsync", dst, src, n, kind, s, true);
}

cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t n, cudaMemcpyKind kind) {
  if (auto e = gate("cudaMemcpy")) return e;
  return copy("cudaMemcpy", dst, src, n, kind, nullptr, false);
}

cudaError_t cudaMemsetAsync(void* p, int value, std::size_t n, cudaStream_t s) {
  if (auto e = gate("cudaMemsetAsync")) return e;
  const int dev = streamDevice(s);
  if (dev < 0) return fail(cudaErrorInvalidResourceHandle, "cudaMemsetAsync: not a live stream");
  if (n == 0) return cudaSuccess;
  if (std::string why = checkDeviceRange(p, n, dev, "cudaMemsetAsync"); !why.empty())
    return fail(cudaErrorInvalidValue, why);
  return queue("cudaMemsetAsync", s, [p, value, n] { std::memset(p, value, n); }, false);
}

// Synchronous here (CUDA's cudaMemset may return before it is done).
cudaError_t cudaMemset(void* p, int value, std::size_t n) {
  if (auto e = gate("cudaMemset")) return e;
  if (n == 0) return cudaSuccess;
  if (std::string why = checkDeviceRange(p, n, currentDevice(), "cudaMemset"); !why.empty())
    return fail(cudaErrorInvalidValue, why);
  return queue("cudaMemset", nullptr, [p, value, n] { std::memset(p, value, n); }, true);
}

cudaError_t cudaHostRegister(void* p, std::size_t n, unsigned int flags) {
  if (auto e = gate("cudaHostRegister")) return e;
  if (!p || n == 0) return fail(cudaErrorInvalidValue, "cudaHostRegister: null pointer or 0 bytes");
  if (flags & ~unsigned(cudaHostRegisterPortable | cudaHostRegisterMapped | cudaHostRegisterIoMemory |
                        cudaHostRegisterReadOnly))
    return fail(cudaErrorInvalidValue, "cudaHostRegister: unknown flags");
  if (isDeviceMemory(p)) return fail(cudaErrorInvalidValue, "cudaHostRegister: " + hex(p) + " is device memory");
  if (!mapped(p, n))
    return fail(cudaErrorInvalidValue, "cudaHostRegister(" + hex(p) + ", " + std::to_string(n) +
                                           "): part of the range is not mapped in this process");
  const char* c = static_cast<const char*>(p);
  std::lock_guard<std::mutex> lock(g_mu);
  for (auto& [base, bytes] : g_pinned)
    if (c < base + bytes && base < c + n) return fail(cudaErrorHostMemoryAlreadyRegistered);
  g_pinned[c] = n;
  return cudaSuccess;
}

cudaError_t cudaHostUnregister(void* p) {
  if (auto e = gate("cudaHostUnregister")) return e;
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = g_pinned.find(static_cast<const char*>(p));
  if (it == g_pinned.end() || g_host_alloc.count(it->first))
    return fail(cudaErrorHostMemoryNotRegistered, "cudaHostUnregister(" + hex(p) + "): not the start of a registered range");
  g_pinned.erase(it);
  return cudaSuccess;
}

cudaError_t cudaMallocHost(void** p, std::size_t n) {
  if (auto e = gate("cudaMallocHost")) return e;
  if (!p) return fail(cudaErrorInvalidValue, "cudaMallocHost: null pointer");
  void* m = ::mmap(nullptr, n ? n : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return fail(cudaErrorMemoryAllocation);
  std::lock_guard<std::mutex> lock(g_mu);
  g_pinned[static_cast<const char*>(m)] = n ? n : 1;
  g_host_alloc[static_cast<const char*>(m)] = n ? n : 1;
  *p = m;
  return cudaSuccess;
}

// cudaMallocHost's memory under its flags (portable, mapped, write-combined:
// all alike on the host; the NCCL tap's pinned pool).
cudaError_t cudaHostAlloc(void** p, std::size_t n, unsigned int flags) {
  if (auto e = gate("cudaHostAlloc")) return e;
  if (flags & ~unsigned(cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined))
    return fail(cudaErrorInvalidValue, "cudaHostAlloc: unknown flags");
  return cudaMallocHost(p, n);
}

cudaError_t cudaFreeHost(void* p) {
  if (auto e = gate("cudaFreeHost")) return e;
  if (!p) return cudaSuccess;
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = g_host_alloc.find(static_cast<const char*>(p));
  if (it == g_host_alloc.end()) return fail(cudaErrorInvalidValue, "cudaFreeHost(" + hex(p) + "): not from cudaMallocHost");
  ::munmap(p, it->second);
  g_pinned.erase(it->first);
  g_host_alloc.erase(it);
  return cudaSuccess;
}

}  // extern "C"
