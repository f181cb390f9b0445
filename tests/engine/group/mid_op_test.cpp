// A rank killed or stopped DURING an op (issue 39): the engine is inside its
// wait for the ranks' answers when it happens, on Gloo and on MPI, at N = 4
// and N = 8. A killed rank is named by its exit ("rank 2 (pid P) … signal 9")
// at once, from the end of its channel, never a live peer called hung a
// deadline later; a stopped rank is named as stopped; an MPI rank asleep
// before its op while its peers poll is hung, not slow. Each time the group is ended, no worker, mpirun or orted is left, and
// the next request runs verified on a fresh group.
#include <gmock/gmock.h>
#include <signal.h>

#include <atomic>
#include <thread>

#include "tests/engine/group/mpi_processes.h"

namespace collviz::test {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using Clock = std::chrono::steady_clock;

struct Case {
  BackendKind backend;
  int ranks;
};
std::string caseName(const ::testing::TestParamInfo<Case>& i) {
  return std::string(name(i.param.backend)) + "_N" + std::to_string(i.param.ranks);
}

class MidOp : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    EngineOptions o;
    o.deadline = 3000ms;
    engine_ = std::make_unique<Engine>(o);
    const BackendStatus* st = engine_->devices().find(GetParam().backend);
    if (!st || !st->available)
      GTEST_SKIP() << name(GetParam().backend) << " unavailable: " << (st ? st->reason : "not in the probe");
    spec_ = makeSpec(Op::all_reduce, GetParam().ranks, 1024);
    auto first = run(1);
    ASSERT_TRUE(first && first->verified) << (first ? first->error : "no snapshot");
    pids_ = engine_->workerPids();
    ASSERT_EQ(int(pids_.size()), GetParam().ranks);
  }
  void TearDown() override {
    engine_.reset();
    if (GetParam().backend == BackendKind::mpi) {
      std::vector<pid_t> left;
      waitUntilTrue([&] { return (left = mpiProcesses()).empty(); }, 5000ms);
      EXPECT_THAT(left, ::testing::IsEmpty()) << "mpirun, orted or ranks left";
    }
  }
  std::shared_ptr<const Snapshot> run(int iters) {
    Request r;
    r.spec = spec_;
    r.backend = GetParam().backend;
    r.iters = iters;
    const uint64_t id = engine_->submit(r);
    auto snap = engine_->waitFor(id, 60s);
    return snap && snap->request == id ? snap : nullptr;
  }
  // Submits a long request (100000 iterations) and returns once the engine
  // is waiting for the ranks' answers to it.
  uint64_t submitLongOp() {
    Request r;
    r.spec = spec_;
    r.backend = GetParam().backend;
    r.iters = 100000;
    const uint64_t id = engine_->submit(r);
    const bool in_op = waitUntilTrue(
        [&] {
          const Progress p = engine_->progress();
          return p.request == id && p.phase == Progress::Phase::op;
        },
        20000ms);
    EXPECT_TRUE(in_op) << "the request never reached its op";
    return id;
  }
  void expectGroupEndedAndNextRuns() {
    for (pid_t p : pids_) EXPECT_TRUE(gone(p) || procState(p) == 'Z') << "worker " << p << " left";
    auto again = run(1);
    ASSERT_TRUE(again);
    EXPECT_TRUE(again->verified) << again->error;
    for (pid_t p : engine_->workerPids())
      EXPECT_TRUE(std::find(pids_.begin(), pids_.end(), p) == pids_.end()) << "the broken group was kept";
  }

  std::unique_ptr<Engine> engine_;
  OpSpec spec_;
  std::vector<pid_t> pids_;
};

TEST_P(MidOp, AKilledRankIsNamedByItsExitAtOnce) {
  const uint64_t id = submitLongOp();
  const int victim = GetParam().ranks / 2;
  ASSERT_EQ(::kill(pids_[std::size_t(victim)], SIGKILL), 0);
  const auto t0 = Clock::now();
  auto snap = engine_->waitFor(id, 60s);
  const auto took = Clock::now() - t0;
  ASSERT_TRUE(snap && snap->request == id) << "no answer within 60 s";
  EXPECT_FALSE(snap->verified);
  EXPECT_THAT(snap->error,
              AllOf(HasSubstr("rank " + std::to_string(victim) + " (pid " +
                              std::to_string(pids_[std::size_t(victim)]) + ")"),
                    HasSubstr("signal 9"), Not(HasSubstr("hung"))));
  EXPECT_LT(took, 2s) << "named after " << std::chrono::duration<double>(took).count()
                      << " s (a deadline is 3 s): " << snap->error;
  std::printf("named after %.0f ms: %s\n", std::chrono::duration<double, std::milli>(took).count(),
              snap->error.c_str());
  expectGroupEndedAndNextRuns();
}

TEST_P(MidOp, AStoppedRankIsNamedAsStopped) {
  const uint64_t id = submitLongOp();
  const int victim = GetParam().ranks - 1;
  ASSERT_EQ(::kill(pids_[std::size_t(victim)], SIGSTOP), 0);
  const auto t0 = Clock::now();
  auto snap = engine_->waitFor(id, 60s);
  const auto took = Clock::now() - t0;
  ASSERT_TRUE(snap && snap->request == id) << "no answer within 60 s";
  EXPECT_FALSE(snap->verified);
  EXPECT_THAT(snap->error, AllOf(HasSubstr("rank(s) " + std::to_string(victim) + " did not finish"),
                                 HasSubstr("process stopped")));
  EXPECT_LT(took, 8s) << snap->error;
  std::printf("named after %.0f ms: %s\n", std::chrono::duration<double, std::milli>(took).count(),
              snap->error.c_str());
  expectGroupEndedAndNextRuns();
}

INSTANTIATE_TEST_SUITE_P(Backends, MidOp,
                         ::testing::Values(Case{BackendKind::gloo, 4}, Case{BackendKind::gloo, 8},
                                           Case{BackendKind::mpi, 4}, Case{BackendKind::mpi, 8}),
                         caseName);

// An MPI rank asleep before its op (COLLVIZ_FAULT late_ms) while its peers
// wait inside the collective: Open MPI's waiting ranks poll, so their CPU
// time grows all the while and says nothing of progress; the asleep rank is
// the hang, named alone, never "slow". N = 2 (one poller per core) and N = 8
// (seven pollers sharing 2 cores), each also with three threads of this
// test spinning beside them: the pollers yield the core at every turn, so
// on loaded cores each ran well under 1 % of the window (CI's run named all
// eight ranks hung); and N = 8 beside another engine's MPI group whose own
// late rank leaves one poller spinning flat out: there some of the seven ran
// under 1/8 of what the busiest did (named with rank 1 in 4 runs of 6 while
// progress was judged by CPU time alone; a poller stays runnable). Issue 39: with the polling-peer rule deleted, or
// progress judged by the group's summed CPU instead of each rank's, the
// pollers' CPU counted as the group working and this ended "slow, not hung"
// (the old version of this test slept after the op, when the peer had
// already answered, and caught neither).
struct Polling {
  int ranks;
  int busy;             // threads spinning in this process while the op waits
  bool beside = false;  // another engine's N = 2 group with a late rank at the same time
};

class MidOpMpiPolling : public ::testing::TestWithParam<Polling> {};

TEST_P(MidOpMpiPolling, ALateRankWhosePeersPollIsHungNotSlow) {
  const int n = GetParam().ranks;
  EngineOptions o;
  o.deadline = 1000ms;
  std::vector<pid_t> left;
  {
    Engine engine(o);
    const BackendStatus* st = engine.devices().find(BackendKind::mpi);
    if (!st || !st->available) GTEST_SKIP() << "MPI unavailable: " << (st ? st->reason : "not in the probe");
    std::atomic<bool> spin{true};
    std::vector<std::thread> busy;
    for (int i = 0; i < GetParam().busy; ++i)
      busy.emplace_back([&] {
        volatile unsigned long x = 0;
        while (spin.load(std::memory_order_relaxed)) x = x + 1;
      });
    Request r;
    r.spec = makeSpec(Op::all_reduce, n, 4);
    r.backend = BackendKind::mpi;
    r.fault = "rank:1,late_ms:20000";
    std::thread other;
    if (GetParam().beside)
      other = std::thread([o] {
        Engine e(o);
        Request q;
        q.spec = makeSpec(Op::all_reduce, 2, 4);
        q.backend = BackendKind::mpi;
        q.fault = "rank:1,late_ms:20000";
        e.waitFor(e.submit(q), 60s);
      });
    const auto t0 = Clock::now();
    const uint64_t id = engine.submit(r);
    auto snap = engine.waitFor(id, 60s);
    const auto took = Clock::now() - t0;
    spin = false;
    for (auto& t : busy) t.join();
    if (other.joinable()) other.join();
    ASSERT_TRUE(snap && snap->request == id);
    EXPECT_THAT(snap->error, AllOf(HasSubstr("rank(s) 1 did not finish"), HasSubstr("hung"),
                                   Not(HasSubstr("slow"))));
    EXPECT_LT(took, 15s) << "named only when the asleep rank woke: " << snap->error;
    std::printf("N=%d, %d busy threads: named after %.0f ms: %s\n", n, GetParam().busy,
                std::chrono::duration<double, std::milli>(took).count(), snap->error.c_str());
  }
  waitUntilTrue([&] { return (left = mpiProcesses()).empty(); }, 5000ms);
  EXPECT_THAT(left, ::testing::IsEmpty());
}

INSTANTIATE_TEST_SUITE_P(Ranks, MidOpMpiPolling,
                         ::testing::Values(Polling{2, 0}, Polling{8, 0}, Polling{2, 3}, Polling{8, 3},
                                           Polling{8, 0, true}),
                         [](const ::testing::TestParamInfo<Polling>& i) {
                           return "N" + std::to_string(i.param.ranks) + (i.param.busy ? "_loaded" : "") +
                                  (i.param.beside ? "_besideAnotherGroup" : "");
                         });

}  // namespace
}  // namespace collviz::test
