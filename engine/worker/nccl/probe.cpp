// What the NCCL backend can do on this machine, and the small helpers the
// communicator shares with it. Safe without a GPU, a driver or libcuda:
// every CUDA call here reports its error instead of failing hard.
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "engine/group/placement.h"
#include "engine/worker/nccl/common.h"
#include "engine/worker/nccl/nvml.h"
#include "engine/group/said_json.h"
#include "engine/worker/nccl/communicator.h"

namespace collviz {
namespace nccl_detail {

std::string at(const char* file, int line) {
  const char* base = std::strrchr(file, '/');
  return std::string(base ? base + 1 : file) + ":" + std::to_string(line);
}
std::string cudaText(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ")";
}
std::string ncclText(ncclResult_t r) {
  std::string s = ncclGetErrorString(r);
  const char* last = ncclGetLastError(nullptr);
  if (last && *last) s += ": " + std::string(last);
  return s;
}

ncclDataType_t ncclType(DType t) {
  switch (t) {
    case DType::f32: return ncclFloat32;
    case DType::f64: return ncclFloat64;
    case DType::f16: return ncclFloat16;
    case DType::bf16: return ncclBfloat16;
    case DType::i32: return ncclInt32;
    case DType::i64: return ncclInt64;
    case DType::u8: return ncclUint8;
  }
  return ncclFloat32;
}
ncclRedOp_t ncclOp(RedOp r) {
  switch (r) {
    case RedOp::sum: return ncclSum;
    case RedOp::prod: return ncclProd;
    case RedOp::min: return ncclMin;
    case RedOp::max: return ncclMax;
    case RedOp::avg: return ncclAvg;  // floats: x*(1/N) summed; integers: sum / N
  }
  return ncclSum;
}

int runtimeVersion() {
  int v = 0;
  if (ncclGetVersion(&v) != ncclSuccess) return 0;
  return v;
}

// The libnccl this code is bound to. Inside the NCCL module (loaded with
// RTLD_LOCAL) libnccl is not in the process's global scope, so the lookup
// goes through the library that holds ncclGetVersion; RTLD_DEFAULT only when
// that cannot be found.
static void* ncclLibrary() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&ncclGetVersion), &info) && info.dli_fname)
    if (void* h = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD)) return h;
  return RTLD_DEFAULT;
}

NativeOps loadNativeOps(int version) {
  NativeOps n;
  const char* force = std::getenv("COLLVIZ_NCCL_SENDRECV");
  if (force && *force && std::strcmp(force, "0") != 0) {
    n.why_not = say("forced by COLLVIZ_NCCL_SENDRECV");
  } else if (version < kNcclNativeGatherVersion) {
    n.why_not = say("runtime NCCL {0} is older than 2.28", ncclVersionString(version));
  } else {
    void* lib = ncclLibrary();
    n.gather = reinterpret_cast<RootFn>(dlsym(lib, "ncclGather"));
    n.scatter = reinterpret_cast<RootFn>(dlsym(lib, "ncclScatter"));
    n.alltoall = reinterpret_cast<AllToAllFn>(dlsym(lib, "ncclAlltoAll"));
    if (!n.gather || !n.scatter || !n.alltoall) {
      n = NativeOps{};
      n.why_not = say("runtime NCCL lacks ncclGather/ncclScatter/ncclAlltoAll");
    }
  }
  return n;
}
Text nativeOpsNote(const NativeOps& n) {
  if (n.why_not.empty()) return say("gather/scatter/all_to_all: native ncclGather/ncclScatter/ncclAlltoAll");
  return say("gather/scatter/all_to_all: grouped ncclSend/ncclRecv ({0})", n.why_not);
}

GpuList listGpus() {
  GpuList g;
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    g.error = "cudaGetDeviceCount: " + cudaText(e);
    cudaGetLastError();  // clear it for later calls
    return g;
  }
  for (int i = 0; i < n; ++i) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) {
      cudaGetLastError();
      p = cudaDeviceProp{};
      std::snprintf(p.name, sizeof p.name, "GPU %d (properties unavailable)", i);
    }
    g.names.emplace_back(p.name);
    g.bytes.push_back(p.totalGlobalMem);
  }
  return g;
}

std::vector<GpuFree> freeMemory(const GpuList& g) {
  std::vector<GpuFree> out(g.names.size());
  // NVML first: it needs no CUDA context, which cudaMemGetInfo creates on
  // every device it asks (a fraction of a second and some memory each).
  std::vector<std::size_t> ask_cuda;
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::string why;
    if (auto m = nvmlMemory(int(i), &why)) out[i] = GpuFree{m->free, m->total, "", "nvml"};
    else ask_cuda.push_back(i), out[i].source = "cuda (" + why + ")";
  }
  if (ask_cuda.empty()) return out;
  int current = 0;
  const bool restore = cudaGetDevice(&current) == cudaSuccess;
  for (std::size_t i : ask_cuda) {
    cudaError_t e = cudaSetDevice(int(i));
    if (e == cudaSuccess) e = cudaMemGetInfo(&out[i].free, &out[i].total);
    if (e != cudaSuccess) {
      cudaGetLastError();
      out[i] = GpuFree{0, g.bytes[i], "cudaMemGetInfo: " + cudaText(e), out[i].source};
    }
  }
  if (restore) cudaSetDevice(current);
  cudaGetLastError();
  return out;
}

Text describeGpus(const GpuList& g) {
  Text s;
  for (std::size_t i = 0; i < g.names.size();) {  // runs of equal GPUs grouped
    std::size_t j = i;
    while (j < g.names.size() && g.names[j] == g.names[i] && g.bytes[j] == g.bytes[i]) ++j;
    // A GPU whose properties could not be read has no size to say.
    const Text run = g.bytes[i] ? say("{0} x {1} ({2} GiB)", j - i, g.names[i], (g.bytes[i] + (std::size_t(1) << 29)) >> 30)
                                : say("{0} x {1}", j - i, g.names[i]);
    s = s.empty() ? run : say("{0}, {1}", s, run);
    i = j;
  }
  return s.empty() ? say("no GPU") : s;
}

std::vector<DType> ncclDTypes(int version) {
  std::vector<DType> d{DType::f32, DType::f64, DType::f16, DType::i32, DType::i64, DType::u8};
  if (version >= 21000) d.insert(d.begin() + 3, DType::bf16);  // bf16 since 2.10
  return d;
}
std::vector<RedOp> ncclRedOps(int version) {
  std::vector<RedOp> r{RedOp::sum, RedOp::prod, RedOp::min, RedOp::max};
  if (version >= 21000) r.push_back(RedOp::avg);  // ncclAvg since 2.10
  return r;
}
std::size_t maxRankBytes(const GpuList& g) {
  std::size_t m = kMaxRankBytes;
  for (std::size_t b : g.bytes)
    if (b) m = std::min(m, b);  // 0: unknown (properties unavailable), no cap
  return m;
}

}  // namespace nccl_detail

nlohmann::json probeNccl() {
  using namespace nccl_detail;
  const int v = runtimeVersion();
  const GpuList g = listGpus();
  nlohmann::json dtypes = nlohmann::json::array(), redops = nlohmann::json::array();
  for (DType t : ncclDTypes(v)) dtypes.push_back(std::string(name(t)));
  for (RedOp r : ncclRedOps(v)) redops.push_back(std::string(name(r)));
  int cudart = 0;
  if (cudaRuntimeGetVersion(&cudart) != cudaSuccess) cudaGetLastError();
  nlohmann::json memory = nlohmann::json::array();
  const std::vector<GpuFree> mem = freeMemory(g);
  for (std::size_t i = 0; i < mem.size(); ++i) {
    nlohmann::json m = {{"gpu", int(i)}, {"name", g.names[i]}, {"total", mem[i].total}};
    if (mem[i].error.empty()) m["free"] = mem[i].free;
    else m["error"] = mem[i].error;
    m["source"] = mem[i].source;  // "nvml", or "cuda (why not NVML)"
    memory.push_back(m);
  }
  std::string reason = g.error;
  if (reason.empty() && g.names.empty()) reason = "no CUDA device visible";
  if (reason.empty() && v == 0) reason = "ncclGetVersion failed";
  nlohmann::json j = {
      {"name", "nccl"},
      {"available", reason.empty()},
      {"reason", reason},
      {"version", ncclVersionString(v)},
      {"version_code", v},
      {"cuda_runtime", std::to_string(cudart / 1000) + "." + std::to_string(cudart % 1000 / 10)},
      {"gpus", int(g.names.size())},
      {"gpu_memory", memory},
      {"dtypes", dtypes},
      {"redops", redops},
      {"max_ranks", kMaxRanks},
      {"max_rank_bytes", maxRankBytes(g)},
  };
  putSaid(j, "devices", describeGpus(g));
  putSaid(j, "transport", say("NCCL's choice with one rank per GPU; socket over lo (NCCL_HOSTID per slot) when "
                              "ranks share a GPU"));
  putSaid(j, "notes", nativeOpsNote(loadNativeOps(v)));
  return j;
}

}  // namespace collviz
