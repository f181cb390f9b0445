// Inside the stand-in CUDA runtime (tests/standin/runtime_*.cpp): the gate
// every entry point passes (the opt-in, fault injection) and the per-thread
// last error, as cudaGetLastError reports it.
#pragma once

#include <string>

#include "tests/standin/internal.h"

namespace collviz::standin {

// Every runtime call starts with: if (auto e = gate("cudaX")) return e;
// Without the opt-in: cudaErrorStubLibrary. An injected error is returned
// (and said on stderr); an injected hang never returns.
cudaError_t gate(const char* call);
// Records `e` as this thread's last error (cudaErrorNotReady is not one)
// and returns it; a non-empty `why` is said on stderr.
cudaError_t fail(cudaError_t e, const std::string& why = "");
// Why the last refusal of this thread happened (the stand-in's own words),
// appended to cudaGetErrorString's text for that code.
const std::string& lastWhy();

}  // namespace collviz::standin
