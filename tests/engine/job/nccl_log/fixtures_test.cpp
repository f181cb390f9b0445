// Logs written here from NCCL's own format strings (NVIDIA/nccl src/, the tag
// named in each test), one per form: every ring, tree, transport, channel
// count and tuning line read back exactly.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <unistd.h>
#include <filesystem>
#include <fstream>

#include "engine/job/nccl_log/nccl_log.h"

namespace collviz::nccl_log {
namespace {

// graph/rings.cc dumpLine of 2.18-2.22: " %3d" after a 16-byte prefix, at most 20.
std::string ring218(int c, int nc, const std::vector<int>& v) {
  char prefix[40];
  std::snprintf(prefix, sizeof prefix, "Channel %02d/%02d : ", c, nc);
  std::string line(15 + 5 * 20, ' ');
  std::copy(prefix, prefix + 15, line.begin());
  int plen = int(std::strlen(prefix));
  std::size_t end = 15;
  for (int i = 0; i < int(v.size()) && i < 20; ++i) {
    char b[16];
    int n = std::snprintf(b, sizeof b, " %3d", v[std::size_t(i)]);
    line.replace(std::size_t(plen + 4 * i), std::size_t(n), b);
    end = std::size_t(plen + 4 * i + n);
  }
  return line.substr(0, end);
}

// graph/rings.cc dumpLine of 2.23+: " %*d" (width of nranks-1), cut at 128 with "...".
std::string ring223(int c, int nc, const std::vector<int>& v) {
  constexpr int L = 128;
  char line[L];
  char prefix[40];
  std::snprintf(prefix, sizeof prefix, "Channel %02d/%02d :", c, nc);
  int w = std::snprintf(nullptr, 0, "%d", int(v.size()) - 1);
  int n = std::snprintf(line, L, "%s", prefix);
  for (std::size_t i = 0; i < v.size() && n < L - 1; ++i) n += std::snprintf(line + n, std::size_t(L - n), " %*d", w, v[i]);
  if (n >= L) std::snprintf(line + L - 4, 4, "...");
  return line;
}

std::string P(const char* host, int pid, int tid, int dev) {
  return std::string(host) + ":" + std::to_string(pid) + ":" + std::to_string(tid) + " [" + std::to_string(dev) + "] NCCL INFO ";
}

Log readOk(const std::string& text) {
  auto r = readText(text);
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? *r : Log{};
}

// 2.18: no nNodes line, rings before the one line that names the comm, no collnet count.
TEST(NcclLogFixtures, Form218) {
  std::string p0 = P("a", 10, 11, 0), p1 = P("a", 10, 12, 1);
  std::string t = p0 + "NCCL version 2.18.6+cuda12.2\n" + p0 + ring218(0, 2, {0, 1}) + "\n" + p0 + ring218(1, 2, {0, 1}) + "\n" +
                  p0 + "Trees [0] 1/-1/-1->0->-1 [1] 1/-1/-1->0->-1\n" + p1 + "Trees [0] -1/-1/-1->1->0 [1] -1/-1/-1->1->0\n" +
                  p0 + "Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read\n" + p1 + "Channel 00 : 1[1] -> 0[0] via SHM/direct/direct\n" +
                  p0 + "2 coll channels, 0 nvls channels, 2 p2p channels, 2 p2p channels per peer\n" +
                  p0 + "comm 0x55aa rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1b000 commId 0x1234abcd - Init COMPLETE\n" +
                  p1 + "comm 0x55bb rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId 1c000 commId 0x1234abcd - Init COMPLETE\n";
  Log log = readOk(t);
  EXPECT_EQ(log.version, "2.18.6+cuda12.2");
  ASSERT_EQ(log.comms.size(), 1u);
  const Comm& c = log.comms[0];
  EXPECT_EQ(c.nRanks, 2);
  EXPECT_EQ(c.nNodes, -1);
  EXPECT_EQ(c.collChannels, 2);
  ASSERT_EQ(c.members.size(), 2u);
  EXPECT_EQ(c.members[0].ptr, "0x55aa");
  EXPECT_EQ(c.members[0].collnetChannels, -1);
  ASSERT_EQ(c.rings.size(), 2u);
  EXPECT_EQ(c.rings[1].order, (std::vector<int>{0, 1}));
  EXPECT_EQ(c.members[1].trees.at(1).up, 0);
  EXPECT_EQ(c.members[0].transports.at(0).via, "P2P/IPC/read");
  EXPECT_EQ(c.members[1].transports.at(0).kind, "SHM");
  EXPECT_EQ(c.members[1].transports.at(0).channel, 0);
  EXPECT_EQ(sentence(c).english(), "2 ranks · 2 rings · intra-node links through P2P/IPC, SHM/direct");
  EXPECT_EQ(log.counts.bad, 0);
}

// 2.18 prints at most 20 ranks of a ring, with no mark: read as cut.
TEST(NcclLogFixtures, Form218CutAtTwenty) {
  std::vector<int> ring(24);
  for (int i = 0; i < 24; ++i) ring[std::size_t(i)] = (i * 5) % 24;
  std::string p0 = P("a", 1, 1, 0);
  Log log = readOk(p0 + ring218(0, 1, ring) + "\n" + p0 + "comm 0x1 rank 0 nranks 24 cudaDev 0 nvmlDev 0 busId 0 commId 0x9 - Init COMPLETE\n");
  const Comm& c = log.comms.at(0);
  ASSERT_EQ(c.rings.size(), 1u);
  EXPECT_TRUE(c.rings[0].cut);
  EXPECT_EQ(c.rings[0].order.size(), 20u);
  EXPECT_EQ(c.rings[0].order[19], 19 * 5 % 24);
  EXPECT_TRUE(ringOrder(c, 0).empty());  // a cut ring is not a whole order
}

// 2.20: "%ld Bytes -> Algo %d proto %d time %f" (numbers, no op), collnet count.
TEST(NcclLogFixtures, Form220) {
  std::string p = P("n1", 5, 5, 0);
  Log log = readOk(p + "comm 0xab rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n" + p +
                   "4 coll channels, 4 collnet channels, 0 nvls channels, 4 p2p channels, 2 p2p channels per peer\n" + p +
                   "1048576 Bytes -> Algo 1 proto 2 time 38.500000\n" + p + "1024 Bytes -> Algo 0 proto 0 time 6.100000\n" + p +
                   "1024 Bytes -> Algo 0 proto 0 time 6.100000\n" + p + "64 Bytes -> Algo 6 proto 1 time 2.0\n");
  ASSERT_EQ(log.choices.size(), 3u);
  EXPECT_EQ(log.choices[0].algo, "RING");
  EXPECT_EQ(log.choices[0].proto, "SIMPLE");
  EXPECT_EQ(log.choices[0].op, "");
  EXPECT_EQ(log.choices[1].algo, "TREE");
  EXPECT_EQ(log.choices[1].proto, "LL");
  EXPECT_EQ(log.choices[1].times, 2);
  EXPECT_EQ(log.choices[2].algo, "PAT");
  EXPECT_EQ(log.choices[2].proto, "LL128");
  EXPECT_EQ(log.comms.at(0).members.at(0).collnetChannels, 4);
  EXPECT_EQ(log.comms.at(0).nNodes, 1);
}

// 2.23: "%s: %ld Bytes -> Algo %d proto %d time %f"; the ring's " %*d" form and its "..." cut.
TEST(NcclLogFixtures, Form223AndTheCutRing) {
  std::vector<int> ring(64);
  for (int i = 0; i < 64; ++i) ring[std::size_t(i)] = (i * 7) % 64;
  std::string line = ring223(3, 8, ring);
  ASSERT_EQ(line.substr(line.size() - 3), "...");
  std::string p = P("h", 2, 3, 0);
  Log log = readOk(p + "comm 0x10 rank 0 nRanks 64 nNodes 8 localRanks 8 localRank 0 MNNVL 0\n" + p + line + "\n" + p +
                   ring223(4, 8, std::vector<int>(ring.begin(), ring.end())).substr(0, 0) + "Ring 03 : 57 -> 0 -> 7\n" + p +
                   "AllGather: 4096 Bytes -> Algo 6 proto 2 time 12.25\n");
  const Comm& c = log.comms.at(0);
  ASSERT_EQ(c.rings.size(), 1u);
  EXPECT_TRUE(c.rings[0].cut);
  EXPECT_EQ(c.rings[0].channel, 3);
  // " %2d" per rank after "Channel 03/08 :" (15 bytes); the 128-byte cut leaves 36 whole numbers.
  EXPECT_EQ(c.rings[0].order.size(), 36u);
  for (std::size_t i = 0; i < c.rings[0].order.size(); ++i) EXPECT_EQ(c.rings[0].order[i], ring[i]);
  EXPECT_EQ(c.members[0].ringNeighbours.at(3), (std::array<int, 2>{57, 7}));
  ASSERT_EQ(log.choices.size(), 1u);
  EXPECT_EQ(log.choices[0].op, "AllGather");
  EXPECT_EQ(log.choices[0].algo, "PAT");
  EXPECT_EQ(log.counts.bad, 0);
  // The same with 8 ranks is whole: no "...".
  Log whole = readOk(p + "comm 0x10 rank 0 nRanks 8 nNodes 1 localRanks 8 localRank 0 MNNVL 0\n" + p +
                     ring223(0, 1, {0, 1, 2, 3, 4, 5, 6, 7}) + "\n");
  EXPECT_FALSE(whole.comms.at(0).rings.at(0).cut);
}

// 2.24 and 2.26: multi-node over NET with PXN, named algorithms, timestamps and WARN.
TEST(NcclLogFixtures, Form224And226MultiNode) {
  std::string p = "[2025-03-18 09:54:41] " + P("node-a", 700, 701, 0);
  std::string t = p + "NCCL version 2.24.3+cuda12.4\n" + p + "Using network IB\n" + p +
                  "comm 0xc0 rank 0 nRanks 4 nNodes 2 localRanks 2 localRank 0 MNNVL 0\n" + p + ring223(0, 2, {0, 1, 2, 3}) + "\n" +
                  p + ring223(1, 2, {0, 1, 3, 2}) + "\n" + p + "Trees [0] 1/2/-1->0->-1 [1] 1/-1/-1->0->2\n" + p +
                  "Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n" + p +
                  "Channel 00/0 : 3[1] -> 0[0] [receive] via NET/IB/0/GDRDMA\n" + p +
                  "Channel 01/0 : 0[0] -> 3[1] [send] via NET/IB/1(1)/GDRDMA/Shared\n" + p +
                  "Channel 01/0 : 0[0] -> 3[1] [send] via NET/IB/1(1)/GDRDMA/Shared\n" +  // a repeat: kept once
                  "\n[2025-03-18 09:54:42] node-a:700:701 [0] net.cc:123 NCCL WARN NET/IB : got async event\n" + p +
                  "ncclCommInitRankConfig comm 0xc0 rank 0 nranks 4 cudaDev 0 nvmlDev 0 busId 18000 commId 0x77 - Init COMPLETE\n" + p +
                  "AllReduce: 1048576 Bytes -> Algo RING proto LL128 channel{Lo..Hi}={0..1}\n" + p +
                  "AllReduce: opCount 0 sendbuff 0x1 recvbuff 0x2 count 262144 datatype 7 op 0 root 0 comm 0xc0 [nranks=4] stream 0x3\n";
  Log log = readOk(t);
  EXPECT_EQ(log.counts.warn, 1);
  EXPECT_EQ(log.warnings.at(0).what, std::string("NET/IB : got async event"));
  const Comm& c = log.comms.at(0);
  EXPECT_EQ(c.commId, "0x77");
  EXPECT_EQ(c.rings.at(1).order, (std::vector<int>{0, 1, 3, 2}));
  const Member& m = c.members.at(0);
  EXPECT_EQ(m.trees.at(1).up, 2);
  ASSERT_EQ(m.transports.size(), 3u);
  EXPECT_EQ(m.transports[1].net, "IB");
  EXPECT_EQ(m.transports[1].proxy, -1);
  EXPECT_EQ(m.transports[2].netDev, 1);
  EXPECT_EQ(m.transports[2].proxy, 1);
  EXPECT_EQ(m.transports[2].dir, "send");
  EXPECT_TRUE(m.transports[2].gdr);
  EXPECT_EQ(log.choices.at(0).proto, "LL128");
  EXPECT_EQ(log.choices.at(0).chHi, 1);
  EXPECT_EQ(log.choices.at(0).comm, 0);
  EXPECT_EQ(c.callsByOp.at("AllReduce"), 1);
  EXPECT_EQ(sentence(c).english(), "4 ranks on 2 nodes · 2 rings · inter-node links through NET/IB · intra-node links through P2P/CUMEM");
}

// 2.28 and 2.29: symmetric kernels, split comms (parent, no commId), MNNVL.
TEST(NcclLogFixtures, Form228And229) {
  std::string p = P("gb200-1", 9, 9, 2);
  Log log = readOk(p + "comm 0xd0 rank 1 nRanks 4 nNodes 1 localRanks 4 localRank 1 MNNVL 1\n" + p +
                   "Tree 0 : 0 -> 1 -> 2/-1/-1\n" + p + "Tree 4 : -1 -> 1 -> 0/-1/-1\n" + p +
                   "Channel 00/1 : 1[2] -> 2[3] via P2P/MNNVL/read/CE\n" + p +
                   "ncclCommSplit comm 0xd0 rank 1 nranks 4 cudaDev 2 nvmlDev 2 busId 3000 parent 0xa0 childCount 0 color 1 key 1 - Init COMPLETE\n" + p +
                   "AllReduce [Symmetric]: 65536 Bytes -> Kernel AllReduce_AGxLL_R nchannels 24 nthreads 512 nWorks 1\n" + p +
                   "AllGather [Copy Engine]: 1048576 Bytes -> cudaMemcpy\n");
  const Member& m = log.comms.at(0).members.at(0);
  EXPECT_EQ(m.rank, 1);
  EXPECT_TRUE(m.complete);
  EXPECT_EQ(m.trees.at(4).down, (std::array<int, 3>{0, -1, -1}));
  EXPECT_EQ(m.transports.at(0).conn, 1);
  EXPECT_EQ(m.transports.at(0).via, "P2P/MNNVL/read/CE");
  ASSERT_EQ(log.choices.size(), 2u);
  EXPECT_EQ(log.choices[0].algo, "symmetric AllReduce_AGxLL_R");
  EXPECT_EQ(log.choices[0].chHi, 23);
  EXPECT_EQ(log.choices[1].algo, "cudaMemcpy");
  EXPECT_EQ(log.counts.bad, 0);
}

// NVLS (transport/nvls.cc, graph/connect.cc): the heads and the NVLS trees, 2.29 and 2.18 forms.
TEST(NcclLogFixtures, NvlsHeadsAndTrees) {
  std::string p = P("h", 1, 1, 0);
  Log log = readOk(p + "comm 0x9 rank 2 nRanks 8 nNodes 1 localRanks 8 localRank 2 MNNVL 0\n" + p +
                   "NVLS comm 0x9 headRank 2 nHeads 4 nvlsRanks 8 buffSize 1048576 nvlsPerRankSize 201326592 nvlsTotalSize 1610612736\n" + p +
                   "NVLS Trees : 0/1/-1->2->-1 3/-1/-1->2->4\n");
  const Member& m = log.comms.at(0).members.at(0);
  EXPECT_EQ(m.nvlsHeadRank, 2);
  EXPECT_EQ(m.nvlsHeads, 4);
  ASSERT_EQ(m.nvlsTree.size(), 2u);
  EXPECT_EQ(m.nvlsTree[0].down, (std::array<int, 3>{0, 1, -1}));
  EXPECT_EQ(m.nvlsTree[1].up, 4);
  Log old = readOk(p + "comm 0x9 rank 2 nRanks 8 nNodes 1 localRanks 8 localRank 2 MNNVL 0\n" + p + "NVLS Trees : 0/1->2->-1 3/-1->2->4\n");
  const Member& o = old.comms.at(0).members.at(0);
  ASSERT_EQ(o.nvlsTree.size(), 2u);
  EXPECT_EQ(o.nvlsTree[1].down, (std::array<int, 3>{3, -1, -1}));
  EXPECT_EQ(old.counts.bad, 0);
}

// Two processes writing one file: a line cut into by another is counted, not read.
TEST(NcclLogFixtures, InterleavedLinesAreCounted) {
  std::string a = P("h", 1, 1, 0), b = P("h", 2, 2, 1);
  Log log = readOk(a + "comm 0x1 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n" + b +
                   "comm 0x2 rank 1 nRanks 2 nNodes 1 localRanks 2 localRank 1 MNNVL 0\n" + a + "Channel 00/01 :" + b +
                   "Ring 00 : 0 -> 1 -> 0\n 0 1\n" + "h:1:" + b + "Trees [0] 0/-1/-1->1->-1\n" + a + "Ring 00 : 1 -> 0 -> 1\n");
  EXPECT_EQ(log.counts.interleaved, 2);
  EXPECT_EQ(log.counts.foreign, 1);  // " 0 1": the rest of the cut line
  const Comm* c0 = nullptr;
  for (const Comm& c : log.comms)
    if (c.members.at(0).rank == 0) c0 = &c;
  ASSERT_NE(c0, nullptr);
  EXPECT_EQ(c0->members[0].ringNeighbours.at(0), (std::array<int, 2>{1, 1}));
  EXPECT_TRUE(c0->rings.empty());
}

// Two communicators in one process, on one thread: each line goes to the comm it follows.
TEST(NcclLogFixtures, SeveralCommunicatorsInOneFile) {
  std::string p = P("h", 1, 1, 0);
  Log log = readOk(p + "comm 0xaa rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n" + p + ring223(0, 1, {0, 1}) + "\n" +
                   p + "ncclCommInitRank comm 0xaa rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1 commId 0x111 - Init COMPLETE\n" + p +
                   "comm 0xbb rank 0 nRanks 3 nNodes 1 localRanks 3 localRank 0 MNNVL 0\n" + p + ring223(0, 1, {0, 2, 1}) + "\n" +
                   p + "ncclCommInitRank comm 0xbb rank 0 nranks 3 cudaDev 0 nvmlDev 0 busId 1 commId 0x222 - Init COMPLETE\n");
  ASSERT_EQ(log.comms.size(), 2u);
  EXPECT_EQ(log.comms[0].commId, "0x111");
  EXPECT_EQ(log.comms[0].rings.at(0).order, (std::vector<int>{0, 1}));
  EXPECT_EQ(log.comms[1].commId, "0x222");
  EXPECT_EQ(log.comms[1].rings.at(0).order, (std::vector<int>{0, 2, 1}));
}

// Without Init COMPLETE lines (no commId): one process holding ranks 0 and 1
// of 2-rank communicators (ncclCommInitAll) makes one communicator of them;
// a rank seen again in that process starts the next one; another process's
// rank 0 stays apart.
TEST(NcclLogFixtures, RanksOfOneProcessWithoutCommId) {
  std::string a = P("h", 7, 1, 0), b = P("h", 7, 2, 1), other = P("g", 9, 1, 0);
  Log log = readOk(a + "comm 0xa0 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n" +
                   b + "comm 0xa1 rank 1 nRanks 2 nNodes 1 localRanks 2 localRank 1 MNNVL 0\n" + a + ring223(0, 1, {0, 1}) + "\n" +
                   a + "comm 0xb0 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n" +
                   b + "comm 0xb1 rank 1 nRanks 2 nNodes 1 localRanks 2 localRank 1 MNNVL 0\n" + a + ring223(0, 1, {0, 1}) + "\n" +
                   other + "comm 0xc0 rank 0 nRanks 2 nNodes 1 localRanks 1 localRank 0 MNNVL 0\n");
  ASSERT_EQ(log.comms.size(), 3u);
  for (int k : {0, 1}) {
    const Comm& c = log.comms[std::size_t(k)];
    ASSERT_EQ(c.members.size(), 2u) << "communicator " << k;
    EXPECT_EQ(c.members[0].ptr, k == 0 ? "0xa0" : "0xb0");
    EXPECT_EQ(c.members[1].ptr, k == 0 ? "0xa1" : "0xb1");
  }
  EXPECT_EQ(log.comms[2].members.size(), 1u);
  EXPECT_EQ(log.comms[2].members[0].host, "g");
}

// A folder of per-rank files (NCCL_DEBUG_FILE=nccl.%h.%p) whose ranks disagree: named.
TEST(NcclLogFixtures, PerRankFolderThatDisagrees) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("collviz_nccl_log_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) { std::ofstream(dir / name) << text; };
  std::string a = P("a", 1, 1, 0), b = P("b", 2, 2, 0), c = P("b", 3, 3, 1);
  write("nccl.a.1", a + "comm 0x1 rank 0 nRanks 3 nNodes 2 localRanks 1 localRank 0 MNNVL 0\n" + a + ring223(0, 1, {0, 1, 2}) + "\n" + a +
                        "ncclCommInitRank comm 0x1 rank 0 nranks 3 cudaDev 0 nvmlDev 0 busId 1 commId 0x5 - Init COMPLETE\n");
  write("nccl.b.2", b + "comm 0x2 rank 1 nRanks 3 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n" + b + "Ring 00 : 0 -> 1 -> 2\n" + b +
                        "ncclCommInitRank comm 0x2 rank 1 nranks 3 cudaDev 0 nvmlDev 0 busId 1 commId 0x5 - Init COMPLETE\n");
  write("nccl.b.3", c + "comm 0x3 rank 2 nRanks 3 nNodes 2 localRanks 2 localRank 1 MNNVL 0\n" + c + "Ring 00 : 0 -> 2 -> 1\n" + c +
                        "ncclCommInitRank comm 0x3 rank 2 nranks 3 cudaDev 1 nvmlDev 1 busId 2 commId 0x5 - Init COMPLETE\n");
  auto r = read({dir.string()});
  fs::remove_all(dir);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->files.size(), 3u);
  ASSERT_EQ(r->comms.size(), 1u);
  const Comm& cm = r->comms[0];
  EXPECT_EQ(cm.members.size(), 3u);
  EXPECT_EQ(cm.hosts, (std::vector<std::string>{"a", "b"}));
  std::string all;
  for (const Said& d : cm.disagreements) all += std::string(d) + "\n";
  EXPECT_NE(all.find("nccl.a.1 says 2 nodes, " + (dir / "nccl.b.2").string() + " says 1"), std::string::npos) << all;
  EXPECT_NE(all.find("channel 0: rank 0's ring has 1 -> 2 -> 0, rank 2's lines (" + (dir / "nccl.b.3").string() + ") say 0 -> 2 -> 1"),
            std::string::npos)
      << all;
  EXPECT_EQ(cm.disagreements.size(), 2u) << all;  // rank 1 agrees with the ring
  EXPECT_TRUE(std::none_of(r->missing.begin(), r->missing.end(),
                           [](const Said& s) { return s.find("have no lines here") != std::string::npos; }));
}

// 2.20-2.22 with NCCL_DEBUG=TRACE (tests/engine/job/fixtures/nccl_call_trace.log):
// the tuning line names no op ("40 Bytes -> Algo 1 proto 0 time 8.6"); the
// "NCCL CALL ncclAllReduce(...)" line before it names the op and its comm,
// the "AllReduce: opCount" line after it the comm again. Each choice is the
// op's and the communicator's the log names; a line of a thread that traced
// no call keeps no op and no communicator (nothing guessed).
TEST(NcclLogFixtures, TuningWithoutItsOpTakesTheTracedCall) {
  auto r = read({(std::filesystem::path(COLLVIZ_JOB_FIXTURES) / "nccl_call_trace.log").string()});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->comms.size(), 2u);
  auto commOf = [&](const std::string& id) {
    for (std::size_t i = 0; i < r->comms.size(); ++i)
      if (r->comms[i].commId == id) return int(i);
    return -2;
  };
  ASSERT_EQ(r->choices.size(), 3u);  // the two 40 B lines are one choice (their times differ)
  const Choice* ar = nullptr;
  const Choice* bc = nullptr;
  const Choice* none = nullptr;
  for (const Choice& c : r->choices) {
    if (c.bytes == 40 && !ar) ar = &c;
    if (c.bytes == 4096) bc = &c;
    if (c.bytes == 8192) none = &c;
  }
  ASSERT_TRUE(ar && bc && none);
  EXPECT_EQ(ar->op, "AllReduce");
  EXPECT_EQ(ar->algo, "RING");
  EXPECT_EQ(ar->proto, "LL");
  EXPECT_EQ(ar->times, 2);
  EXPECT_EQ(ar->comm, commOf("0x521631e3a56ecc2c"));
  EXPECT_EQ(bc->op, "Broadcast");
  EXPECT_EQ(bc->proto, "SIMPLE");
  EXPECT_EQ(bc->comm, commOf("0x77aa0000bbcc1111"));
  EXPECT_EQ(none->op, "");
  EXPECT_EQ(none->comm, -1);
  EXPECT_EQ(r->counts.bad, 0);
  EXPECT_EQ(r->counts.foreign, 0);  // the CALL lines are NCCL's
}

}  // namespace
}  // namespace collviz::nccl_log
