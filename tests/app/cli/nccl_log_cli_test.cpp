// collviz nccl-log: the text (en and 中文), --json, a per-rank folder and
// stdin, and the errors: a file that is not an NCCL log, a missing one.
#include <nlohmann/json.hpp>

#include "tests/app/cli/cli_process.h"

namespace collviz::test {
namespace {

const std::string kP0 = "a:1:1 [0] NCCL INFO ", kP1 = "b:2:2 [0] NCCL INFO ";

std::string rank0() {
  return kP0 + "NCCL version 2.26.2+cuda12.6\n" + kP0 + "comm 0x1 rank 0 nRanks 2 nNodes 2 localRanks 1 localRank 0 MNNVL 0\n" + kP0 +
         "Channel 00/02 : 0 1\n" + kP0 + "Channel 01/02 : 0 1\n" + kP0 + "Trees [0] 1/-1/-1->0->-1 [1] -1/-1/-1->0->1\n" + kP0 +
         "2 coll channels, 2 collnet channels, 0 nvls channels, 2 p2p channels, 1 p2p channels per peer\n" + kP0 +
         "ncclCommInitRank comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1000 commId 0x42 - Init COMPLETE\n" + kP0 +
         "Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA\n" + kP0 +
         "AllReduce: 1048576 Bytes -> Algo RING proto LL128 channel{Lo..Hi}={0..1}\n" + kP0 +
         "AllReduce: opCount 0 sendbuff 0x2 recvbuff 0x3 count 262144 datatype 7 op 0 root 0 comm 0x1 [nranks=2] stream 0x4\n";
}

std::filesystem::path write(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p) << text;
  return p;
}

TEST(NcclLogCli, TextSaysTheSentenceAndTheTable) {
  Cli c("nccl_log_cli_", {"nccl-log", "x"});  // for its temp dir
  c.wait();
  auto f = write(c.dir / "nccl.a.1", rank0());
  Cli en("nccl_log_cli_", {"nccl-log", f.string()});
  ASSERT_EQ(en.wait(), 0) << en.err;
  EXPECT_NE(en.out.find("communicator 0x42: 2 ranks on 2 nodes · 2 rings · inter-node links through NET/IB"), std::string::npos) << en.out;
  EXPECT_NE(en.out.find("    00: 0 1"), std::string::npos) << en.out;
  EXPECT_NE(en.out.find("1048576  RING             LL128    0–1"), std::string::npos) << en.out;
  EXPECT_NE(en.out.find("1 of its 2 ranks have no lines here (ranks 1)"), std::string::npos) << en.out;
  Cli zh("nccl_log_cli_", {"--lang", "zh", "nccl-log", f.string()});
  ASSERT_EQ(zh.wait(), 0) << zh.err;
  EXPECT_NE(zh.out.find("通信器 0x42：2 个 rank，分布在 2 个节点上，2 个环，节点间链路经由 NET/IB"), std::string::npos) << zh.out;
  EXPECT_NE(zh.out.find("日志没有说的："), std::string::npos) << zh.out;
  EXPECT_EQ(zh.out.find("communicator"), std::string::npos) << zh.out;
}

TEST(NcclLogCli, JsonFolderAndStdin) {
  Cli c("nccl_log_cli_", {"nccl-log", "x"});
  c.wait();
  std::filesystem::create_directories(c.dir / "ranks");
  write(c.dir / "ranks" / "nccl.a.1", rank0());
  write(c.dir / "ranks" / "nccl.b.2", kP1 + "comm 0x9 rank 1 nRanks 2 nNodes 1 localRanks 1 localRank 0 MNNVL 0\n" + kP1 +
                                           "ncclCommInitRank comm 0x9 rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId 1000 commId 0x42 - Init COMPLETE\n");
  Cli j("nccl_log_cli_", {"nccl-log", "--json", (c.dir / "ranks").string()});
  ASSERT_EQ(j.wait(), 0) << j.err;
  auto doc = nlohmann::json::parse(j.out);
  ASSERT_EQ(doc["comms"].size(), 1u);
  EXPECT_EQ(doc["comms"][0]["members"].size(), 2u);
  EXPECT_EQ(doc["comms"][0]["rings"][1]["order"], nlohmann::json::array({0, 1}));
  EXPECT_EQ(doc["collectives"][0]["proto"], "LL128");
  ASSERT_EQ(doc["comms"][0]["disagreements"].size(), 1u);
  EXPECT_NE(doc["comms"][0]["disagreements"][0].get<std::string>().find("says 2 nodes"), std::string::npos);
  // stdin
  std::string cmd = std::string("'") + COLLVIZ_CLI + "' nccl-log --json - < '" + (c.dir / "ranks" / "nccl.a.1").string() + "'";
  FILE* p = ::popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  EXPECT_EQ(::pclose(p), 0);
  EXPECT_EQ(nlohmann::json::parse(out)["files"][0], "stdin");
}

TEST(NcclLogCli, NotAnNcclLogExits1AndSaysSo) {
  Cli c("nccl_log_cli_", {"nccl-log", "x"});
  c.wait();
  auto f = write(c.dir / "notes.txt", "hello\nworld\n");
  Cli e("nccl_log_cli_", {"nccl-log", f.string()});
  EXPECT_EQ(e.wait(), 1);
  EXPECT_NE(e.err.find("notes.txt is not an NCCL log: none of its 2 lines has NCCL's prefix"), std::string::npos) << e.err;
  Cli z("nccl_log_cli_", {"--lang", "zh", "nccl-log", f.string()});
  EXPECT_EQ(z.wait(), 1);
  EXPECT_NE(z.err.find("不是 NCCL 日志"), std::string::npos) << z.err;
  Cli m("nccl_log_cli_", {"nccl-log", "/nonexistent/x.log"});
  EXPECT_EQ(m.wait(), 1);
  EXPECT_NE(m.err.find("/nonexistent/x.log: no such file or folder"), std::string::npos) << m.err;
}

}  // namespace
}  // namespace collviz::test
