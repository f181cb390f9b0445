// The NCCL module's C entry points (nccl/module.h) over the communicator and
// the probe of nccl/communicator.h. Nothing here throws past the boundary.
#include "engine/worker/nccl/module.h"

#include <chrono>
#include <new>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/worker/nccl/communicator.h"

extern "C" {

int collviz_nccl_abi_version(void) { return collviz::kNcclModuleAbi; }

void* collviz_make_nccl_communicator(int gpu, long long started_ns) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point started{std::chrono::duration_cast<Clock::duration>(
      std::chrono::nanoseconds(started_ns))};
  try {
    return collviz::makeNcclCommunicator(gpu, started).release();
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

const char* collviz_probe_nccl(void) {
  static std::string text;
  try {
    text = collviz::probeNccl().dump();
    return text.c_str();
  } catch (...) {
    return R"({"name":"nccl","available":false,"reason":"the NCCL probe failed inside the NCCL module","gpus":0})";
  }
}
}
