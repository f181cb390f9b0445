// The stand-in CUDA runtime's own interface to the stand-in NCCL and NVML
// (a test double, tests only: see tests/gpu/README.md for what it proves
// and what it cannot). libcudart.so.13 (the stand-in) exports these in a
// version node of its own, COLLVIZ_STANDIN, beside the runtime's symbols.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

namespace collviz::standin {

// The name every stand-in device carries: it can never pass for a GPU.
inline constexpr const char* kDeviceName = "stand-in: host memory, not a GPU";
// The variable that must be 1, or every call fails.
inline constexpr const char* kOptInVariable = "COLLVIZ_STANDIN";

bool optedIn();
// Why a call failed without the opt-in.
std::string notOptedIn();

// Fault injection: COLLVIZ_STANDIN_FAULT (see tests/standin/faults.cpp).
struct Fault {
  enum class Kind { none, error, hang, stall, async_error, kill, delay };
  Kind kind = Kind::none;
  int code = 0;      // the error (error, async_error), or milliseconds (delay)
  std::string rule;  // as written, for the messages
};
// Counts one call of `call` and returns the action of the rule it meets.
Fault takeFault(const char* call);
// After an NCCL init: rules qualified with this rank ("r1/...") apply.
void setFaultRank(int rank);
// A call told to hang never returns (the process must be ended).
[[noreturn]] void hangForever(const char* call);
// Loud, on stderr: what the stand-in refused or injected.
void say(const std::string& line);

// Device memory (cudaMalloc's, on the host).
// "" when [p, p+bytes) lies inside one live allocation (on `device` when
// device >= 0), else why not, naming `what`.
std::string checkDeviceRange(const void* p, std::size_t bytes, int device, const std::string& what);
bool isDeviceMemory(const void* p);
void memoryInfo(int device, std::size_t* free, std::size_t* total);
int deviceCount();   // visible stand-in devices
int currentDevice();  // this thread's
std::string pciBusId(int device);

// Streams: every task runs on the stream's own thread, in the stream's order.
using Task = std::function<void()>;
struct Marker;
// Queues `t` on `s` (nullptr: the current device's default stream); "" or
// why not (not a live stream).
std::string enqueue(cudaStream_t s, Task t);
int streamDevice(cudaStream_t s);  // -1: not a live stream
// A marker that completes when `s` reaches it, and a wait of `s` for one.
std::shared_ptr<Marker> mark(cudaStream_t s);
void waitFor(cudaStream_t s, std::shared_ptr<Marker> m);
bool done(const Marker& m);

}  // namespace collviz::standin
