// Will a run fit in the memory this process can really get? Checked before
// anything starts, against the smaller of the host's available memory
// (MemAvailable) and the address space left under RLIMIT_AS (ulimit -v), so
// a too-big size is refused with the largest one that fits instead of
// ending in std::bad_alloc half-way. An NCCL run is also checked against
// each GPU's free memory, as the probe read it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/group/devices.h"
#include "engine/spec.h"
#include "engine/text.h"

namespace collviz {

struct MemoryLimit {
  std::size_t bytes = 0;
  Said what;  // "available host memory (MemAvailable)", "ulimit -v"
};

// The tighter of the host's available memory and the address space left
// under RLIMIT_AS; nullopt when neither can be read.
std::optional<MemoryLimit> memoryLimit();

// Bytes one run of `s` (`steps` ops in the program) needs: the shared
// memory of every op's inputs and outputs (checked in place), the workers'
// working copies, with `keep_all` a snapshot copy of every value (`collviz
// run --values all`), and with `json` the JSON report of every value too (a
// JSON tree cannot be freed safely once memory has run out, so it must fit
// from the start).
double runMemoryBytes(const OpSpec& s, int steps = 1, bool json = false, bool keep_all = false);

// Error naming the need, the limit and the largest --elems that fits.
Status checkRunMemory(const OpSpec& s, int steps = 1, bool json = false, bool keep_all = false);

// An algorithm's rounds (engine_rounds.cpp) hold more than a native op: the
// shared memory of the inputs, each rank's working buffer (`slots` blocks)
// and, for the comparison with the native op, its outputs; the engine's
// copy of the inputs, a round's working buffers as read back, the last
// round's and the output built from them; with `every_round`, the inputs as
// doubles and the expected slots of the round checks (a cache bounded by
// kExpectedCacheBytes).
// A slot holds elems / `parts` elements (an MSCCL file's chunks per block).
double roundsMemoryBytes(const OpSpec& s, int slots, bool every_round, bool keep_all = false, int parts = 1);
// Error naming the need, the limit and the largest --elems that fits (a
// multiple of `parts`, as the algorithm requires, or none at all).
Status checkRoundsMemory(const OpSpec& s, int slots, bool every_round, bool keep_all = false, int parts = 1);

// The most chunks one gpu of an MSCCL file may have in this process's
// memory (algo::kMscclBytesPerChunk per chunk on each of up to kMaxRanks
// ranks, in 80% of memoryLimit()), at most algo::kMscclMaxChunks: checked
// before anything is sized by the file's counts.
std::int64_t mscclChunkBudget();

// What one NCCL rank takes on its GPU besides its buffers: its CUDA context
// and NCCL's own buffers. An estimate: both vary with the GPU, the driver
// and NCCL's settings.
inline constexpr std::size_t kGpuRankOverheadBytes = std::size_t(512) << 20;

// Device bytes rank `rank` of an NCCL run of `steps` (the program's ops, at
// one size) holds: the communicator keeps one input and one output buffer
// and grows each to the largest any step needs; plus `work_blocks` blocks of
// the op's elements (an algorithm's working buffer; 0 for the backend's own
// calls).
double gpuRankBytes(const std::vector<OpSpec>& steps, int rank, int work_blocks = 0);

// The device blocks an algorithm of `slots` working-buffer slots holds: the
// working buffer and the round runner's scratch, which is at most a round's
// receive area (no more than the working buffer) plus a working buffer's
// worth for local copies.
inline int roundsDeviceBlocks(int slots) { return 3 * slots; }

// The ranks placed on each GPU (`rank_gpu[r]`, -1 for none) need their
// buffers (gpuRankBytes) plus kGpuRankOverheadBytes each; refused when that
// is more than the GPU's free memory, naming the GPU, its free memory, the
// ranks sharing it and the largest --elems that fits on every GPU. A GPU
// whose free memory is unknown is not checked.
Status checkGpuMemory(const std::vector<OpSpec>& steps, int work_blocks,
                      const std::vector<int>& rank_gpu, const std::vector<GpuMemory>& gpus);

// checkGpuMemory for a run of `steps` on the NCCL backend `nccl` (its probe),
// with the ranks placed as placeRanks places them.
Status checkNcclMemory(const std::vector<OpSpec>& steps, int work_blocks,
                       const BackendStatus& nccl);

}  // namespace collviz
