// Bad input: empty, binary, 1 GB of garbage, 10 MB lines, numbers that
// overflow, a rank >= nRanks, a ring that is not a permutation. Clear errors
// or counted lines; memory stays flat.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "engine/job/nccl_log/nccl_log.h"

namespace collviz::nccl_log {
namespace {

const std::string kP = "h:1:1 [0] NCCL INFO ";

long rssKiB() {
  std::ifstream f("/proc/self/statm");
  long pages = 0, rss = 0;
  f >> pages >> rss;
  return rss * (sysconf(_SC_PAGESIZE) / 1024);
}

std::string badText(const Log& log) {
  std::string s;
  for (const Sample& b : log.bad) s += std::string(b.what) + "\n";
  return s;
}

TEST(NcclLogHostile, EmptyFileIsAClearError) {
  std::filesystem::path p = std::filesystem::temp_directory_path() / ("collviz_empty_" + std::to_string(::getpid()));
  std::ofstream(p).close();
  auto r = read({p.string()});
  std::filesystem::remove(p);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("is empty"), std::string::npos) << r.error().message;
}

TEST(NcclLogHostile, BinaryFileIsNotAnNcclLog) {
  std::string bin(1 << 20, '\0');
  std::mt19937 g(7);
  for (char& c : bin) c = char(g());
  auto r = readText(bin, "blob.bin");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("blob.bin is not an NCCL log"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("NCCL_DEBUG=INFO"), std::string::npos) << r.error().message;
}

TEST(NcclLogHostile, MissingPathIsNamed) {
  auto r = read({"/nonexistent/nccl.log"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "/nonexistent/nccl.log: no such file or folder");
}

// 1 GB of garbage, streamed: the reader gives up after 64 MiB with no NCCL
// line, in bounded time and memory.
TEST(NcclLogHostile, GigabyteOfGarbageStopsEarly) {
  std::string chunk;
  std::mt19937 g(1);
  while (chunk.size() < (1u << 20)) {
    int n = int(g() % 200);
    for (int i = 0; i < n; ++i) chunk += char('!' + g() % 90);
    chunk += '\n';
  }
  long before = rssKiB();
  auto t0 = std::chrono::steady_clock::now();
  Reader r;
  r.begin("garbage");
  std::int64_t fed = 0;
  Status st;
  while (fed < (1LL << 30) && (st = r.feed(chunk))) fed += std::int64_t(chunk.size());
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("garbage is not an NCCL log: its first 64 MiB"), std::string::npos) << st.message();
  EXPECT_LE(fed, 70LL << 20);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
  EXPECT_LT(rssKiB() - before, 16 * 1024);
}

// 1 GB of a log: an NCCL line, then garbage and NCCL lines of kinds not read,
// all counted; memory flat.
TEST(NcclLogHostile, GigabyteLogInFlatMemory) {
  std::string chunk;
  std::mt19937 g(2);
  int i = 0;
  while (chunk.size() < (1u << 20)) {
    if (i % 7 == 0) chunk += "h:1:1 [0] NCCL INFO Channel " + std::to_string(i % 24) + "/24 : 0 1\n";  // kept once per channel
    else if (i % 11 == 0) chunk += "h:1:1 [0] NCCL INFO Trees [" + std::to_string(i % 24) + "] 1/-1/-1->0->-1\n";
    else if (i % 3 == 0) chunk += "h:" + std::to_string(i % 50) + ":7 [0] NCCL INFO Bootstrap timings total 0.05\n";
    else if (i % 3 == 1) chunk += "h:1:1 [0] NCCL INFO Channel " + std::to_string(i % 32) + "/0 : 0[0] -> 1[1] via P2P/CUMEM\n";
    else for (int k = 0, n = int(g() % 120); k <= n; ++k) chunk += k == n ? '\n' : char('a' + g() % 26);
    ++i;
  }
  long before = rssKiB();
  Reader r;
  r.begin("big");
  std::int64_t fed = 0;
  while (fed < (1LL << 30)) {
    ASSERT_TRUE(r.feed(chunk).ok());
    fed += std::int64_t(chunk.size());
  }
  ASSERT_TRUE(r.end().ok());
  Log log = r.finish();
  EXPECT_EQ(log.counts.bytes, fed);
  EXPECT_GT(log.counts.foreign, 1000000);
  EXPECT_GT(log.counts.other, 1000000);
  EXPECT_LT(rssKiB() - before, 16 * 1024);
}

TEST(NcclLogHostile, TenMegabyteLineIsCountedNotStored) {
  std::string t = kP + "comm 0x1 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n" + kP + "Channel 00/01 :" +
                  std::string(10 << 20, '7') + "\n" + kP + "Channel 00/01 : 0 1\n";
  long before = rssKiB();
  Reader r;
  r.begin("long");
  for (std::size_t at = 0; at < t.size(); at += 65536) ASSERT_TRUE(r.feed(std::string_view(t).substr(at, 65536)).ok());
  ASSERT_TRUE(r.end().ok());
  Log log = r.finish();
  EXPECT_EQ(log.counts.tooLong, 1);
  EXPECT_EQ(log.counts.lines, 3);
  EXPECT_EQ(log.comms.at(0).rings.at(0).order, (std::vector<int>{0, 1}));
  EXPECT_LT(rssKiB() - before, 4 * 1024 + 11 * 1024);  // the text itself is 10 MB; no copy of the line
}

TEST(NcclLogHostile, NumbersThatOverflow) {
  auto r = readText(kP + "comm 0x1 rank 0 nRanks 99999999999999999999 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n" + kP +
                    "Channel 00/01 : 0 4294967296\n" + kP + "Ring 99999999999 : 0 -> 1 -> 0\n" + kP +
                    "AllReduce: 99999999999999999999999 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..1}\n" + kP +
                    "Channel 00/0 : 0[0] -> 1[99999999999] via P2P/CUMEM\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->counts.bad, 5) << badText(*r);
  EXPECT_NE(badText(*r).find("a number too large in"), std::string::npos);
  EXPECT_TRUE(r->choices.empty());
}

TEST(NcclLogHostile, RankPastNRanks) {
  auto r = readText(kP + "comm 0x1 rank 8 nRanks 8 nNodes 1 localRanks 8 localRank 0 MNNVL 0\n" + kP +
                    "comm 0x2 rank 0 nRanks 4 nNodes 1 localRanks 4 localRank 0 MNNVL 0\n" + kP + "Channel 00/01 : 0 1 2 5\n" + kP +
                    "Channel 00/0 : 0[0] -> 9[1] via P2P/CUMEM\n" + kP + "Channel 01/0 : 0[0] -> 1[1] via P2P/CUMEM\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  std::string b = badText(*r);
  EXPECT_EQ(r->counts.bad, 3) << b;
  EXPECT_NE(b.find("rank 8 of 8 ranks: a rank is from 0 to nRanks-1"), std::string::npos) << b;
  EXPECT_NE(b.find("channel 0's ring has 4 ranks, or a rank past them, and the communicator has 4"), std::string::npos) << b;
  EXPECT_NE(b.find("1 links name a rank outside 0 to 3"), std::string::npos) << b;
  const Comm& c = r->comms.back();
  EXPECT_TRUE(c.rings.empty());
  ASSERT_EQ(c.members.at(0).transports.size(), 1u);
  EXPECT_EQ(c.members[0].transports[0].to, 1);
}

// The edge: rank 4 of a 4-rank communicator (ranks are 0 to 3), in a ring
// that is otherwise a ring of 4 distinct ranks; rank 3, the last one, fits.
TEST(NcclLogHostile, RingWithRankEqualToNRanksIsRefused) {
  auto r = readText(kP + "comm 0x2 rank 0 nRanks 4 nNodes 1 localRanks 4 localRank 0 MNNVL 0\n" + kP + "Channel 00/02 : 0 1 2 4\n" + kP +
                    "Channel 01/02 : 0 1 3 2\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  std::string b = badText(*r);
  EXPECT_EQ(r->counts.bad, 1) << b;
  EXPECT_NE(b.find("channel 0's ring has 4 ranks, or a rank past them, and the communicator has 4"), std::string::npos) << b;
  const Comm& c = r->comms.back();
  ASSERT_EQ(c.rings.size(), 1u) << "only channel 1's ring is drawn";
  EXPECT_EQ(c.rings[0].channel, 1);
  EXPECT_EQ(c.rings[0].order, (std::vector<int>{0, 1, 3, 2}));
}

TEST(NcclLogHostile, RingThatIsNotAPermutation) {
  auto r = readText(kP + "comm 0x1 rank 0 nRanks 4 nNodes 1 localRanks 4 localRank 0 MNNVL 0\n" + kP + "Channel 00/02 : 0 1 1 3\n" + kP +
                    "Channel 01/02 : 0 -2 1 3\n" + kP + "Channel 01/02 : 0 1 x 3\n");
  ASSERT_TRUE(r.ok());
  std::string b = badText(*r);
  EXPECT_EQ(r->counts.bad, 3) << b;
  EXPECT_NE(b.find("channel 0's ring is not a permutation of the ranks"), std::string::npos) << b;
  EXPECT_NE(b.find("a ring line with a word that is not a rank"), std::string::npos) << b;
  EXPECT_TRUE(r->comms.at(0).rings.empty());
}

// A channel number per line: what is kept per rank stays at kMaxChannels.
TEST(NcclLogHostile, ManyChannelsAreBounded) {
  std::string t = kP + "comm 0x1 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n";
  for (int c = 0; c < 3000; ++c) {
    t += kP + "Tree " + std::to_string(c) + " : -1 -> 0 -> 1/-1/-1\n";
    t += kP + "Channel " + std::to_string(c) + "/3000 : 0 1\n";
    t += kP + "Ring " + std::to_string(c) + " : 1 -> 0 -> 1\n";
  }
  auto r = readText(t);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->counts.dropped, 3 * (3000 - std::int64_t(kMaxChannels)));
  const Member& m = r->comms.at(0).members.at(0);
  EXPECT_EQ(m.trees.size(), kMaxChannels);
  EXPECT_EQ(m.ringNeighbours.size(), kMaxChannels);
  EXPECT_EQ(r->comms[0].rings.size(), kMaxChannels);
}

// Ever new threads naming one comm (a million): the thread table stays bounded.
TEST(NcclLogHostile, ManyThreadsAreBounded) {
  long before = rssKiB();
  Reader r;
  r.begin("threads");
  std::string c;
  for (int k = 0; k < 50; ++k) {
    c.clear();
    for (int t = 0; t < 20000; ++t)
      c += "h:1:" + std::to_string(k * 20000 + t) + " [0] NCCL INFO comm 0x1 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n";
    ASSERT_TRUE(r.feed(c).ok());
  }
  ASSERT_TRUE(r.end().ok());
  EXPECT_LT(rssKiB() - before, 32 * 1024);
  Log log = r.finish();
  EXPECT_EQ(log.comms.size(), 1u);
}

TEST(NcclLogHostile, ManyProcessesAreBounded) {
  std::string t;
  for (int pid = 0; pid < int(kMaxMembers) + 100; ++pid)
    t += "h:" + std::to_string(pid) + ":1 [0] NCCL INFO Ring 00 : 1 -> 0 -> 1\n";
  auto r = readText(t);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->counts.membersDropped, 100);
  EXPECT_EQ(r->comms.size(), kMaxMembers);
}

}  // namespace
}  // namespace collviz::nccl_log
