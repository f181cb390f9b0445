// Placement: which device each rank uses and which environment its worker
// process gets. Pure, so it is unit-tested without a GPU.
//
// Rank r uses GPU r mod G. When there are more ranks than GPUs, NCCL up to
// 2.29 refuses two ranks of one host on one GPU ("Duplicate GPU detected"),
// so ranks are grouped into "slots" (slot s = ranks s*G .. s*G+G-1, each on a
// different GPU) and every slot gets its own NCCL_HOSTID: ranks that share a
// GPU then belong to different NCCL "hosts" and talk over NCCL's socket
// transport on loopback, while ranks of one slot still use P2P/NVLink.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/spec.h"

namespace collviz {

struct RankPlacement {
  int gpu = -1;  // -1: CPU
  std::vector<std::pair<std::string, std::string>> env;  // set in the worker
};

// How ranks that share a GPU are made acceptable to NCCL.
enum class GpuSharing : uint8_t {
  host_id,         // one NCCL_HOSTID per slot, socket transport over lo
  multi_rank_gpu,  // NCCL_MULTI_RANK_GPU_ENABLE=1 (NCCL >= 2.30 only)
};

struct PlacementOptions {
  GpuSharing sharing = GpuSharing::host_id;
};

// First NCCL version code (ncclGetVersion) that offers NCCL_MULTI_RANK_GPU_ENABLE.
inline constexpr int kNcclMultiRankGpuVersion = 23000;
// First NCCL version code with native ncclGather/ncclScatter/ncclAlltoAll.
inline constexpr int kNcclNativeGatherVersion = 22800;

// `gpus`: visible GPUs; `nccl_version`: the runtime's ncclGetVersion() code
// (e.g. 22809), 0 when unknown.
std::vector<RankPlacement> placeRanks(int ranks, BackendKind backend, int gpus,
                                      int nccl_version);
std::vector<RankPlacement> placeRanks(int ranks, BackendKind backend, int gpus,
                                      int nccl_version, const PlacementOptions& opts);

// A rank that mpirun started on one of several hosts (issue 33), placed on
// its host alone: GPU local_rank mod `gpus`; NCCL's sockets on `iface` (the
// interface the hosts share, never lo); and only when the host's ranks
// outnumber its GPUs, one NCCL_HOSTID per slot of that host (its name in
// it, so no two hosts share one), as placeRanks does on one machine. With
// no GPU the rank keeps gpu -1 (its NCCL init names the host's reason).
RankPlacement placeOnHost(int local_rank, int local_size, int gpus, const std::string& host,
                          const std::string& iface);

// The sharing mode placeRanks really uses (multi_rank_gpu falls back to
// host_id on an older or unknown NCCL; irrelevant when ranks <= gpus).
GpuSharing effectiveSharing(int nccl_version, const PlacementOptions& opts);
// Most ranks on one GPU (ceil(ranks / gpus)); 0 without GPUs.
int ranksPerGpu(int ranks, int gpus);
// One line for BackendInfo::transport, e.g. "socket over lo: 4 ranks on 1 GPU
// (4 per GPU), NCCL_HOSTID per rank -> 4 NCCL hosts".
std::string describeTransport(int ranks, int gpus, GpuSharing sharing);
// "2.28.9" from 22809 (and 2.9.x style codes from before 2.9: 2908 -> "2.9.8").
std::string ncclVersionString(int code);

}  // namespace collviz
