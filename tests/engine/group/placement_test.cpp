// Placement: which GPU each rank uses and which environment its worker gets.
#include "engine/group/placement.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

namespace collviz {
namespace {

std::map<std::string, std::string> envOf(const RankPlacement& p) {
  std::map<std::string, std::string> m;
  for (const auto& [k, v] : p.env) {
    EXPECT_EQ(m.count(k), 0u) << "duplicate variable " << k;
    m[k] = v;
  }
  return m;
}

TEST(Placement, GlooRanksGetNoGpuAndNoEnv) {
  for (int gpus : {0, 1, 8}) {
    auto p = placeRanks(4, BackendKind::gloo, gpus, 22809);
    ASSERT_EQ(p.size(), 4u);
    for (const auto& r : p) {
      EXPECT_EQ(r.gpu, -1);
      EXPECT_TRUE(r.env.empty());
    }
  }
}

TEST(Placement, NoRanksNoPlacements) {
  EXPECT_TRUE(placeRanks(0, BackendKind::nccl, 1, 22809).empty());
  EXPECT_TRUE(placeRanks(-3, BackendKind::nccl, 1, 22809).empty());
}

TEST(Placement, NcclWithoutGpusStaysOnCpu) {
  auto p = placeRanks(2, BackendKind::nccl, 0, 22809);
  ASSERT_EQ(p.size(), 2u);
  for (const auto& r : p) EXPECT_EQ(r.gpu, -1);
}

TEST(Placement, RankRUsesGpuRModG) {
  for (int gpus = 1; gpus <= 8; ++gpus) {
    for (int ranks = 1; ranks <= 16; ++ranks) {
      auto p = placeRanks(ranks, BackendKind::nccl, gpus, 22809);
      ASSERT_EQ(int(p.size()), ranks);
      for (int r = 0; r < ranks; ++r) EXPECT_EQ(p[r].gpu, r % gpus) << ranks << " on " << gpus;
    }
  }
}

TEST(Placement, OneRankPerGpuLeavesNcclAlone) {
  for (int ranks = 1; ranks <= 8; ++ranks)
    for (const auto& r : placeRanks(ranks, BackendKind::nccl, 8, 22809))
      EXPECT_TRUE(r.env.empty()) << ranks << " ranks on 8 GPUs";
}

TEST(Placement, FourRanksOnOneGpuAreFourHostsOnLoopback) {
  auto p = placeRanks(4, BackendKind::nccl, 1, 22809);
  std::set<std::string> hosts;
  for (const auto& r : p) {
    EXPECT_EQ(r.gpu, 0);
    auto e = envOf(r);
    ASSERT_TRUE(e.count("NCCL_HOSTID"));
    hosts.insert(e["NCCL_HOSTID"]);
    EXPECT_EQ(e["NCCL_SOCKET_IFNAME"], "lo");
    EXPECT_EQ(e["NCCL_IB_DISABLE"], "1");
    EXPECT_EQ(e["NCCL_NET"], "Socket");
    EXPECT_EQ(e["NCCL_SOCKET_FAMILY"], "AF_INET");
    EXPECT_EQ(e.count("NCCL_MULTI_RANK_GPU_ENABLE"), 0u);
  }
  EXPECT_EQ(hosts.size(), 4u) << "every rank sharing the GPU needs its own host id";
}

// Ranks that share a GPU never share a host id; ranks on different GPUs of one
// slot do (so they keep P2P/NVLink between them).
TEST(Placement, HostIdsSeparateExactlyTheRanksThatShareAGpu) {
  for (int gpus = 1; gpus <= 4; ++gpus) {
    for (int ranks = gpus + 1; ranks <= 16; ++ranks) {
      auto p = placeRanks(ranks, BackendKind::nccl, gpus, 22809);
      std::set<std::string> hosts;
      for (int a = 0; a < ranks; ++a) {
        auto ea = envOf(p[a]);
        hosts.insert(ea["NCCL_HOSTID"]);
        for (int b = a + 1; b < ranks; ++b) {
          auto eb = envOf(p[b]);
          if (p[a].gpu == p[b].gpu) {
            EXPECT_NE(ea["NCCL_HOSTID"], eb["NCCL_HOSTID"]) << a << "," << b;
          }
          if (a / gpus == b / gpus) {
            EXPECT_EQ(ea["NCCL_HOSTID"], eb["NCCL_HOSTID"]) << a << "," << b;
          }
        }
      }
      EXPECT_EQ(int(hosts.size()), ranksPerGpu(ranks, gpus));
    }
  }
}

TEST(Placement, ThreeRanksOnTwoGpus) {
  auto p = placeRanks(3, BackendKind::nccl, 2, 22809);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].gpu, 0);
  EXPECT_EQ(p[1].gpu, 1);
  EXPECT_EQ(p[2].gpu, 0);
  EXPECT_EQ(envOf(p[0])["NCCL_HOSTID"], envOf(p[1])["NCCL_HOSTID"]);
  EXPECT_NE(envOf(p[0])["NCCL_HOSTID"], envOf(p[2])["NCCL_HOSTID"]);
  for (const auto& r : p) EXPECT_EQ(envOf(r)["NCCL_SOCKET_IFNAME"], "lo");
}

TEST(Placement, MultiRankGpuOnlyFromNccl230) {
  PlacementOptions multi{GpuSharing::multi_rank_gpu};
  for (int version : {0, 22809, 22903}) {
    EXPECT_EQ(effectiveSharing(version, multi), GpuSharing::host_id) << version;
    for (const auto& r : placeRanks(4, BackendKind::nccl, 1, version, multi))
      EXPECT_TRUE(envOf(r).count("NCCL_HOSTID")) << version;
  }
  EXPECT_EQ(effectiveSharing(23000, multi), GpuSharing::multi_rank_gpu);
  for (const auto& r : placeRanks(4, BackendKind::nccl, 1, 23000, multi)) {
    auto e = envOf(r);
    EXPECT_EQ(e["NCCL_MULTI_RANK_GPU_ENABLE"], "1");
    EXPECT_EQ(e.count("NCCL_HOSTID"), 0u);
  }
  // The default stays on the host-id route even on a new NCCL.
  EXPECT_EQ(effectiveSharing(23000, PlacementOptions{}), GpuSharing::host_id);
}

TEST(Placement, RanksPerGpu) {
  EXPECT_EQ(ranksPerGpu(4, 1), 4);
  EXPECT_EQ(ranksPerGpu(3, 2), 2);
  EXPECT_EQ(ranksPerGpu(2, 8), 1);
  EXPECT_EQ(ranksPerGpu(4, 0), 0);
}

TEST(Placement, TransportDescriptionSaysWhatHappens) {
  EXPECT_EQ(describeTransport(4, 1, GpuSharing::host_id),
            "socket over lo: 4 ranks on 1 GPU (up to 4 per GPU), NCCL_HOSTID per slot -> 4 "
            "NCCL hosts");
  EXPECT_NE(describeTransport(2, 2, GpuSharing::host_id).find("1 per GPU"), std::string::npos);
  EXPECT_NE(describeTransport(1, 1, GpuSharing::host_id).find("none needed"), std::string::npos);
  EXPECT_NE(describeTransport(4, 1, GpuSharing::multi_rank_gpu).find("NCCL_MULTI_RANK_GPU_ENABLE"),
            std::string::npos);
  EXPECT_EQ(describeTransport(2, 0, GpuSharing::host_id), "none (no GPU)");
}

// Across hosts (issue 33): each host places its own ranks; the hosts' ids
// never collide and a host's ranks share a GPU only beyond its GPUs.
TEST(Placement, OnAHostTheLocalRankPicksTheGpuAndOnlySharersGetHostIds) {
  for (int l = 0; l < 2; ++l) {  // two ranks, two GPUs: one each, NCCL's own transports
    auto p = placeOnHost(l, 2, 2, "nodeA", "eth1");
    EXPECT_EQ(p.gpu, l);
    EXPECT_EQ(envOf(p).count("NCCL_HOSTID"), 0u);
    EXPECT_EQ(envOf(p)["NCCL_SOCKET_IFNAME"], "eth1");
  }
  // Four ranks on two GPUs: slot 0 = local ranks 0, 1; slot 1 = 2, 3.
  std::set<std::string> ids;
  for (int l = 0; l < 4; ++l) {
    auto p = placeOnHost(l, 4, 2, "nodeA", "eth1");
    EXPECT_EQ(p.gpu, l % 2);
    ids.insert(envOf(p)["NCCL_HOSTID"]);
    EXPECT_NE(envOf(p)["NCCL_SOCKET_IFNAME"], "lo");
  }
  EXPECT_EQ(ids, (std::set<std::string>{"nodeA-slot0", "nodeA-slot1"}));
  EXPECT_NE(envOf(placeOnHost(0, 4, 2, "nodeB", "eth1"))["NCCL_HOSTID"],
            envOf(placeOnHost(0, 4, 2, "nodeA", "eth1"))["NCCL_HOSTID"]);
  // No GPU: no device, nothing but the interface.
  auto none = placeOnHost(1, 2, 0, "nodeA", "");
  EXPECT_EQ(none.gpu, -1);
  EXPECT_TRUE(none.env.empty());
}

TEST(Placement, NcclVersionString) {
  EXPECT_EQ(ncclVersionString(22809), "2.28.9");
  EXPECT_EQ(ncclVersionString(23000), "2.30.0");
  EXPECT_EQ(ncclVersionString(2708), "2.7.8");
  EXPECT_EQ(ncclVersionString(0), "unknown");
}

}  // namespace
}  // namespace collviz
