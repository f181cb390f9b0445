// Free GPU memory without a CUDA context: NVML (libnvidia-ml.so.1, part of
// the NVIDIA driver), loaded with dlopen so nothing links it. A CUDA device
// is found in NVML by its PCI bus id (cudaDeviceGetPCIBusId needs no
// context either), so CUDA_VISIBLE_DEVICES and ordering differences do not
// matter. Only the NCCL module (nccl_* files) uses it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace collviz::nccl_detail {

struct NvmlMemory {
  std::size_t free = 0, total = 0;
};

// Free and total memory of CUDA device `device` by NVML; nullopt, with the
// reason in `why`, when NVML is missing or cannot answer (the caller then
// asks CUDA).
std::optional<NvmlMemory> nvmlMemory(int device, std::string* why);

}  // namespace collviz::nccl_detail
