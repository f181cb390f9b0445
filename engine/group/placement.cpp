#include "engine/group/placement.h"

#include <algorithm>

namespace collviz {
namespace {

// Environment every worker gets when ranks share a GPU through host ids: keep
// NCCL's bootstrap and its socket "network" on loopback, IPv4, no
// InfiniBand/RoCE, no external net plugin, no multi-node NVLink detection
// (which could join the fake hosts again over NVLink).
void addLoopbackEnv(RankPlacement& p) {
  p.env.emplace_back("NCCL_SOCKET_IFNAME", "lo");
  p.env.emplace_back("NCCL_SOCKET_FAMILY", "AF_INET");
  p.env.emplace_back("NCCL_IB_DISABLE", "1");
  p.env.emplace_back("NCCL_NET", "Socket");
  p.env.emplace_back("NCCL_MNNVL_ENABLE", "0");
}

}  // namespace

GpuSharing effectiveSharing(int nccl_version, const PlacementOptions& opts) {
  if (opts.sharing == GpuSharing::multi_rank_gpu && nccl_version >= kNcclMultiRankGpuVersion)
    return GpuSharing::multi_rank_gpu;
  return GpuSharing::host_id;
}

int ranksPerGpu(int ranks, int gpus) {
  if (ranks <= 0 || gpus <= 0) return 0;
  return (ranks + gpus - 1) / gpus;
}

std::vector<RankPlacement> placeRanks(int ranks, BackendKind backend, int gpus,
                                      int nccl_version) {
  return placeRanks(ranks, backend, gpus, nccl_version, PlacementOptions{});
}

std::vector<RankPlacement> placeRanks(int ranks, BackendKind backend, int gpus,
                                      int nccl_version, const PlacementOptions& opts) {
  std::vector<RankPlacement> out(ranks > 0 ? ranks : 0);
  if (backend != BackendKind::nccl || gpus <= 0) return out;
  const bool shared = ranks > gpus;
  const GpuSharing mode = effectiveSharing(nccl_version, opts);
  for (int r = 0; r < ranks; ++r) {
    RankPlacement& p = out[r];
    p.gpu = r % gpus;
    if (!shared) continue;  // one rank per GPU: NCCL picks its transports
    if (mode == GpuSharing::multi_rank_gpu) {
      p.env.emplace_back("NCCL_MULTI_RANK_GPU_ENABLE", "1");
      continue;
    }
    // Slot s holds ranks s*G .. s*G+G-1, all on different GPUs: one host id
    // per slot separates exactly the ranks that share a GPU.
    p.env.emplace_back("NCCL_HOSTID", "collviz-host" + std::to_string(r / gpus));
    addLoopbackEnv(p);
  }
  return out;
}

RankPlacement placeOnHost(int local_rank, int local_size, int gpus, const std::string& host,
                          const std::string& iface) {
  RankPlacement p;
  if (!iface.empty()) p.env.emplace_back("NCCL_SOCKET_IFNAME", iface);
  if (gpus <= 0 || local_rank < 0) return p;
  p.gpu = local_rank % gpus;
  if (local_size > gpus) p.env.emplace_back("NCCL_HOSTID", host + "-slot" + std::to_string(local_rank / gpus));
  return p;
}

std::string describeTransport(int ranks, int gpus, GpuSharing sharing) {
  if (gpus <= 0 || ranks <= 0) return "none (no GPU)";
  const int used = std::min(ranks, gpus);
  const int per = ranksPerGpu(ranks, gpus);
  std::string where = std::to_string(ranks) + (ranks == 1 ? " rank on " : " ranks on ") +
                      std::to_string(used) + (used == 1 ? " GPU" : " GPUs");
  if (ranks == 1) return "none needed (" + where + ")";
  if (ranks <= gpus)
    return "NCCL's choice within one host (P2P/NVLink or SHM): " + where + ", 1 per GPU";
  where += " (up to " + std::to_string(per) + " per GPU)";
  if (sharing == GpuSharing::multi_rank_gpu)
    return "NCCL multi-rank GPU (NCCL_MULTI_RANK_GPU_ENABLE=1): " + where;
  const int hosts = per;  // one host id per slot
  return "socket over lo: " + where + ", NCCL_HOSTID per slot -> " + std::to_string(hosts) +
         " NCCL hosts";
}

std::string ncclVersionString(int code) {
  if (code <= 0) return "unknown";
  int major, minor, patch;
  if (code >= 10000) {  // NCCL_VERSION(X,Y,Z) = X*10000 + Y*100 + Z since 2.9
    major = code / 10000;
    minor = (code % 10000) / 100;
    patch = code % 100;
  } else {  // X*1000 + Y*100 + Z before 2.9
    major = code / 1000;
    minor = (code % 1000) / 100;
    patch = code % 100;
  }
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

}  // namespace collviz
