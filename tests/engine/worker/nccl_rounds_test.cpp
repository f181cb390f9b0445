// An algorithm's rounds on NCCL through a real Engine (ctest label `gpu`;
// `standin` on the stand-in CUDA runtime and NCCL, a test double):
// every algorithm of the algorithms table on every op it serves, N = 1 to 4
// (ranks beyond the GPUs share one through the NCCL_HOSTID route), for
// several dtypes and reduce ops. Every round's working buffers must decode to
// the symbolic reference, the output after the last round must verify and
// equal NCCL's own op on the same inputs byte for byte, and the bytes each
// rank moved must be the schedule's (tests/engine/algo/algo_run_check.h, the same
// checks as the Gloo tests). MSCCL files run the same way.
//
// Without a usable GPU the program prints the probe's reason and exits 77,
// which ctest reports as skipped (SKIP_RETURN_CODE), never as passed. This
// process never touches CUDA: the engine's workers (collviz-rank) do.
#include <gtest/gtest.h>

#include <cstdio>

#include "engine/algo/msccl/msccl.h"
#include "tests/engine/algo/algo_run_check.h"
#include "tests/engine/algo/msccl/msccl_fixtures.h"

namespace collviz::test {
namespace {

EngineOptions ncclOptions() {
  EngineOptions eo;
  eo.deadline = std::chrono::milliseconds(30000);  // shared-GPU groups join over sockets
  return eo;
}

struct Case {
  DType t;
  RedOp r;
  int64_t e;
};

// The cases whose output NCCL's own op gives bit for bit: sums of the
// provenance pattern are exact in every order, products of its powers of
// two too, min/max pick. avg only at powers of two: NCCL's ncclAvg of floats
// multiplies each input by 1/N before summing, which 1/3 does not keep
// exact, while the rounds divide the sum once (as Gloo does).
std::vector<Case> casesFor(int n) {
  std::vector<Case> v = {{DType::f32, RedOp::sum, 2}, {DType::i32, RedOp::max, 3},
                         {DType::f16, RedOp::prod, 2}, {DType::u8, RedOp::min, 3},
                         {DType::bf16, RedOp::sum, 3}, {DType::i64, RedOp::sum, 5}};
  if ((n & (n - 1)) == 0) v.push_back({DType::f64, RedOp::avg, 2});
  return v;
}

class NcclRounds : public ::testing::TestWithParam<int> {};

TEST_P(NcclRounds, EveryAlgorithmOpDTypeAndRedOpMatchesTheReferenceAndNative) {
  const int n = GetParam();
  Engine engine(ncclOptions());
  int runs = 0;
  for (const Case& c : casesFor(n))
    for (const algo::Algorithm& a : algo::algorithms()) {
      if (!a.build) continue;
      for (Op op : a.ops) {
        // Ops that only move data: the reduce op does not matter, one case per dtype.
        if (!reduces(op) && c.r != RedOp::sum && c.r != RedOp::max) continue;
        const OpSpec s = makeSpec(op, n, c.e, c.t, c.r, usesRoot(op) ? n - 1 : 0);
        auto snap = runAlgo(engine, s, std::string(a.name), true, BackendKind::nccl);
        ASSERT_TRUE(snap) << a.name << " " << describe(s) << ": no answer";
        ASSERT_EQ(snap->backend.name, "nccl") << snap->error;
        checkRun(*snap, s, std::string(a.name));
        ++runs;
        if (HasFatalFailure()) return;
      }
    }
  std::fprintf(stderr, "[N=%d] %d algorithm runs on NCCL, every round checked\n", n, runs);
}
INSTANTIATE_TEST_SUITE_P(Ranks, NcclRounds, ::testing::Values(1, 2, 3, 4));

// Every root of the rooted algorithms on a folded and a power-of-two N.
TEST(NcclRoundsRoots, EveryRoot) {
  Engine engine(ncclOptions());
  for (int n : {3, 4})
    for (int root = 0; root < n; ++root)
      for (auto [op, algo] : {std::pair{Op::broadcast, "ring"}, {Op::broadcast, "tree"},
                              {Op::reduce, "tree"}, {Op::scatter, "direct"},
                              {Op::gather, "direct"}}) {
        const OpSpec s = makeSpec(op, n, 2, DType::f32, RedOp::sum, root);
        auto snap = runAlgo(engine, s, algo, true, BackendKind::nccl);
        ASSERT_TRUE(snap);
        checkRun(*snap, s, algo);
      }
}

// MSCCL files on NCCL's ncclSend/ncclRecv: every good fixture, every round
// decoded and held against the reference the file gives, the output equal
// to NCCL's own op byte for byte, the bytes each rank sent the file's.
TEST(NcclRoundsMsccl, EveryGoodFixtureRunsVerifiedEveryRound) {
  Engine engine(ncclOptions());
  int runs = 0;
  for (const std::string& f : goodFixtures()) {
    SCOPED_TRACE(f);
    auto a = algo::readMscclFile(f);
    ASSERT_TRUE(a) << a.error().message;
    auto shared = std::make_shared<algo::MscclAlgo>(std::move(*a));
    const std::string name = algo::mscclAlgoName(*shared);
    algo::registerMscclFile(shared);
    for (auto [elems, t, op] : {std::tuple{2, DType::f32, RedOp::sum}, {3, DType::i32, RedOp::max},
                                {2, DType::f64, RedOp::avg}}) {
      OpSpec s = fixtureSpec(*shared, int64_t(elems) * shared->parts, t);
      s.redop = op;
      auto snap = runAlgo(engine, s, name, true, BackendKind::nccl);
      ASSERT_TRUE(snap) << "no answer";
      ASSERT_EQ(snap->backend.name, "nccl") << snap->error;
      checkRun(*snap, s, name);
      ASSERT_EQ(snap->bytes_sent.size(), std::size_t(s.ranks)) << snap->error;
      for (int r = 0; r < s.ranks; ++r)
        EXPECT_EQ(snap->bytes_sent[std::size_t(r)], fileBytesSent(*shared, r, s)) << "rank " << r;
      ++runs;
    }
  }
  std::fprintf(stderr, "%d MSCCL runs on NCCL, every round checked\n", runs);
}

// Back to back, as `collviz bench --algo` runs them: warm-up and timed
// repetitions of every round in one request, the output checked once, a
// time measured, the bytes of one repetition counted.
TEST(NcclRoundsBench, BackToBackRepetitionsVerifyAndAreTimed) {
  Engine engine(ncclOptions());
  for (auto [op, algo] : {std::pair{Op::all_reduce, "ring"}, {Op::all_reduce, "halving_doubling"},
                          {Op::all_to_all, "bruck"}, {Op::all_gather, "recursive_doubling"}})
    for (int64_t e : {int64_t(8), int64_t(1) << 18}) {
      const OpSpec s = makeSpec(op, 4, e);
      Request r;
      r.spec = s;
      r.backend = BackendKind::nccl;
      r.algo = algo;
      r.every_round = false;
      r.warmup = 2;
      r.iters = 5;
      auto snap = engine.waitFor(engine.submit(r), 120s);
      ASSERT_TRUE(snap);
      SCOPED_TRACE(std::string(algo) + " " + describe(s));
      ASSERT_TRUE(snap->error.empty()) << snap->error;
      ASSERT_EQ(snap->steps.size(), 1u);
      EXPECT_TRUE(snap->verified);
      EXPECT_GT(snap->time_us, 0.0);
      auto sch = algo::buildSchedule(algo, s);
      ASSERT_TRUE(sch);
      for (int k = 0; k < 4; ++k)
        EXPECT_EQ(snap->bytes_sent[std::size_t(k)], sch->bytesSent(k)) << "rank " << k;
    }
}

// A rank killed in the middle of a schedule: the error names the round; the
// next request starts a fresh NCCL group and runs.
TEST(NcclRoundsFaults, KilledMidScheduleNamesTheRoundAndTheNextRunWorks) {
  EngineOptions eo = ncclOptions();
  std::function<void(int)> hook;
  eo.on_round = [&hook](int round, int) { if (hook) hook(round); };
  Engine engine(eo);
  const OpSpec s = makeSpec(Op::all_reduce, 4, 2);
  ASSERT_TRUE(runAlgo(engine, s, "ring", true, BackendKind::nccl));
  const auto pids = engine.workerPids();
  ASSERT_EQ(pids.size(), 4u);
  hook = [&](int round) {
    if (round == 2) ::kill(pids[2], SIGKILL);
  };
  auto snap = runAlgo(engine, s, "ring", true, BackendKind::nccl);
  hook = nullptr;
  ASSERT_TRUE(snap);
  for (const char* want : {"round 3/6", "reduce-scatter 3/3", "rank 2", "signal 9"})
    EXPECT_NE(snap->error.find(want), std::string::npos) << want << " in: " << snap->error;
  EXPECT_FALSE(snap->verified);
  auto next = runAlgo(engine, s, "ring", true, BackendKind::nccl);
  ASSERT_TRUE(next);
  checkRun(*next, s, "ring");
}

}  // namespace
}  // namespace collviz::test

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // The engine probes collviz-rank in a child process.
  collviz::Engine probe;
  const collviz::BackendStatus* nccl = probe.devices().find(collviz::BackendKind::nccl);
  if (!nccl || !nccl->available) {
    std::printf("SKIPPED: no usable GPU for NCCL: %s\n",
                nccl ? nccl->reason.c_str() : "collviz-rank reports no NCCL backend");
    return 77;
  }
  std::printf("NCCL %s on %s\n", nccl->info.version.c_str(), nccl->info.devices.c_str());
  return RUN_ALL_TESTS();
}
