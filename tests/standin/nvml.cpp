// The stand-in NVML, libnvidia-ml.so.1 (tests only): the three calls the
// NCCL module makes (engine/worker/nccl/nvml.cpp), answering for the
// stand-in CUDA runtime's devices: a device found by its PCI bus id, its
// memory (total, and free as that runtime counts it in this process).
// Without COLLVIZ_STANDIN=1 every call returns NVML_ERROR_UNINITIALIZED.
#include <cstring>
#include <string>

#include "tests/standin/internal.h"

namespace {

constexpr int kSuccess = 0, kUninitialized = 1, kInvalidArgument = 2, kNotFound = 6;

struct Memory {
  unsigned long long total, free, used;
};

// A device handle is its index plus one.
int gate(const char* call) {
  using namespace collviz::standin;
  if (!optedIn()) return kUninitialized;
  const Fault f = takeFault(call);
  if (f.kind == Fault::Kind::hang) hangForever(call);
  if (f.kind == Fault::Kind::error) return f.code;
  return kSuccess;
}

}  // namespace

extern "C" {

int nvmlInit_v2(void) { return gate("nvmlInit_v2"); }

int nvmlDeviceGetHandleByPciBusId_v2(const char* bus, void** device) {
  if (int r = gate("nvmlDeviceGetHandleByPciBusId_v2")) return r;
  if (!bus || !device) return kInvalidArgument;
  for (int d = 0; d < collviz::standin::deviceCount(); ++d)
    if (strcasecmp(collviz::standin::pciBusId(d).c_str(), bus) == 0) {
      *device = reinterpret_cast<void*>(std::uintptr_t(d + 1));
      return kSuccess;
    }
  return kNotFound;
}

int nvmlDeviceGetMemoryInfo(void* device, Memory* m) {
  if (int r = gate("nvmlDeviceGetMemoryInfo")) return r;
  const int d = int(reinterpret_cast<std::uintptr_t>(device)) - 1;
  if (!m || d < 0 || d >= collviz::standin::deviceCount()) return kInvalidArgument;
  std::size_t free = 0, total = 0;
  collviz::standin::memoryInfo(d, &free, &total);
  *m = Memory{total, free, total - free};
  return kSuccess;
}

}  // extern "C"
