// The NCCL rounds' device kernels: dst = dst (op) src and p /= N, element by
// element, with the arithmetic of worker/reduce_ops.h. Built by nvcc as C++17
// from worker/nccl.cmake (not through CMake's CUDA language) into
// collviz_nccl; the launchers are plain host functions with no CUDA type in
// their signatures.
#include <cuda_runtime.h>

#include "engine/worker/reduce_ops.h"

namespace collviz::reduce_ops {
namespace {

constexpr int kThreads = 256;
constexpr std::size_t kMaxBlocks = 4096;  // a grid-stride loop covers the rest

unsigned blocksFor(std::size_t elems) {
  const std::size_t b = (elems + kThreads - 1) / kThreads;
  return unsigned(b < kMaxBlocks ? (b ? b : 1) : kMaxBlocks);
}

template <ElemKind K, CombineKind C>
__global__ void reduceKernel(typename Elem<K>::Storage* dst, const typename Elem<K>::Storage* src,
                             std::size_t elems) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < elems; i += stride)
    dst[i] = Elem<K>::template combine<C>(dst[i], src[i]);
}

template <ElemKind K>
__global__ void divideKernel(typename Elem<K>::Storage* p, std::size_t elems, int n) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < elems; i += stride)
    p[i] = Elem<K>::divide(p[i], n);
}

struct ReduceLaunch {
  CombineKind c;
  void* dst;
  const void* src;
  std::size_t elems;
  cudaStream_t stream;
  cudaError_t result = cudaErrorInvalidValue;
  template <ElemKind K>
  void apply() {
    if (!visitCombine<K>(c, *this)) result = cudaErrorInvalidValue;
  }
  template <ElemKind K, CombineKind C>
  void apply() {
    using T = typename Elem<K>::Storage;
    reduceKernel<K, C><<<blocksFor(elems), kThreads, 0, stream>>>(static_cast<T*>(dst),
                                                                  static_cast<const T*>(src), elems);
    result = cudaGetLastError();
  }
};

struct DivideLaunch {
  void* p;
  std::size_t elems;
  int n;
  cudaStream_t stream;
  cudaError_t result = cudaErrorInvalidValue;
  template <ElemKind K>
  void apply() {
    using T = typename Elem<K>::Storage;
    divideKernel<K><<<blocksFor(elems), kThreads, 0, stream>>>(static_cast<T*>(p), elems, n);
    result = cudaGetLastError();
  }
};

}  // namespace

int launchReduce(ElemKind k, CombineKind c, void* dst, const void* src, std::size_t elems,
                 void* stream) {
  if (elems == 0) return 0;
  ReduceLaunch l{c, dst, src, elems, static_cast<cudaStream_t>(stream)};
  if (!visitElem(k, l)) return int(cudaErrorInvalidValue);
  return int(l.result);
}

int launchDivide(ElemKind k, void* p, std::size_t elems, int n, void* stream) {
  if (elems == 0) return 0;
  DivideLaunch l{p, elems, n, static_cast<cudaStream_t>(stream)};
  if (!visitElem(k, l)) return int(cudaErrorInvalidValue);
  return int(l.result);
}

}  // namespace collviz::reduce_ops
