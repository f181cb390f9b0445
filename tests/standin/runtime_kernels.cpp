// Kernels under the stand-in CUDA runtime: the registration nvcc's host
// code makes at load time (__cudaRegisterFatBinary, __cudaRegisterFunction:
// the host stub and the kernel's mangled name), the launch it makes
// (__cudaPushCallConfiguration, __cudaPopCallConfiguration, __cudaGetKernel,
// __cudaLaunchKernel; cudaLaunchKernel for the legacy path). A launch runs
// host arithmetic on the stream, chosen by the registered kernel's name: the
// NCCL module's reduce and divide kernels (engine/worker/nccl/reduce_kernel.cu)
// run the same element functions on the host (engine/worker/reduce_ops.h,
// written once for host and device). Any other kernel fails loudly: the
// stand-in runs no GPU code.
#include <cxxabi.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <regex>
#include <vector>

#include "engine/worker/reduce_ops.h"
#include "tests/standin/cuda_entry.h"
#include "tests/standin/runtime.h"

// nvcc's registration and launch entry points (crt/host_runtime.h and
// crt/device_functions.h declare them for nvcc's own host code).

namespace collviz::standin {
namespace {

struct Kernel {
  std::string mangled, readable;
};

// Never destroyed (stream threads may outlive main); kernels' handles stay valid.
std::mutex& g_mu = *new std::mutex;
std::map<const void*, Kernel*>& g_by_host = *new std::map<const void*, Kernel*>;  // host stub -> kernel

struct Config {
  dim3 grid, block;
  std::size_t shared;
  cudaStream_t stream;
};
thread_local std::vector<Config> t_configs;

std::string demangle(const std::string& m) {
  int status = 0;
  char* d = abi::__cxa_demangle(m.c_str(), nullptr, nullptr, &status);
  std::string s = status == 0 && d ? d : m;
  std::free(d);
  return s;
}

using namespace collviz::reduce_ops;

struct Pointers {
  void* dst;
  const void* src;
};

// The kernels the stand-in knows: reduceKernel<ElemKind, CombineKind>(T* dst,
// const T* src, size_t elems) and divideKernel<ElemKind>(T* p, size_t elems, int n).
struct ReduceBody {
  CombineKind c;
  void* dst;
  const void* src;
  std::size_t elems;
  bool ok = true;
  template <ElemKind K>
  void apply() { ok = visitCombine<K>(c, *this); }
  template <ElemKind K, CombineKind C>
  void apply() {
    using T = typename Elem<K>::Storage;
    T* d = static_cast<T*>(dst);
    const T* s = static_cast<const T*>(src);
    for (std::size_t i = 0; i < elems; ++i) d[i] = Elem<K>::template combine<C>(d[i], s[i]);
  }
};
struct DivideBody {
  void* p;
  std::size_t elems;
  int n;
  template <ElemKind K>
  void apply() {
    using T = typename Elem<K>::Storage;
    T* q = static_cast<T*>(p);
    for (std::size_t i = 0; i < elems; ++i) q[i] = Elem<K>::divide(q[i], n);
  }
};

std::size_t elemSize(ElemKind k) {
  switch (k) {
    case ElemKind::f32: case ElemKind::i32: return 4;
    case ElemKind::f64: case ElemKind::i64: return 8;
    case ElemKind::f16: case ElemKind::bf16: return 2;
    case ElemKind::u8: return 1;
  }
  return 0;
}

cudaError_t launch(const Kernel& k, dim3 grid, dim3 block, void** args, cudaStream_t stream) {
  const std::string call = "launch of " + k.readable;
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 || block.z == 0 ||
      std::uint64_t(block.x) * block.y * block.z > 1024)
    return fail(cudaErrorInvalidConfiguration, call + ": grid or block out of range");
  const int dev = streamDevice(stream);
  if (dev < 0) return fail(cudaErrorInvalidResourceHandle, call + ": not a live stream");
  static const std::regex reduce(R"(reduceKernel<\(collviz::reduce_ops::ElemKind\)(\d), \(collviz::reduce_ops::CombineKind\)(\d)>\()");
  static const std::regex divide(R"(divideKernel<\(collviz::reduce_ops::ElemKind\)(\d)>\()");
  std::smatch m;
  if (std::regex_search(k.readable, m, reduce)) {
    const ElemKind e = ElemKind(std::stoi(m[1]));
    ReduceBody b{CombineKind(std::stoi(m[2])), *static_cast<void**>(args[0]), *static_cast<const void**>(args[1]),
                 *static_cast<std::size_t*>(args[2])};
    const std::size_t bytes = b.elems * elemSize(e);
    for (auto [p, what] : {std::pair{static_cast<const void*>(b.dst), "dst"}, std::pair{b.src, "src"}})
      if (std::string why = checkDeviceRange(p, bytes, dev, call + " " + what); !why.empty())
        return fail(cudaErrorIllegalAddress, why);
    enqueue(stream, [b, e]() mutable {
      if (!visitElem(e, b) || !b.ok) say("reduce kernel with an unknown element or combine kind");
    });
    return cudaSuccess;
  }
  if (std::regex_search(k.readable, m, divide)) {
    const ElemKind e = ElemKind(std::stoi(m[1]));
    DivideBody b{*static_cast<void**>(args[0]), *static_cast<std::size_t*>(args[1]), *static_cast<int*>(args[2])};
    if (std::string why = checkDeviceRange(b.p, b.elems * elemSize(e), dev, call + " p"); !why.empty())
      return fail(cudaErrorIllegalAddress, why);
    enqueue(stream, [b, e]() mutable {
      if (!visitElem(e, b)) say("divide kernel with an unknown element kind");
    });
    return cudaSuccess;
  }
  return fail(cudaErrorInvalidDeviceFunction,
              "LAUNCH REFUSED: kernel " + k.readable + " (" + k.mangled +
                  ") has no host arithmetic in the stand-in, which runs no GPU code; add it to "
                  "tests/standin/runtime_kernels.cpp or do not run this on the stand-in");
}

Kernel* byHost(const void* host) {
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = g_by_host.find(host);
  return it == g_by_host.end() ? nullptr : it->second;
}

}  // namespace
}  // namespace collviz::standin

using namespace collviz::standin;

extern "C" {

void** __cudaRegisterFatBinary(void* fatCubin) {
  static std::mutex mu;
  static std::vector<void**> handles;  // one per module, never freed
  std::lock_guard<std::mutex> lock(mu);
  handles.push_back(new void*(fatCubin));
  return handles.back();
}

void __cudaRegisterFatBinaryEnd(void**) {}
void __cudaUnregisterFatBinary(void**) {}

void __cudaRegisterFunction(void**, const char* hostFun, char*, const char* deviceName, int, uint3*, uint3*,
                            dim3*, dim3*, int*) {
  auto* k = new Kernel{deviceName, demangle(deviceName)};
  std::lock_guard<std::mutex> lock(g_mu);
  g_by_host[hostFun] = k;
}

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, std::size_t shared, struct CUstream_st* stream) {
  t_configs.push_back(Config{grid, block, shared, stream});
  return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, std::size_t* shared, void* stream) {
  if (t_configs.empty()) return fail(cudaErrorInvalidConfiguration, "__cudaPopCallConfiguration: none pushed");
  const Config c = t_configs.back();
  t_configs.pop_back();
  *grid = c.grid;
  *block = c.block;
  *shared = c.shared;
  *static_cast<cudaStream_t*>(stream) = c.stream;
  return cudaSuccess;
}

cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* hostFun) {
  Kernel* k = byHost(hostFun);
  if (!k) return fail(cudaErrorInvalidDeviceFunction, "__cudaGetKernel: a host function no module registered");
  *kernel = reinterpret_cast<cudaKernel_t>(k);
  return cudaSuccess;
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, std::size_t,
                               cudaStream_t stream) {
  if (auto e = gate("__cudaLaunchKernel")) return e;
  if (!kernel) return fail(cudaErrorInvalidDeviceFunction, "__cudaLaunchKernel: no kernel");
  return launch(*reinterpret_cast<Kernel*>(kernel), grid, block, args, stream);
}

cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args, std::size_t, cudaStream_t stream) {
  if (auto e = gate("cudaLaunchKernel")) return e;
  Kernel* k = byHost(func);
  if (!k) return fail(cudaErrorInvalidDeviceFunction, "cudaLaunchKernel: a host function no module registered");
  return launch(*k, grid, block, args, stream);
}

}  // extern "C"
