// NCCL on real GPUs (ctest label `gpu`), and on the stand-in CUDA runtime
// and NCCL (a test double on host memory, ctest label `standin`). Each test
// forks one process per rank with the environment placeRanks gives it (so
// 4 ranks share one GPU through the NCCL_HOSTID route), rendezvous through a
// file-backed ControlStore (tests/engine/worker/nccl_group.h), and checks
// every output element against NCCL's documented semantics.
// Without a usable GPU the program prints the reason and exits 77, which
// ctest reports as skipped (SKIP_RETURN_CODE), never as passed.
//
// The parent process never touches CUDA: a CUDA context does not survive fork.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "engine/group/placement.h"
#include "engine/worker/nccl/communicator.h"
#include "tests/engine/worker/nccl_group.h"
#include "tests/engine/worker/nccl_test_data.h"

namespace collviz {
namespace {

int g_gpus = 0, g_version = 0;

using test::GroupOptions;
using test::joined;
using test::RankBody;

// Runs `body` in `ranks` processes (tests/engine/worker/nccl_group.h); one
// line per failing rank.
std::vector<std::string> runGroup(int ranks, const RankBody& body, const GroupOptions& o = {}) {
  return test::failures(test::runRanks(ranks, g_gpus, g_version, body, o));
}

// Runs one case on one rank and checks every element it owns.
std::string runCase(Communicator& comm, const OpSpec& s, int rank) {
  std::vector<std::byte> in = testdata::makeInput(s, rank);
  std::vector<std::byte> out(outputBytes(s, rank), std::byte{0xEE});
  auto t = comm.run(s, in.empty() ? nullptr : in.data(), out.empty() ? nullptr : out.data(),
                    RunOptions{1, 2});
  const std::string tag = std::string(name(s.op)) + "/" + std::string(name(s.dtype)) + "/" +
                          std::string(name(s.redop)) + " E=" + std::to_string(s.elems) +
                          " root=" + std::to_string(s.root);
  if (!t) return tag + ": " + t.error().message + "\n";
  if (!(t->op_us > 0)) return tag + ": op_us not positive\n";
  if ((!in.empty() || !out.empty()) && !(t->copy_us > 0)) return tag + ": copy_us not positive\n";
  if (t->copies.rfind("page-locked", 0) != 0 && t->copies.rfind("pageable", 0) != 0)
    return tag + ": no copy mode reported (copies = '" + t->copies + "')\n";
  std::string bad = testdata::check(s, rank, out);
  return bad.empty() ? "" : tag + ": " + bad + "\n";
}

std::vector<OpSpec> matrix(int ranks) {
  std::vector<OpSpec> v;
  for (int o = 0; o < kOpCount; ++o)
    for (int root : {0, ranks - 1}) v.push_back({Op(o), ranks, 5, DType::f32, RedOp::sum, root});
  for (Op op : {Op::all_reduce, Op::reduce, Op::reduce_scatter})
    for (int t = 0; t < kDTypeCount; ++t)
      for (int r = 0; r < kRedOpCount; ++r)
        if (RedOp(r) != RedOp::avg || isFloat(DType(t)))  // as validate() allows
          v.push_back({op, ranks, 3, DType(t), RedOp(r), 0});
  for (Op op : {Op::all_gather, Op::all_to_all, Op::broadcast})
    for (int t = 0; t < kDTypeCount; ++t) v.push_back({op, ranks, 3, DType(t), RedOp::sum, 0});
  // Buffers grow, then shrink again.
  v.push_back({Op::all_reduce, ranks, 1 << 20, DType::f32, RedOp::sum, 0});
  v.push_back({Op::all_to_all, ranks, 7, DType::f64, RedOp::sum, 0});
  return v;
}

class NcclGroup : public ::testing::TestWithParam<int> {};

TEST_P(NcclGroup, EveryOpDTypeAndRedOpMatchesNcclSemantics) {
  const int ranks = GetParam();
  auto failures = runGroup(ranks, [ranks](int rank, Communicator& comm) {
    std::string errs;
    for (const OpSpec& s : matrix(ranks)) errs += runCase(comm, s, rank);
    const BackendInfo b = comm.describe();
    if (b.name != "nccl" || b.version.empty()) errs += "describe(): bad name/version\n";
    if (ranks > g_gpus && b.transport.find("socket over lo") == std::string::npos)
      errs += "describe().transport: " + b.transport + "\n";
    if (rank == 0) std::fprintf(stderr, "[N=%d] %s | %s | %s | %s\n", ranks, b.version.c_str(),
                                b.devices.c_str(), b.transport.c_str(), b.notes.c_str());
    return errs;
  });
  EXPECT_TRUE(failures.empty()) << joined(failures);
}
INSTANTIATE_TEST_SUITE_P(Ranks, NcclGroup, ::testing::Values(1, 2, 3, 4));

TEST(Nccl, SendRecvFallbackForGatherScatterAllToAll) {
  GroupOptions o;
  o.env = {{"COLLVIZ_NCCL_SENDRECV", "1"}};
  auto failures = runGroup(4, [](int rank, Communicator& comm) {
    std::string errs;
    for (Op op : {Op::gather, Op::scatter, Op::all_to_all})
      for (int root : {0, 3}) errs += runCase(comm, {op, 4, 5, DType::bf16, RedOp::sum, root}, rank);
    if (comm.describe().notes.find("grouped ncclSend/ncclRecv") == std::string::npos)
      errs += "notes do not name the send/recv path: " + comm.describe().notes + "\n";
    return errs;
  }, o);
  EXPECT_TRUE(failures.empty()) << joined(failures);
}

TEST(Nccl, OutOfMemoryNamesTheSizeAndLeavesNothingAllocated) {
  auto failures = runGroup(1, [](int rank, Communicator& comm) -> std::string {
    std::string errs = runCase(comm, {Op::all_reduce, 1, 1 << 20, DType::f32, RedOp::sum, 0}, rank);
    const std::size_t before = testdata::freeDeviceBytes();
    const std::size_t huge = testdata::totalDeviceBytes() * 2;
    // Reserved address space only: the run must fail before touching it.
    void* host = ::mmap(nullptr, huge, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (host == MAP_FAILED) return "mmap of the fake host buffer failed";
    const OpSpec s{Op::all_reduce, 1, int64_t(huge / 4), DType::f32, RedOp::sum, 0};
    auto r = comm.run(s, host, host, RunOptions{});
    ::munmap(host, huge);
    if (r) return "a " + std::to_string(huge) + "-byte run did not fail";
    const std::string& m = r.error().message;
    if (m.find("cudaMalloc of " + std::to_string(huge) + " bytes") == std::string::npos ||
        m.find("bytes free") == std::string::npos)
      errs += "unclear OOM message: " + m + "\n";
    if (testdata::freeDeviceBytes() + (std::size_t(64) << 20) < before)
      errs += "device memory still allocated after the failed run\n";
    errs += runCase(comm, {Op::all_reduce, 1, 9, DType::f32, RedOp::sum, 0}, rank);  // still works
    return errs;
  });
  EXPECT_TRUE(failures.empty()) << joined(failures);
}

TEST(Nccl, AMissingPeerTimesOutAbortsAndNamesOpAndRank) {
  GroupOptions o;
  o.timeout_ms = 1500;
  auto failures = runGroup(2, [](int rank, Communicator& comm) -> std::string {
    if (rank == 1) {  // never joins the op, stays alive meanwhile
      std::this_thread::sleep_for(std::chrono::seconds(6));
      return "";
    }
    // Copies a failed run queued may land later (the module leaves them, as
    // the engine's shared memory outlives the rank): never freed.
    static std::vector<float> in(8, 1.f), out(8);
    const auto t0 = std::chrono::steady_clock::now();
    auto r = comm.run({Op::all_reduce, 2, 4, DType::f32, RedOp::sum, 0}, in.data(), out.data(), {});
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r) return "all_reduce without a peer succeeded";
    const std::string& m = r.error().message;
    std::string errs;
    for (const char* want : {"all_reduce", "rank 0", "timed out", "aborted"})
      if (m.find(want) == std::string::npos) errs += std::string("message lacks '") + want + "': " + m + "\n";
    if (s > 5) errs += "took " + std::to_string(s) + " s to give up\n";
    auto again = comm.run({Op::all_reduce, 2, 4, DType::f32, RedOp::sum, 0}, in.data(), out.data(), {});
    if (again || again.error().message.find("aborted earlier") == std::string::npos)
      errs += "a run after the abort did not refuse\n";
    return errs;
  }, o);
  EXPECT_TRUE(failures.empty()) << joined(failures);
}

}  // namespace
}  // namespace collviz

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // Probe in a child so this process never creates a CUDA context.
  const auto probe = collviz::testdata::probeInChild();
  if (!probe.value("available", false)) {
    std::printf("SKIPPED: no usable GPU for NCCL: %s\n", probe.value("reason", std::string("?")).c_str());
    return 77;
  }
  collviz::g_gpus = probe.value("gpus", 0);
  collviz::g_version = probe.value("version_code", 0);
  std::printf("NCCL %s on %s\n", probe.value("version", std::string()).c_str(),
              probe.value("devices", std::string()).c_str());
  return RUN_ALL_TESTS();
}
