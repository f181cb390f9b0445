// The stand-in CUDA runtime's errors: names and texts, the per-thread last
// error (cudaGetLastError), the opt-in and the gate every call passes.
#include <cstdlib>
#include <cstring>
#include <string>

#include "tests/standin/runtime.h"

namespace collviz::standin {

namespace {

struct ErrorText {
  cudaError_t code;
  const char* name;
  const char* text;
};

// The codes the stand-in returns, and those a test may inject by name.
constexpr ErrorText kErrors[] = {
    {cudaSuccess, "cudaSuccess", "no error"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error"},
    {cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration", "invalid configuration argument"},
    {cudaErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
    {cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
    {cudaErrorStubLibrary, "cudaErrorStubLibrary",
     "CUDA driver is a stub library (here: collviz's stand-in CUDA runtime for tests, host memory, not a "
     "GPU; it answers only with COLLVIZ_STANDIN=1)"},
    {cudaErrorInsufficientDriver, "cudaErrorInsufficientDriver",
     "CUDA driver version is insufficient for CUDA runtime version"},
    {cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
    {cudaErrorIllegalAddress, "cudaErrorIllegalAddress", "an illegal memory access was encountered"},
    {cudaErrorLaunchTimeout, "cudaErrorLaunchTimeout", "the launch timed out and was terminated"},
    {cudaErrorHostMemoryAlreadyRegistered, "cudaErrorHostMemoryAlreadyRegistered",
     "part or all of the requested memory range is already mapped"},
    {cudaErrorHostMemoryNotRegistered, "cudaErrorHostMemoryNotRegistered",
     "pointer does not correspond to a registered memory region"},
    {cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure"},
    {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
    {cudaErrorUnknown, "cudaErrorUnknown", "unknown error"},
};

const ErrorText* find(cudaError_t e) {
  for (const ErrorText& t : kErrors)
    if (t.code == e) return &t;
  return nullptr;
}

thread_local cudaError_t t_last = cudaSuccess;
thread_local cudaError_t t_why_code = cudaSuccess;
thread_local std::string t_why;
thread_local std::string t_text;

}  // namespace

int cudaErrorByName(const std::string& name) {
  for (const ErrorText& t : kErrors)
    if (name == t.name) return int(t.code);
  return -1;
}

bool optedIn() {
  static const bool on = [] {
    const char* v = std::getenv(kOptInVariable);
    return v && std::strcmp(v, "1") == 0;
  }();
  return on;
}

std::string notOptedIn() {
  return "collviz's stand-in CUDA runtime and NCCL (a test double on host memory, not a GPU) answer "
         "only with COLLVIZ_STANDIN=1";
}

cudaError_t fail(cudaError_t e, const std::string& why) {
  if (e == cudaSuccess || e == cudaErrorNotReady) return e;
  t_last = e;
  t_why_code = e;
  t_why = why;
  if (!why.empty()) say(why);
  return e;
}

const std::string& lastWhy() { return t_why; }

cudaError_t gate(const char* call) {
  if (!optedIn()) return fail(cudaErrorStubLibrary);
  const Fault f = takeFault(call);
  if (f.kind == Fault::Kind::hang) hangForever(call);
  if (f.kind == Fault::Kind::error)
    return fail(cudaError_t(f.code), std::string(call) + ": injected (" + f.rule + ")");
  return cudaSuccess;
}

}  // namespace collviz::standin

using namespace collviz::standin;

extern "C" {

const char* cudaGetErrorName(cudaError_t e) {
  const ErrorText* t = find(e);
  return t ? t->name : "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t e) {
  const ErrorText* t = find(e);
  const char* base = t ? t->text : "unrecognized error code";
  if (e == t_why_code && !t_why.empty()) {
    t_text = std::string(base) + " [stand-in: " + t_why + "]";
    return t_text.c_str();
  }
  return base;
}

cudaError_t cudaGetLastError(void) {
  const cudaError_t e = t_last;
  t_last = cudaSuccess;
  return e;
}

cudaError_t cudaPeekAtLastError(void) { return t_last; }

cudaError_t cudaRuntimeGetVersion(int* v) {
  if (auto e = gate("cudaRuntimeGetVersion")) return e;
  if (!v) return fail(cudaErrorInvalidValue, "cudaRuntimeGetVersion: null pointer");
  *v = CUDART_VERSION;
  return cudaSuccess;
}

}  // extern "C"
