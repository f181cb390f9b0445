#include "engine/worker/nccl/nvml.h"

#include <dlfcn.h>

#include <cuda_runtime.h>

namespace collviz::nccl_detail {

namespace {

// NVML's ABI, as its documentation gives it: an int result (0 success),
// opaque device handles and a memory record of three 64-bit counts.
using NvmlReturn = int;
using NvmlDevice = struct NvmlDeviceOpaque*;
struct NvmlMemoryRecord {
  unsigned long long total, free, used;
};

struct Nvml {
  void* lib = nullptr;
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*byBusId)(const char*, NvmlDevice*) = nullptr;
  NvmlReturn (*memory)(NvmlDevice, NvmlMemoryRecord*) = nullptr;
  std::string error;
};

// Loaded and initialised once per process (the probe is a process of its
// own); left loaded until the process ends.
const Nvml& nvml() {
  static const Nvml n = [] {
    Nvml x;
    x.lib = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!x.lib) {
      const char* e = ::dlerror();
      x.error = std::string("NVML not loaded: ") + (e ? e : "libnvidia-ml.so.1 not found");
      return x;
    }
    x.init = reinterpret_cast<NvmlReturn (*)()>(::dlsym(x.lib, "nvmlInit_v2"));
    x.byBusId = reinterpret_cast<NvmlReturn (*)(const char*, NvmlDevice*)>(
        ::dlsym(x.lib, "nvmlDeviceGetHandleByPciBusId_v2"));
    x.memory = reinterpret_cast<NvmlReturn (*)(NvmlDevice, NvmlMemoryRecord*)>(
        ::dlsym(x.lib, "nvmlDeviceGetMemoryInfo"));
    if (!x.init || !x.byBusId || !x.memory) {
      x.error = "NVML lacks nvmlInit_v2, nvmlDeviceGetHandleByPciBusId_v2 or nvmlDeviceGetMemoryInfo";
      return x;
    }
    if (const NvmlReturn r = x.init(); r != 0) x.error = "nvmlInit_v2 returned " + std::to_string(r);
    return x;
  }();
  return n;
}

}  // namespace

std::optional<NvmlMemory> nvmlMemory(int device, std::string* why) {
  const Nvml& n = nvml();
  auto no = [&](const std::string& reason) -> std::optional<NvmlMemory> {
    if (why) *why = reason;
    return std::nullopt;
  };
  if (!n.error.empty()) return no(n.error);
  char bus[32] = {};
  if (const cudaError_t e = cudaDeviceGetPCIBusId(bus, sizeof bus, device); e != cudaSuccess) {
    cudaGetLastError();
    return no(std::string("cudaDeviceGetPCIBusId: ") + cudaGetErrorName(e));
  }
  NvmlDevice d = nullptr;
  if (const NvmlReturn r = n.byBusId(bus, &d); r != 0)
    return no("nvmlDeviceGetHandleByPciBusId_v2(" + std::string(bus) + ") returned " + std::to_string(r));
  NvmlMemoryRecord m{};
  if (const NvmlReturn r = n.memory(d, &m); r != 0)
    return no("nvmlDeviceGetMemoryInfo returned " + std::to_string(r));
  return NvmlMemory{std::size_t(m.free), std::size_t(m.total)};
}

}  // namespace collviz::nccl_detail
