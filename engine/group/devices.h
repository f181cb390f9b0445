// What backends and devices this machine offers, and why any is missing.
// Filled by probing `collviz-rank --probe` (the worker is the only binary
// that may link CUDA/NCCL), so the engine and the app stay free of them.
#pragma once

#include <atomic>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "engine/snapshot.h"
#include "engine/spec.h"
#include "engine/text.h"

namespace collviz {

// One GPU's memory as the probe read it (NVML, else cudaMemGetInfo).
struct GpuMemory {
  int gpu = 0;  // CUDA device index
  std::string name;
  std::size_t total = 0;
  std::optional<std::size_t> free;  // unset when it could not be read
  std::string error;                // why not
};

struct BackendStatus {
  BackendKind kind = BackendKind::gloo;
  bool available = false;
  std::string reason;  // why not available
  BackendInfo info;    // version, devices, transport, notes
  BackendCaps caps;    // dtypes, redops, limits
  int gpus = 0;        // visible GPUs (NCCL)
  int version_code = 0;  // e.g. ncclGetVersion() 22809
  std::vector<GpuMemory> gpu_memory;  // NCCL: each visible GPU's free and total memory
};

struct DeviceReport {
  std::vector<BackendStatus> backends;
  const BackendStatus* find(BackendKind k) const;
  // Resolve `automatic` (NCCL when available, else Gloo with a notice) and
  // refuse an unavailable explicit choice with its reason.
  Result<BackendKind> choose(BackendKind requested, Said* notice) const;
  // The same with the notice's English only.
  Result<BackendKind> choose(BackendKind requested, std::string* notice) const;
};

// Parse the worker's probe JSON (see engine/group/protocol.h).
Result<DeviceReport> parseProbe(const std::string& json);
// Run `worker_path --probe` and parse what it prints. A probe that takes
// longer than `timeout_ms` (a stalled driver) or is cancelled is killed.
Result<DeviceReport> probeDevices(const std::string& worker_path, int timeout_ms = 30000,
                                  const std::atomic<bool>* cancel = nullptr);

// The JSON form of the devices (`collviz devices --json`).
nlohmann::json toJson(const DeviceReport& d);

}  // namespace collviz
