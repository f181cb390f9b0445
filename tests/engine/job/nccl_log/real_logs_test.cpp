// The five real NCCL logs of ../shared/data/nccl-logs (README there), read
// back exactly: every figure below was counted by hand with grep on the file.
// The files stay out of the repository; where the folder is missing (or
// COLLVIZ_NCCL_LOGS names none) each test is skipped, saying so.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "engine/job/nccl_log/nccl_log.h"

namespace collviz::nccl_log {
namespace {

std::string logs() {
  if (const char* e = std::getenv("COLLVIZ_NCCL_LOGS")) return e;
  return COLLVIZ_NCCL_LOGS_DIR;
}

Log readOne(const std::string& name) {
  auto r = read({logs() + "/" + name});
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? *r : Log{};
}

#define NEED(name)                                                                                   \
  if (!std::filesystem::exists(logs() + "/" + name))                                                 \
  GTEST_SKIP() << "the real NCCL logs are not here: " << logs() << "/" << name                       \
               << " is missing (they live in ../shared/data/nccl-logs beside the source, or set COLLVIZ_NCCL_LOGS)"

const std::string k8 = "boeschf_nccl-benchmark-on-alps-2025-n8N2-rank0.log";
const std::string k16 = "boeschf_nccl-benchmark-on-alps-2025-n16N4-rank0.log";
const std::string k4 = "boeschf_nccl-benchmark-on-alps-2025-n4N1-rank0.log";
const std::string kTz = "Timez-zx_nccl-tests-nccl.log";
const std::string kTzFault = "Timez-zx_nccl-tests-nccl-fault.log";

std::map<std::string, int> viaCounts(const Member& m) {
  std::map<std::string, int> v;
  for (const Transport& t : m.transports) ++v[t.via];
  return v;
}

TEST(NcclLogReal, EightRanksTwoNodes) {
  NEED(k8);
  Log log = readOne(k8);
  EXPECT_EQ(log.version, "2.26.2+cuda12.6");
  EXPECT_EQ(log.counts.info, 143);  // grep -c 'NCCL INFO'
  EXPECT_EQ(log.counts.warn, 1);    // grep -c 'NCCL WARN'
  EXPECT_EQ(log.counts.interleaved, 0);
  EXPECT_EQ(log.counts.bad, 0);
  EXPECT_EQ(log.settings.at("NCCL_SOCKET_IFNAME"), "=hsn0");
  EXPECT_EQ(log.settings.at("NCCL_NET_GDR_LEVEL"), "PHB");
  ASSERT_EQ(log.networks, std::vector<std::string>{"AWS Libfabric"});
  ASSERT_EQ(log.comms.size(), 1u);
  const Comm& c = log.comms[0];
  EXPECT_EQ(c.commId, "0xc6414aaec10e59b");
  EXPECT_EQ(c.nRanks, 8);
  EXPECT_EQ(c.nNodes, 2);
  EXPECT_EQ(c.collChannels, 24);
  ASSERT_EQ(c.members.size(), 1u);
  const Member& m = c.members[0];
  EXPECT_EQ(m.rank, 0);
  EXPECT_EQ(m.host, "nid007368");
  EXPECT_EQ(m.pid, 43817);
  EXPECT_EQ(m.ptr, "0x2cbdc060");
  EXPECT_EQ(m.busId, "901000");
  EXPECT_EQ(m.localRanks, 4);
  EXPECT_TRUE(m.complete);
  EXPECT_EQ(m.p2pChannels, 32);
  EXPECT_EQ(m.p2pPerPeer, 2);
  ASSERT_EQ(c.rings.size(), 24u);
  EXPECT_EQ(c.rings[0].order, (std::vector<int>{0, 3, 2, 1, 4, 7, 6, 5}));
  EXPECT_EQ(c.rings[5].order, (std::vector<int>{0, 2, 3, 5, 4, 6, 7, 1}));
  EXPECT_EQ(c.rings[23].order, (std::vector<int>{0, 2, 7, 5, 4, 6, 3, 1}));
  EXPECT_EQ(c.rings[12].order, c.rings[0].order);  // channels 12-23 repeat 0-11
  for (const Ring& r : c.rings) {
    EXPECT_EQ(r.of, 24);
    EXPECT_FALSE(r.cut);
  }
  ASSERT_EQ(m.trees.size(), 24u);
  EXPECT_EQ(m.trees.at(0).up, -1);
  EXPECT_EQ(m.trees.at(0).down, (std::array<int, 3>{1, 4, -1}));
  EXPECT_EQ(m.trees.at(1).up, 3);
  EXPECT_EQ(m.trees.at(1).down, (std::array<int, 3>{-1, -1, -1}));
  // 70 lines with " via ": 46 P2P/CUMEM, 18 GDRDMA(PCI), 2 each of NICs 3, 5, 7.
  ASSERT_EQ(m.transports.size(), 70u);
  auto v = viaCounts(m);
  EXPECT_EQ(v["P2P/CUMEM"], 46);
  EXPECT_EQ(v["NET/AWS Libfabric/1/GDRDMA(PCI)"], 18);
  EXPECT_EQ(v["NET/AWS Libfabric/3"], 2);
  EXPECT_EQ(v["NET/AWS Libfabric/7"], 2);
  const Transport& t = *std::find_if(m.transports.begin(), m.transports.end(), [](const Transport& x) { return x.kind == "NET"; });
  EXPECT_EQ(t.channel, 0);
  EXPECT_EQ(t.from, 4);
  EXPECT_EQ(t.to, 0);
  EXPECT_EQ(t.dir, "receive");
  EXPECT_EQ(t.net, "AWS Libfabric");
  EXPECT_EQ(t.netDev, 1);
  EXPECT_TRUE(t.gdr);
  EXPECT_EQ(sentence(c).english(), "8 ranks on 2 nodes · 24 rings · inter-node links through NET/AWS Libfabric · intra-node links through P2P/CUMEM");
  EXPECT_EQ(linkKind(c, 0, 4), "NET/AWS Libfabric");
  EXPECT_EQ(linkKind(c, 0, 3), "P2P/CUMEM");
  // Rank 0's file alone: the other seven are said to be missing, and so are the tuning lines.
  std::string missing;
  for (const Said& s : log.missing) missing += std::string(s) + "\n";
  EXPECT_NE(missing.find("7 of its 8 ranks have no lines here (ranks 1 2 3 4 5 6 7)"), std::string::npos) << missing;
  EXPECT_NE(missing.find("NCCL_DEBUG_SUBSYS=TUNING"), std::string::npos) << missing;
  EXPECT_NE(missing.find("NCCL_DEBUG_SUBSYS=COLL"), std::string::npos) << missing;
}

TEST(NcclLogReal, SixteenRanksFourNodes) {
  NEED(k16);
  Log log = readOne(k16);
  EXPECT_EQ(log.counts.info, 143);
  ASSERT_EQ(log.comms.size(), 1u);
  const Comm& c = log.comms[0];
  EXPECT_EQ(c.nRanks, 16);
  EXPECT_EQ(c.nNodes, 4);
  ASSERT_EQ(c.rings.size(), 24u);
  EXPECT_EQ(c.rings[0].order, (std::vector<int>{0, 3, 2, 1, 4, 7, 6, 5, 8, 11, 10, 9, 12, 15, 14, 13}));
  EXPECT_EQ(c.rings[5].order, (std::vector<int>{0, 2, 3, 5, 4, 6, 7, 9, 8, 10, 11, 13, 12, 14, 15, 1}));
  const Member& m = c.members.at(0);
  EXPECT_EQ(m.trees.at(0).down, (std::array<int, 3>{1, 8, -1}));
  EXPECT_EQ(m.transports.size(), 70u);
  EXPECT_EQ(viaCounts(m)["P2P/CUMEM"], 46);
  EXPECT_EQ(sentence(c).english(), "16 ranks on 4 nodes · 24 rings · inter-node links through NET/AWS Libfabric · intra-node links through P2P/CUMEM");
}

TEST(NcclLogReal, FourRanksOneNode) {
  NEED(k4);
  Log log = readOne(k4);
  EXPECT_EQ(log.counts.info, 93);
  ASSERT_EQ(log.comms.size(), 1u);
  const Comm& c = log.comms[0];
  EXPECT_EQ(c.nRanks, 4);
  EXPECT_EQ(c.nNodes, 1);
  ASSERT_EQ(c.rings.size(), 24u);
  EXPECT_EQ(c.rings[0].order, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(c.rings[5].order, (std::vector<int>{0, 3, 2, 1}));
  EXPECT_EQ(c.members.at(0).transports.size(), 24u);
  EXPECT_EQ(c.members.at(0).p2pPerPeer, 16);
  EXPECT_EQ(sentence(c).english(), "4 ranks on 1 node · 24 rings · intra-node links through P2P/CUMEM");
}

// Two ranks in one process (one thread each), with tuning and call lines.
TEST(NcclLogReal, TwoRanksOneProcessWithTuning) {
  NEED(kTz);
  Log log = readOne(kTz);
  EXPECT_EQ(log.version, "2.27.7+cuda13.0");
  EXPECT_EQ(log.counts.info, 144);
  EXPECT_EQ(log.counts.foreign, 12);  // the '#' lines of nccl-tests and the excerpt
  EXPECT_EQ(log.counts.bad, 0);
  // The excerpt drops Init COMPLETE, so no commId ties the two ranks; they
  // are one communicator all the same: one process (ncclCommInitAll, nGpus
  // 2) holds rank 0 and rank 1 of a 2-rank communicator. Nothing is said to
  // be missing: both ranks' lines are here.
  ASSERT_EQ(log.comms.size(), 1u);
  const Comm& c = log.comms[0];
  const int rank0 = 0;
  ASSERT_EQ(c.members.size(), 2u);
  EXPECT_EQ(c.members[0].rank, 0);
  EXPECT_EQ(c.members[1].rank, 1);
  EXPECT_EQ(c.members[0].ptr, "0x55b6aa64a990");
  EXPECT_EQ(c.members[1].ptr, "0x55b6aa754530");
  ASSERT_EQ(c.rings.size(), 24u);
  EXPECT_EQ(c.rings[23].order, (std::vector<int>{0, 1}));
  EXPECT_TRUE(c.disagreements.empty()) << c.disagreements.front();  // rank 1's Ring lines agree with rank 0's rings
  EXPECT_EQ(sentence(c).english(), "2 ranks on 1 node · 24 rings · intra-node links through P2P/direct pointer");
  EXPECT_EQ(c.members[0].ringNeighbours.size(), 24u);
  EXPECT_EQ(c.members[1].ringNeighbours.size(), 24u);
  EXPECT_EQ(c.members[1].ringNeighbours.at(7), (std::array<int, 2>{0, 0}));
  EXPECT_EQ(c.members[0].trees.size(), 24u);
  EXPECT_EQ(c.members[0].trees.at(6).up, 1);
  EXPECT_EQ(c.members[1].trees.at(6).down, (std::array<int, 3>{0, -1, -1}));
  ASSERT_EQ(c.members[0].transports.size(), 1u);
  EXPECT_EQ(c.members[0].transports[0].via, "P2P/direct pointer/read");
  EXPECT_EQ(c.members[1].transports.at(0).from, 1);
  EXPECT_EQ(c.callsByOp.at("AllReduce"), 8);  // 4 calls, on each of the 2 ranks
  for (const Said& m : log.missing) EXPECT_EQ(m.find("have no lines here"), std::string::npos) << m;
  ASSERT_EQ(log.choices.size(), 4u);
  const Choice& ch = log.choices[0];
  EXPECT_EQ(ch.op, "AllReduce");
  EXPECT_EQ(ch.bytes, 8388608);
  EXPECT_EQ(ch.algo, "RING");
  EXPECT_EQ(ch.proto, "SIMPLE");
  EXPECT_EQ(ch.chLo, 0);
  EXPECT_EQ(ch.chHi, 23);
  EXPECT_EQ(ch.comm, rank0);  // the call that followed it on the same thread
  EXPECT_EQ(log.choices[3].bytes, 67108864);
}

TEST(NcclLogReal, TwoRanksOneCommunicatorByCommId) {
  NEED(kTzFault);
  Log log = readOne(kTzFault);
  EXPECT_EQ(log.counts.info, 64);
  ASSERT_EQ(log.comms.size(), 1u);
  const Comm& c = log.comms[0];
  EXPECT_EQ(c.commId, "0xde843772bfa53d08");
  ASSERT_EQ(c.members.size(), 2u);
  EXPECT_EQ(c.members[0].rank, 0);
  EXPECT_EQ(c.members[1].rank, 1);
  EXPECT_EQ(c.members[1].busId, "65000");
  ASSERT_EQ(c.rings.size(), 2u);
  EXPECT_EQ(c.rings[1].order, (std::vector<int>{0, 1}));
  EXPECT_TRUE(c.disagreements.empty());
  EXPECT_EQ(c.members[0].transports.size(), 2u);
  EXPECT_EQ(c.members[1].transports.size(), 2u);
  EXPECT_EQ(c.callsByOp.at("AllReduce"), 6);
  ASSERT_EQ(log.choices.size(), 4u);
  EXPECT_EQ(log.choices[0].chHi, 1);
  EXPECT_EQ(log.choices[0].comm, 0);
  EXPECT_EQ(ringOrder(c, 1), (std::vector<int>{0, 1}));
  EXPECT_EQ(sentence(c).english(), "2 ranks on 1 node · 2 rings · intra-node links through P2P/direct pointer");
}

}  // namespace
}  // namespace collviz::nccl_log
