// The stand-in CUDA runtime's devices: COLLVIZ_STANDIN_GPUS of them (1 by
// default, at most 16), each with COLLVIZ_STANDIN_GPU_MIB MiB (16384 by
// default) of "device memory" that is host memory, named kDeviceName so
// that nothing can mistake one for a GPU. CUDA_VISIBLE_DEVICES selects and
// orders them as CUDA does (a list of indices; it stops at the first entry
// that is not one).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tests/standin/runtime.h"

namespace collviz::standin {
namespace {

long envNumber(const char* name, long fallback, long lo, long hi) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  if (*end || n < lo || n > hi) {
    std::fprintf(stderr, "collviz stand-in: %s=%s is not a number from %ld to %ld\n", name, v, lo, hi);
    std::abort();
  }
  return n;
}

// Visible ordinal -> the stand-in's own device index.
const std::vector<int>& visible() {
  static const std::vector<int> v = [] {
    const int n = int(envNumber("COLLVIZ_STANDIN_GPUS", 1, 0, 16));
    std::vector<int> out;
    const char* cvd = std::getenv("CUDA_VISIBLE_DEVICES");
    if (!cvd) {
      for (int i = 0; i < n; ++i) out.push_back(i);
      return out;
    }
    std::string s = cvd, item;
    for (std::size_t i = 0; i <= s.size(); ++i) {
      if (i < s.size() && s[i] != ',') {
        item += s[i];
        continue;
      }
      char* end = nullptr;
      const long d = std::strtol(item.c_str(), &end, 10);
      if (item.empty() || *end || d < 0 || d >= n) break;  // CUDA stops at the first bad entry
      out.push_back(int(d));
      item.clear();
    }
    return out;
  }();
  return v;
}

thread_local int t_device = 0;

}  // namespace

std::size_t deviceBytes() { return std::size_t(envNumber("COLLVIZ_STANDIN_GPU_MIB", 16384, 1, 1 << 20)) << 20; }

int deviceCount() { return int(visible().size()); }
int physicalDevice(int device) { return visible().at(std::size_t(device)); }
int currentDevice() { return t_device; }

std::string pciBusId(int device) {
  char b[32];
  std::snprintf(b, sizeof b, "0000:%02X:00.0", 0xC0 + visible().at(std::size_t(device)));
  return b;
}

}  // namespace collviz::standin

using namespace collviz::standin;

extern "C" {

cudaError_t cudaGetDeviceCount(int* count) {
  if (auto e = gate("cudaGetDeviceCount")) return e;
  if (!count) return fail(cudaErrorInvalidValue, "cudaGetDeviceCount: null pointer");
  *count = deviceCount();
  if (*count == 0) return fail(cudaErrorNoDevice);
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  if (auto e = gate("cudaSetDevice")) return e;
  if (device < 0 || device >= deviceCount())
    return fail(cudaErrorInvalidDevice, "cudaSetDevice(" + std::to_string(device) + "): " +
                                            std::to_string(deviceCount()) + " stand-in device(s) visible");
  t_device = device;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
  if (auto e = gate("cudaGetDevice")) return e;
  if (!device) return fail(cudaErrorInvalidValue, "cudaGetDevice: null pointer");
  *device = t_device;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int device) {
  if (auto e = gate("cudaGetDeviceProperties")) return e;
  if (!p) return fail(cudaErrorInvalidValue, "cudaGetDeviceProperties: null pointer");
  if (device < 0 || device >= deviceCount()) return fail(cudaErrorInvalidDevice);
  *p = cudaDeviceProp{};
  std::snprintf(p->name, sizeof p->name, "%s", kDeviceName);
  p->totalGlobalMem = deviceBytes();
  p->pciBusID = 0xC0 + device;
  p->warpSize = 32;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsDim[0] = p->maxThreadsDim[1] = 1024;
  p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 0x7fffffff;
  p->maxGridSize[1] = p->maxGridSize[2] = 65535;
  // Compute capability 0.0 and no multiprocessors: not a GPU.
  return cudaSuccess;
}

cudaError_t cudaDeviceGetPCIBusId(char* bus, int len, int device) {
  if (auto e = gate("cudaDeviceGetPCIBusId")) return e;
  if (!bus || len <= 0) return fail(cudaErrorInvalidValue, "cudaDeviceGetPCIBusId: no buffer");
  if (device < 0 || device >= deviceCount()) return fail(cudaErrorInvalidDevice);
  std::snprintf(bus, std::size_t(len), "%s", pciBusId(device).c_str());
  return cudaSuccess;
}

}  // extern "C"
