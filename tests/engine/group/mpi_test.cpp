// The MPI backend (Open MPI, engine/worker/mpi_*) through a real Engine:
// every op with MPI's own call for N in {1, 2, 3, 4, 8} and several dtypes
// (f16/bf16 through user-defined ops) and reduce ops, each snapshot
// re-checked here (engine_test_support.h); every algorithm's rounds on
// MPI_Isend/MPI_Irecv, each round against the reference and the output
// against MPI's own op; faults (COLLVIZ_FAULT) caught; a killed or stopped
// rank named within the deadline, the next request on a new job, and no
// mpirun, orted or rank left behind. Skipped, with the reason, where MPI is
// unavailable (no Open MPI, or built without it).
#include <dirent.h>
#include <gmock/gmock.h>
#include <sched.h>
#include <signal.h>

#include <fstream>
#include <thread>

#include "engine/collectives.h"
#include "engine/group/mpi_launch.h"
#include "engine/worker/op_binding.h"
#include "tests/engine/algo/algo_run_check.h"
#include "tests/engine/engine_test_support.h"
#include "tests/engine/group/mpi_processes.h"

namespace collviz::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::vector<pid_t> leftOver() { return mpiLeftOver(); }

#define SKIP_WITHOUT_MPI(engine)                                                      \
  do {                                                                                \
    const BackendStatus* st = (engine).devices().find(BackendKind::mpi);              \
    if (!st || !st->available)                                                        \
      GTEST_SKIP() << "MPI unavailable: " << (st ? st->reason : "not in the probe");  \
  } while (0)

struct Case {
  DType t;
  RedOp r;
};

// Reducing ops: each dtype once, with every reduce op among them (f16 and
// bf16 through the user-defined ops, avg as sum then divide).
std::vector<Case> casesFor(Op op) {
  if (!reduces(op)) return {{DType::f32, RedOp::sum}, {DType::bf16, RedOp::sum}, {DType::u8, RedOp::sum}};
  return {{DType::f32, RedOp::sum}, {DType::f16, RedOp::max}, {DType::bf16, RedOp::sum},
          {DType::i32, RedOp::prod}, {DType::f64, RedOp::avg}, {DType::u8, RedOp::min},
          {DType::bf16, RedOp::avg}, {DType::i64, RedOp::sum}};
}

class MpiBackendOps : public ::testing::TestWithParam<int> {};

TEST_P(MpiBackendOps, EveryOpVerifiesOnMpisOwnCalls) {
  const int n = GetParam();
  {
    Engine engine;
    SKIP_WITHOUT_MPI(engine);
    int ran = 0;
    for (const Collective& c : kCollectives)
      for (const Case& k : casesFor(c.op)) {
        const OpSpec s = makeSpec(c.op, n, 5, k.t, k.r, c.uses_root ? n - 1 : 0);
        auto snap = runAndWait(engine, s, Program::single, 60s, BackendKind::mpi);
        ASSERT_TRUE(snap) << describe(s) << ": no snapshot";
        checkSingle(*snap, s, "mpi");
        ASSERT_FALSE(HasFatalFailure());
        ++ran;
      }
    // A larger E: the pattern goes to "contributors mod K" at f16 and must still verify.
    const OpSpec big = makeSpec(Op::all_reduce, n, 1000, DType::f16);
    auto snap = runAndWait(engine, big, Program::single, 60s, BackendKind::mpi);
    ASSERT_TRUE(snap);
    checkSingle(*snap, big, "mpi");
    EXPECT_THAT(snap->backend.notes, HasSubstr("user-defined ops"));
    EXPECT_THAT(snap->backend.notes, HasSubstr("MPI_SUM and divides by N"));
    EXPECT_GE(ran, 8 * 3);
    // One job for every op of this N.
    EXPECT_EQ(engine.workerPids().size(), std::size_t(n));
  }
  EXPECT_THAT(leftOver(), ::testing::IsEmpty()) << "MPI processes left after the engine ended";
}
INSTANTIATE_TEST_SUITE_P(Ranks, MpiBackendOps, ::testing::Values(1, 2, 3, 4, 8));

// From 1 MiB (all ranks' blocks) every op runs on the ranks' private pages
// and its output is copied back: a copy missing, or an average divided
// after it, leaves the checked output poisoned or undivided. Each rank's
// copy time says the private pages were used.
TEST(MpiBackendOps, EveryOpOfAMiBAndMoreVerifiesOnPrivatePages) {
  Engine engine;
  SKIP_WITHOUT_MPI(engine);
  const int n = 4;
  const std::vector<Case> reducing = {{DType::f32, RedOp::sum}, {DType::f64, RedOp::avg},
                                      {DType::f16, RedOp::max}, {DType::i32, RedOp::prod}};
  for (const Collective& c : kCollectives)
    for (const Case& k : reduces(c.op) ? reducing : std::vector<Case>{{DType::f32, RedOp::sum}}) {
      const std::int64_t elems = 70001;  // 4 ranks x 70001 x 4 B > 1 MiB (f16: twice the elements)
      const OpSpec s = makeSpec(c.op, n, k.t == DType::f16 ? 2 * elems : elems, k.t, k.r, c.uses_root ? 2 : 0);
      auto snap = runAndWait(engine, s, Program::single, 60s, BackendKind::mpi);
      ASSERT_TRUE(snap) << describe(s) << ": no snapshot";
      checkSingle(*snap, s, "mpi");
      ASSERT_FALSE(HasFatalFailure());
      double copied = 0;
      for (const auto& r : snap->steps.front().ranks) copied += r.copy_us;
      EXPECT_GT(copied, 0) << describe(s) << ": no rank copied to or from private pages";
    }
}

TEST(MpiBackendOps, DecomposedEqualsAllReduce) {
  Engine engine;
  SKIP_WITHOUT_MPI(engine);
  const OpSpec s = makeSpec(Op::all_reduce, 4, 3, DType::bf16);
  auto snap = runAndWait(engine, s, Program::all_reduce_decomposed, 60s, BackendKind::mpi);
  ASSERT_TRUE(snap && snap->error.empty()) << (snap ? snap->error : "no snapshot");
  EXPECT_TRUE(snap->verified);
  EXPECT_EQ(snap->all_reduce_diffs, 0);
}

// Every algorithm of the table on every op it serves, rounds on MPI.
class MpiBackendRounds : public ::testing::TestWithParam<int> {};

TEST_P(MpiBackendRounds, EveryAlgorithmMatchesTheReferenceAndMpisOwnOp) {
  const int n = GetParam();
  Engine engine;
  SKIP_WITHOUT_MPI(engine);
  int runs = 0;
  for (const Case& c : std::vector<Case>{{DType::f32, RedOp::sum}, {DType::bf16, RedOp::max},
                                         {DType::f64, RedOp::avg}})
    for (const algo::Algorithm& a : algo::algorithms()) {
      if (!a.build) continue;
      for (Op op : a.ops) {
        if (!reduces(op) && c.r != RedOp::sum) continue;
        const OpSpec s = makeSpec(op, n, 3, c.t, c.r, usesRoot(op) ? n - 1 : 0);
        auto snap = runAlgo(engine, s, std::string(a.name), true, BackendKind::mpi);
        ASSERT_TRUE(snap) << a.name << " " << describe(s) << ": no answer";
        ASSERT_EQ(snap->backend.name, "mpi") << snap->error;
        checkRun(*snap, s, std::string(a.name));
        ++runs;
        if (HasFatalFailure()) return;
      }
    }
  EXPECT_GT(runs, 10);
}
INSTANTIATE_TEST_SUITE_P(Ranks, MpiBackendRounds, ::testing::Values(1, 3, 4, 8));

std::shared_ptr<const Snapshot> runWith(Engine& e, const OpSpec& s, const std::string& fault) {
  Request r;
  r.spec = s;
  r.backend = BackendKind::mpi;
  r.fault = fault;
  const uint64_t id = e.submit(r);
  auto snap = e.waitFor(id, 60s);
  return snap && snap->request == id ? snap : nullptr;
}

TEST(MpiFaults, EveryWrongResultIsCaught) {
  Engine engine;
  SKIP_WITHOUT_MPI(engine);
  const OpSpec s = makeSpec(Op::all_reduce, 4, 4);
  for (const char* fault : {"skip", "corrupt", "swap", "rank:2,corrupt", "skip_after_first"}) {
    SCOPED_TRACE(fault);
    auto snap = runWith(engine, s, fault);
    ASSERT_TRUE(snap && snap->error.empty()) << (snap ? snap->error : "no snapshot");
    EXPECT_FALSE(snap->verified);
    EXPECT_GT(snap->steps[0].verify.wrong, 0);
  }
  auto good = runWith(engine, s, "");
  ASSERT_TRUE(good);
  EXPECT_TRUE(good->verified) << good->error;
}

EngineOptions shortDeadline() {
  EngineOptions o;
  o.deadline = 1000ms;
  return o;
}

TEST(MpiFaults, AKilledRankIsNamedAndTheNextRequestStartsANewJob) {
  {
    Engine engine(shortDeadline());
    SKIP_WITHOUT_MPI(engine);
    const OpSpec s = makeSpec(Op::all_reduce, 4, 4);
    auto first = runWith(engine, s, "");
    ASSERT_TRUE(first && first->verified) << (first ? first->error : "no snapshot");
    const auto pids = engine.workerPids();
    ASSERT_EQ(pids.size(), 4u);
    ASSERT_EQ(::kill(pids[2], SIGKILL), 0);
    const auto t0 = std::chrono::steady_clock::now();
    auto failed = runWith(engine, s, "");
    const auto took = std::chrono::steady_clock::now() - t0;
    ASSERT_TRUE(failed);
    EXPECT_FALSE(failed->verified);
    EXPECT_THAT(failed->error, HasSubstr("rank 2 (pid " + std::to_string(pids[2]) + ")"));
    EXPECT_THAT(failed->error, HasSubstr("signal 9"));
    EXPECT_LT(took, 5s) << "named only after " << std::chrono::duration<double>(took).count() << " s";
    for (pid_t p : pids) EXPECT_TRUE(gone(p) || procState(p) == 'Z') << "rank pid " << p;
    auto again = runWith(engine, s, "");
    ASSERT_TRUE(again);
    EXPECT_TRUE(again->verified) << again->error;
    const auto fresh = engine.workerPids();
    ASSERT_EQ(fresh.size(), 4u);
    EXPECT_NE(fresh[2], pids[2]);
  }
  EXPECT_THAT(leftOver(), ::testing::IsEmpty());
}

// N = 2 on 2 cores is not oversubscribed, so Open MPI's waiting rank polls
// flat out: the stopped rank is the silent one that used no CPU.
TEST(MpiFaults, AStoppedRankIsNamedAsHungWithinTheDeadline) {
  {
    Engine engine(shortDeadline());
    SKIP_WITHOUT_MPI(engine);
    const OpSpec s = makeSpec(Op::all_reduce, 2, 4);
    auto first = runWith(engine, s, "");
    ASSERT_TRUE(first && first->verified) << (first ? first->error : "no snapshot");
    const auto pids = engine.workerPids();
    ASSERT_EQ(::kill(pids[1], SIGSTOP), 0);
    const auto t0 = std::chrono::steady_clock::now();
    auto failed = runWith(engine, s, "");
    const auto took = std::chrono::steady_clock::now() - t0;
    ASSERT_TRUE(failed);
    EXPECT_THAT(failed->error, HasSubstr("rank(s) 1 did not finish"));
    EXPECT_THAT(failed->error, HasSubstr("process stopped"));
    EXPECT_LT(took, 6s);
    auto again = runWith(engine, s, "");
    ASSERT_TRUE(again);
    EXPECT_TRUE(again->verified) << again->error;
  }
  EXPECT_THAT(leftOver(), ::testing::IsEmpty());
}

TEST(MpiFaults, AnAsleepRankIsHungAndABusyOneSlow) {
  Engine engine(shortDeadline());
  SKIP_WITHOUT_MPI(engine);
  const OpSpec s = makeSpec(Op::all_reduce, 3, 4);
  auto hung = runWith(engine, s, "rank:1,delay_ms:4000");
  ASSERT_TRUE(hung);
  EXPECT_THAT(hung->error, HasSubstr("rank(s) 1 did not finish"));
  EXPECT_THAT(hung->error, HasSubstr("hung"));
  auto slow = runWith(engine, s, "rank:2,busy_ms:4000");
  ASSERT_TRUE(slow);
  EXPECT_THAT(slow->error, HasSubstr("rank(s) 2 still working"));
  EXPECT_THAT(slow->error, HasSubstr("--deadline-ms"));
  auto good = runWith(engine, s, "");
  ASSERT_TRUE(good);
  EXPECT_TRUE(good->verified) << good->error;
}

// Without mpirun (or without the module) MPI is unavailable with the
// reason, and Gloo runs on.
TEST(MpiUnavailable, SaysWhyAndGlooRunsOn) {
  for (auto [var, value, why] :
       {std::tuple{"COLLVIZ_MPIRUN", "/nonexistent/mpirun", "is not an executable file"},
        std::tuple{"COLLVIZ_MPI_MODULE", "/nonexistent/libcollviz-mpi.so",
                   "cannot load the MPI module /nonexistent/libcollviz-mpi.so"}}) {
    SCOPED_TRACE(var);
    ::setenv(var, value, 1);
    {
      Engine engine;
      const BackendStatus* st = engine.devices().find(BackendKind::mpi);
      ASSERT_TRUE(st);
      EXPECT_FALSE(st->available);
      EXPECT_THAT(st->reason, HasSubstr(why));
      auto mpi = runWith(engine, makeSpec(Op::all_reduce, 2, 4), "");
      ASSERT_TRUE(mpi);
      EXPECT_THAT(mpi->error, HasSubstr("backend mpi is unavailable"));
      auto gloo = runAndWait(engine, makeSpec(Op::all_reduce, 2, 4));
      ASSERT_TRUE(gloo);
      EXPECT_TRUE(gloo->verified) << gloo->error;
    }
    ::unsetenv(var);
  }
}

TEST(MpiLaunch, MpirunIsToldToOversubscribeAndRootIsAllowedOnlyAsRoot) {
  const auto a = mpirunArgs("/usr/bin/mpirun", 8, {"collviz-rank", "--backend", "mpi"});
  EXPECT_THAT(a, ::testing::Contains("--oversubscribe"));
  EXPECT_THAT(a, ::testing::Contains("8"));
  EXPECT_EQ(a.back(), "mpi");
  EXPECT_THAT(mpirunEnv(true), ::testing::Contains("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"));
  EXPECT_THAT(mpirunEnv(false), ::testing::IsEmpty());
  auto d = parseMpiDeath("mpirun noticed that process rank 3 with PID 4242 on node box exited "
                         "on\nsignal 9 (Killed).");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->rank, 3);
  EXPECT_EQ(d->pid, 4242);
  EXPECT_FALSE(parseMpiDeath("all fine"));
}

// COLLVIZ_MPI_BIND: unset, collviz's default (mpirun binds nothing, the
// ranks bind themselves op by op); "none" unbinds; a binding Open MPI knows,
// allowed on more ranks than cores; anything else refused with what is
// allowed.
TEST(MpiLaunch, TheRanksBindThemselvesUnlessToldOtherwiseAndABadBindingIsNamed) {
  EXPECT_EQ(*mpiBinding(nullptr), "none");
  EXPECT_EQ(*mpiBinding(""), kDefaultMpiBinding);
  EXPECT_TRUE(mpiBindsPerOp(nullptr));
  EXPECT_TRUE(mpiBindsPerOp(""));
  EXPECT_FALSE(mpiBindsPerOp("none"));
  EXPECT_FALSE(mpiBindsPerOp("core"));
  EXPECT_EQ(*mpiBinding("none"), "none");
  EXPECT_EQ(*mpiBinding("core"), "core:overload-allowed");
  EXPECT_EQ(*mpiBinding("socket"), "socket:overload-allowed");
  auto bad = mpiBinding("cores;rm");
  ASSERT_FALSE(bad);
  EXPECT_THAT(bad.error().message, HasSubstr("COLLVIZ_MPI_BIND='cores;rm' is not a binding; allowed: none, core"));
  const auto a = mpirunArgs("/usr/bin/mpirun", 4, {"collviz-rank"}, "core:overload-allowed");
  const auto at = std::find(a.begin(), a.end(), "--bind-to");
  ASSERT_NE(at, a.end());
  EXPECT_EQ(*(at + 1), "core:overload-allowed");
  const auto plain = mpirunArgs("/usr/bin/mpirun", 4, {"collviz-rank"});
  EXPECT_EQ(*(std::find(plain.begin(), plain.end(), "--bind-to") + 1), "none");
}

// The placement op by op, on made-up machines: more ranks than cores, a
// core each for the ops where every rank works at once, broadcast's chain
// from the root in runs of neighbours, every CPU for the other rooted ones;
// no more ranks than cores, a core each always; the CPUs of a core (SMT
// siblings) together; a CPU list as the kernel writes it; no CPU known: an
// error, nothing bound.
TEST(OpBinding, ACoreEachWhereEveryRankWorksTheChainFromTheRootForBroadcastEveryCoreOtherwise) {
  EXPECT_EQ(parseCpuList("0-3,8,10-11\n"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(parseCpuList("5"), (std::vector<int>{5}));
  EXPECT_TRUE(parseCpuList("").empty());
  EXPECT_TRUE(parseCpuList("3-1").empty());
  EXPECT_TRUE(parseCpuList("a,b").empty());
  EXPECT_TRUE(parseCpuList("1,,2").empty());
  // 2 cores, 4 ranks: rank r on core r mod 2; broadcast: the chain from
  // the root in pairs (root 0: ranks 0,1 on core 0, 2,3 on core 1; root 1:
  // 1,2 then 3,0).
  const std::vector<int> chain_root0 = {0, 0, 1, 1}, chain_root1 = {1, 0, 0, 1};
  for (int r = 0; r < 4; ++r) {
    const OpBinding b({0, 1}, {0, 1}, r, 4);
    EXPECT_EQ(b.cores(), 2);
    EXPECT_FALSE(b.ownCoreAlways());
    EXPECT_TRUE(b.error().empty());
    for (Op op : {Op::all_reduce, Op::all_gather, Op::reduce_scatter, Op::all_to_all})
      EXPECT_EQ(b.cpusFor(op), (std::vector<int>{r % 2})) << name(op) << " rank " << r;
    EXPECT_EQ(b.cpusFor(Op::broadcast, 0), (std::vector<int>{chain_root0[std::size_t(r)]})) << r;
    EXPECT_EQ(b.cpusFor(Op::broadcast, 1), (std::vector<int>{chain_root1[std::size_t(r)]})) << r;
    for (Op op : {Op::reduce, Op::gather, Op::scatter})
      EXPECT_EQ(b.cpusFor(op), (std::vector<int>{0, 1})) << name(op) << " rank " << r;
  }
  // 4 CPUs in 2 cores (SMT: 0,2 and 1,3), 3 ranks: a core's two CPUs.
  const OpBinding smt({0, 1, 2, 3}, {0, 1, 0, 1}, 2, 3);
  EXPECT_EQ(smt.cores(), 2);
  EXPECT_EQ(smt.cpusFor(Op::all_gather), (std::vector<int>{0, 2}));
  EXPECT_EQ(smt.cpusFor(Op::broadcast, 0), (std::vector<int>{1, 3}));  // place 2 of 3: the second core
  EXPECT_EQ(smt.cpusFor(Op::broadcast, 2), (std::vector<int>{0, 2}));  // the root: the first
  EXPECT_EQ(smt.cpusFor(Op::reduce), (std::vector<int>{0, 1, 2, 3}));
  // 8 cores, 4 ranks: each its own core, for every op.
  const OpBinding roomy({0, 1, 2, 3, 4, 5, 6, 7}, {0, 1, 2, 3, 4, 5, 6, 7}, 3, 4);
  EXPECT_TRUE(roomy.ownCoreAlways());
  EXPECT_EQ(roomy.cpusFor(Op::broadcast), (std::vector<int>{3}));
  EXPECT_EQ(roomy.cpusFor(Op::all_reduce), (std::vector<int>{3}));
  // Nothing known of the CPUs: nothing bound.
  const OpBinding unknown({}, {}, 0, 4);
  EXPECT_TRUE(unknown.cpusFor(Op::all_reduce).empty());
  EXPECT_EQ(unknown.cores(), 0);
  EXPECT_NE(unknown.error().find("no CPU"), std::string::npos) << unknown.error();
  EXPECT_TRUE(smt.error().empty());
}

// The CPUs each of the engine's ranks may run on, in rank order.
std::vector<std::vector<int>> rankCpus(Engine& engine) {
  std::vector<std::vector<int>> out;
  for (pid_t pid : engine.workerPids()) {
    cpu_set_t set;
    CPU_ZERO(&set);
    EXPECT_EQ(::sched_getaffinity(pid, sizeof set, &set), 0) << pid;
    out.emplace_back();
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) out.back().push_back(c);
  }
  return out;
}

// With no COLLVIZ_MPI_BIND mpirun binds nothing and each rank binds itself
// op by op, and says so: all_reduce on one core each (rank r on core r mod
// cores), broadcast on the core of its place along the chain from the root,
// reduce free on every core where there are fewer cores than ranks (on a
// core each where there are enough); the user's "none" leaves the ranks
// free, "core" binds them for every op; a bad binding is the run's error.
TEST(MpiLaunch, AGroupBindsOpByOpUnlessTheUserSaysAndSaysHow) {
  cpu_set_t mine;  // what this test may run on: an unbound rank inherits it
  CPU_ZERO(&mine);
  ASSERT_EQ(::sched_getaffinity(0, sizeof mine, &mine), 0);
  const int cpus = CPU_COUNT(&mine);
  const int cores = OpBinding::ofThisProcess(0, 4).cores();
  for (const char* bind : {static_cast<const char*>(nullptr), "none", "core"}) {
    if (bind) ::setenv("COLLVIZ_MPI_BIND", bind, 1);
    else ::unsetenv("COLLVIZ_MPI_BIND");
    const std::string what = bind ? bind : "(unset)";
    Engine engine;
    SKIP_WITHOUT_MPI(engine);
    for (Op op : {Op::all_reduce, Op::broadcast, Op::reduce}) {
      OpSpec spec = makeSpec(op, 4, 8);
      spec.root = op == Op::broadcast ? 1 : 0;
      auto s = runAndWait(engine, spec, Program::single, 60s, BackendKind::mpi);
      ASSERT_TRUE(s);
      EXPECT_TRUE(s->verified) << what << ": " << s->error;
      const std::string want = bind && std::string(bind) == "core" ? "--bind-to core:overload-allowed" : "--bind-to none";
      EXPECT_THAT(std::string(s->backend.notes), HasSubstr(want)) << what;
      if (!bind)
        EXPECT_THAT(std::string(s->backend.notes),
                    HasSubstr(cores < 4 ? "each rank bound by collviz to one core for all_reduce"
                                        : "each rank bound by collviz to a core of its own"));
      else
        EXPECT_THAT(std::string(s->backend.notes), Not(HasSubstr("bound by collviz"))) << what;
      const std::vector<std::vector<int>> bound = rankCpus(engine);
      ASSERT_EQ(bound.size(), 4u) << what;
      // One core (1 CPU where cores have no siblings), or free on every CPU;
      // where there is only one CPU the two cannot be told apart.
      const bool free = (bind && std::string(bind) == "none") || (!bind && op == Op::reduce && cores < 4);
      if (cpus > 1) {
        for (std::size_t r = 0; r < bound.size(); ++r) {
          const int c = int(bound[r].size());
          if (free) EXPECT_EQ(c, cpus) << what << " " << name(op);
          else EXPECT_LT(c, cpus) << what << " " << name(op);
          // collviz's own placement: each rank where OpBinding puts it.
          if (!bind)
            EXPECT_EQ(bound[r], OpBinding::ofThisProcess(int(r), 4).cpusFor(op, spec.root))
                << name(op) << " rank " << r;
        }
      }
    }
  }
  ::setenv("COLLVIZ_MPI_BIND", "diagonal", 1);
  {
    Engine engine;
    auto s = runAndWait(engine, makeSpec(Op::all_reduce, 2, 8), Program::single, 60s, BackendKind::mpi);
    ASSERT_TRUE(s);
    EXPECT_THAT(std::string(s->error), HasSubstr("COLLVIZ_MPI_BIND='diagonal' is not a binding"));
  }
  ::unsetenv("COLLVIZ_MPI_BIND");
}

}  // namespace
}  // namespace collviz::test
