// Finding NCCL and the CUDA runtime in the process, without linking either:
// the tap is preloaded into programs that may have neither (they never call
// it then), or that load them later with dlopen, privately (PyTorch's
// libtorch_cuda brings libnccl.so.2 and libcudart.so.1x that way: RTLD_NEXT
// does not see them, so the libraries already loaded are asked by name with
// RTLD_NOLOAD, which never loads anything).
#include <dlfcn.h>

#include <mutex>

#include "tap/nccl/tap_nccl.h"

namespace collviz::tap::nccl {
namespace {

void* loaded(const char* const* names) {
  for (const char* const* n = names; *n; ++n)
    if (void* h = dlopen(*n, RTLD_LAZY | RTLD_NOLOAD)) return h;
  return nullptr;
}

void* ncclHandle() {
  static const char* const names[] = {"libnccl.so.2", "libnccl.so", nullptr};
  return loaded(names);
}

void* find(const char* name, void* self, void* handle) {
  void* f = dlsym(RTLD_NEXT, name);
  if (!f || f == self) f = dlsym(RTLD_DEFAULT, name);
  if ((!f || f == self) && handle) f = dlsym(handle, name);
  return f == self ? nullptr : f;
}

Cuda g_cuda;
std::once_flag g_cuda_once;

template <typename F>
bool get(F& f, const char* name, void* handle) {
  f = reinterpret_cast<F>(find(name, nullptr, handle));
  return f != nullptr;
}

}  // namespace

void* nextNccl(const char* name, void* self) {
  char p[64] = "p";
  for (int i = 0; name[i] && i < 62; ++i) p[i + 1] = name[i], p[i + 2] = '\0';
  void* h = nullptr;
  void* f = dlsym(RTLD_NEXT, p);
  if (!f) f = dlsym(RTLD_DEFAULT, p);  // the tap never exports a pncclX
  if (!f && (h = ncclHandle())) f = dlsym(h, p);
  if (!f) f = find(name, self, h ? h : ncclHandle());
  if (h) dlclose(h);  // NOLOAD's reference only: NCCL stays loaded
  return f;
}

const Cuda& cuda() {
  std::call_once(g_cuda_once, [] {
    static const char* const names[] = {"libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0", "libcudart.so",
                                        nullptr};
    void* h = loaded(names);
    Cuda& c = g_cuda;
    bool ok = get(c.memcpyAsync, "cudaMemcpyAsync", h);
    ok &= get(c.hostAlloc, "cudaHostAlloc", h);
    ok &= get(c.eventCreateWithFlags, "cudaEventCreateWithFlags", h);
    ok &= get(c.eventRecord, "cudaEventRecord", h);
    ok &= get(c.eventQuery, "cudaEventQuery", h);
    ok &= get(c.streamIsCapturing, "cudaStreamIsCapturing", h);
    ok &= get(c.getLastError, "cudaGetLastError", h);
    ok &= get(c.peekAtLastError, "cudaPeekAtLastError", h);
    ok &= get(c.getDevice, "cudaGetDevice", h);
    ok &= get(c.setDevice, "cudaSetDevice", h);
    ok &= get(c.malloc, "cudaMalloc", h);
    ok &= get(c.free, "cudaFree", h);
    ok &= get(c.streamCreateWithFlags, "cudaStreamCreateWithFlags", h);
    ok &= get(c.streamSynchronize, "cudaStreamSynchronize", h);
    ok &= get(c.streamDestroy, "cudaStreamDestroy", h);
    c.ok = ok;
    if (h) dlclose(h);
  });
  return g_cuda;
}

}  // namespace collviz::tap::nccl
