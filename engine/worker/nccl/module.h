// The NCCL module, libcollviz-nccl.so: the NCCL communicator and probe as a
// shared library beside collviz-rank, which loads it with dlopen only for
// `--backend nccl` and `--probe` (nccl/loader.h). collviz-rank itself needs
// neither libnccl nor libcudart, so a Gloo run never loads them.
//
// The entry points are C functions, found by name. The communicator they
// return is the C++ Communicator of communicator.h, so the module and
// collviz-rank must come from one build; collviz_nccl_abi_version() lets
// the loader refuse a module from another build of a different interface.
// This header includes no CUDA or NCCL header.
#pragma once

extern "C" {

// kNcclModuleAbi of the build that made the module.
int collviz_nccl_abi_version(void);

// A new NCCL communicator on CUDA device `gpu`: a collviz::Communicator*
// that the caller owns (delete it through that type), or nullptr when out of
// memory. `started_ns`: the worker's start on std::chrono::steady_clock, in
// nanoseconds since that clock's epoch (the init deadline counts from it).
void* collviz_make_nccl_communicator(int gpu, long long started_ns);

// The probe's NCCL backend object (engine/group/protocol.h) as JSON text. The text
// belongs to the module and stays valid until the next call.
const char* collviz_probe_nccl(void);
}

namespace collviz {

// Changed whenever communicator.h, the types it passes or the functions above
// change, so a module of another interface is refused instead of misread.
// 2: RunOptions::round_fault; 3: Error and OpTiming carry messages (engine/text.h).
inline constexpr int kNcclModuleAbi = 3;

// The module's file name, looked for in collviz-rank's own directory.
inline constexpr const char* kNcclModuleFile = "libcollviz-nccl.so";

}  // namespace collviz
