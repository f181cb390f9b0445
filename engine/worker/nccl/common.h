// Internals shared by the NCCL communicator and the NCCL probe. Includes CUDA
// and NCCL headers: include it only from nccl_*.cpp (built into collviz-rank
// by nccl.cmake), never from a header the engine or the app sees.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstddef>
#include <string>
#include <vector>

#include "engine/spec.h"
#include "engine/text.h"

namespace collviz::nccl_detail {

std::string at(const char* file, int line);  // "file.cpp:123"
std::string cudaText(cudaError_t e);         // "cudaErrorX (message)"
std::string ncclText(ncclResult_t r);        // message plus ncclGetLastError

// Errors are values: both return an Error naming the call and file:line.
#define CUDA_TRY(call)                                                          \
  do {                                                                          \
    const cudaError_t e_ = (call);                                              \
    if (e_ != cudaSuccess)                                                      \
      return ::collviz::Error{::collviz::say("{0} failed: {1} at {2}", #call,    \
                                             ::collviz::nccl_detail::cudaText(e_), \
                                             ::collviz::nccl_detail::at(__FILE__, __LINE__))}; \
  } while (0)
#define NCCL_TRY(call)                                                          \
  do {                                                                          \
    const ncclResult_t r_ = (call);                                             \
    if (r_ != ncclSuccess)                                                      \
      return ::collviz::Error{::collviz::say("{0} failed: {1} at {2}", #call,    \
                                             ::collviz::nccl_detail::ncclText(r_), \
                                             ::collviz::nccl_detail::at(__FILE__, __LINE__))}; \
  } while (0)

ncclDataType_t ncclType(DType t);
ncclRedOp_t ncclOp(RedOp r);  // avg -> ncclAvg
int runtimeVersion();         // ncclGetVersion(), 0 when it fails

// ncclGather/ncclScatter/ncclAlltoAll are looked up at run time, so the
// worker still loads against an NCCL older than 2.28 (and then uses grouped
// ncclSend/ncclRecv). COLLVIZ_NCCL_SENDRECV=1 forces that path for testing.
using RootFn = ncclResult_t (*)(const void*, void*, size_t, ncclDataType_t, int, ncclComm_t,
                                cudaStream_t);
using AllToAllFn = ncclResult_t (*)(const void*, void*, size_t, ncclDataType_t, ncclComm_t,
                                    cudaStream_t);
struct NativeOps {
  RootFn gather = nullptr;
  RootFn scatter = nullptr;
  AllToAllFn alltoall = nullptr;
  Text why_not;  // set when the send/recv path is used
};
NativeOps loadNativeOps(int version);
Text nativeOpsNote(const NativeOps& n);  // an item of BackendInfo::notes

struct GpuList {
  std::vector<std::string> names;
  std::vector<std::size_t> bytes;
  std::string error;  // cudaGetDeviceCount's, when it failed
};
// Never fails hard: without a driver, `error` says why.
GpuList listGpus();

// Free memory of one GPU (NVML, else cudaMemGetInfo), or why it could not be read.
struct GpuFree {
  std::size_t free = 0, total = 0;
  std::string error;
  std::string source;  // "nvml", or "cuda (why NVML could not answer)"
};
// Per GPU of `g`: NVML where the driver's libnvidia-ml answers (no CUDA
// context), else cudaMemGetInfo, which creates a context on each device it
// asks, so only the probe (a process of its own) calls this.
std::vector<GpuFree> freeMemory(const GpuList& g);
Text describeGpus(const GpuList& g);  // "1 x NVIDIA H200 (140 GiB)"

std::vector<DType> ncclDTypes(int version);
std::vector<RedOp> ncclRedOps(int version);
// The smallest GPU's memory (a GPU of unknown size caps nothing), at most kMaxRankBytes.
std::size_t maxRankBytes(const GpuList& g);

}  // namespace collviz::nccl_detail
