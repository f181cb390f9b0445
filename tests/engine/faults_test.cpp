// Faults: a killed worker and a hung (SIGSTOPped) worker are reported with
// their rank and the op; the group is torn down (no orphans, no memfds)
// and the next op works. The hung rank's error reads in Chinese too.
#include <gmock/gmock.h>
#include <sys/wait.h>

#include <regex>

#ifdef COLLVIZ_LANG
#include "app/lang/lang.h"
#endif

#include "tests/engine/engine_test_support.h"

namespace collviz::test {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;

void waitZombie(pid_t pid) {  // a killed child stays a zombie until the engine reaps it
  for (int i = 0; i < 400 && procState(pid) != 'Z' && procState(pid) != 0; ++i)
    std::this_thread::sleep_for(5ms);
}
void waitStopped(pid_t pid) {
  for (int i = 0; i < 400 && procState(pid) != 'T'; ++i) std::this_thread::sleep_for(5ms);
}

#ifdef COLLVIZ_LANG
// `said` in Chinese: the words given, and no Latin word but the kept names
// (an op, rank, ms): none of the engine's English is left. A rank's own
// error quoted after "first error" ends with the library's words (Gloo's
// exception text, which stays as it is), so the check stops there.
void expectChinese(const Said& said, const std::vector<std::string>& words) {
  setLanguage(Lang::zh);
  const std::string zh = render(said);
  setLanguage(Lang::en);
  EXPECT_EQ(render(said), std::string(said)) << "the English must stay the message's";
  for (const std::string& w : words) EXPECT_THAT(zh, HasSubstr(w));
  const std::string ours = zh.substr(0, zh.find("第一个错误"));
  static const std::regex kWord("[A-Za-z][A-Za-z_]*");
  for (auto it = std::sregex_iterator(ours.begin(), ours.end(), kWord); it != std::sregex_iterator(); ++it) {
    const std::string w = it->str();
    EXPECT_TRUE(w == "rank" || w == "ms" || w == "all_reduce") << "English \"" << w << "\" in: " << zh;
  }
}
#else
void expectChinese(const Said&, const std::vector<std::string>&) {}  // built without app/lang
#endif

class Faults : public ::testing::Test {
 protected:
  // The engine's shared memory is memfds (never in /dev/shm): count the
  // descriptors this process holds.
  void SetUp() override { ASSERT_EQ(memfdCount(), 0); }
  void TearDown() override {
    EXPECT_EQ(memfdCount(), 0) << "shared memory still mapped after the engine ended";
  }
  static void expectAllGone(const std::vector<pid_t>& pids) {
    for (pid_t p : pids) EXPECT_TRUE(gone(p)) << "worker " << p << " survived (state "
                                              << procState(p) << ")";
  }
};

TEST_F(Faults, KilledWorkerIsNamedAndTheNextOpWorks) {
  std::vector<pid_t> all;
  {
    Engine engine;
    const OpSpec s = makeSpec(Op::all_reduce, 4, 4);
    auto first = runAndWait(engine, s);
    ASSERT_TRUE(first && first->verified);
    const auto pids = engine.workerPids();
    ASSERT_EQ(pids.size(), 4u);
    EXPECT_EQ(memfdCount(), 4);
    all = pids;
    ASSERT_EQ(::kill(pids[2], SIGKILL), 0);
    waitZombie(pids[2]);
    auto snap = runAndWait(engine, s);
    ASSERT_TRUE(snap);
    EXPECT_THAT(snap->error, AllOf(HasSubstr("all_reduce"), HasSubstr("rank 2"),
                                   HasSubstr("signal 9")));
    EXPECT_FALSE(snap->verified);
    EXPECT_TRUE(snap->steps.empty());
    expectAllGone(pids);  // the whole group was torn down and reaped
    auto next = runAndWait(engine, s);
    ASSERT_TRUE(next);
    ASSERT_TRUE(next->error.empty()) << next->error;
    checkSingle(*next, s);
    const auto fresh = engine.workerPids();
    ASSERT_EQ(fresh.size(), 4u);
    for (pid_t p : fresh) EXPECT_TRUE(std::find(pids.begin(), pids.end(), p) == pids.end());
    EXPECT_EQ(memfdCount(), 4);  // the old group's memory is gone
    all.insert(all.end(), fresh.begin(), fresh.end());
  }
  expectAllGone(all);
}

// The killed rank is found when the next op needs more shared memory too
// (the engine then talks to the dead rank before any op starts).
TEST_F(Faults, KilledWorkerBeforeALargerOp) {
  Engine engine;
  auto first = runAndWait(engine, makeSpec(Op::all_gather, 3, 4));
  ASSERT_TRUE(first && first->verified);
  const auto pids = engine.workerPids();
  ASSERT_EQ(pids.size(), 3u);
  ::kill(pids[1], SIGKILL);
  waitZombie(pids[1]);
  const OpSpec big = makeSpec(Op::all_gather, 3, 100000);
  auto snap = runAndWait(engine, big);
  ASSERT_TRUE(snap);
  EXPECT_THAT(snap->error, AllOf(HasSubstr("rank 1"), HasSubstr("signal 9")));
  auto next = runAndWait(engine, big);
  ASSERT_TRUE(next);
  ASSERT_TRUE(next->error.empty()) << next->error;
  checkSingle(*next, big);
  expectAllGone(pids);
}

TEST_F(Faults, HungWorkerIsNamedWithinTheDeadline) {
  EngineOptions o;
  o.deadline = 1500ms;
  std::vector<pid_t> all;
  {
    Engine engine(o);
    const OpSpec s = makeSpec(Op::all_reduce, 4, 4);
    ASSERT_TRUE(runAndWait(engine, s)->verified);
    const auto pids = engine.workerPids();
    ASSERT_EQ(pids.size(), 4u);
    all = pids;
    ASSERT_EQ(::kill(pids[1], SIGSTOP), 0);
    waitStopped(pids[1]);
    const auto t0 = Clock::now();
    auto snap = runAndWait(engine, s, Program::single, 30s);
    const auto took = Clock::now() - t0;
    ASSERT_TRUE(snap);
    // A run is two calls (one untimed first, Request::warmup), but a rank
    // is judged by its progress: no progress for the deadline is a hang.
    EXPECT_THAT(snap->error, AllOf(HasSubstr("all_reduce"), HasSubstr("rank(s) 1 did not"),
                                   HasSubstr("1500 ms"), HasSubstr("hung")));
    expectChinese(snap->error, {"挂起", "rank 1 没有完成", "1500 ms"});
    EXPECT_TRUE(snap->steps.empty());
    EXPECT_GE(took, 1400ms);
    EXPECT_LE(took, 1500ms + 3s) << "hang reported too late";
    expectAllGone(pids);  // the stopped worker was killed and reaped too
    auto next = runAndWait(engine, s);
    ASSERT_TRUE(next);
    ASSERT_TRUE(next->error.empty()) << next->error;
    checkSingle(*next, s);
    const auto fresh = engine.workerPids();
    all.insert(all.end(), fresh.begin(), fresh.end());
  }
  expectAllGone(all);
}

// A hang while the group is idle: the engine's shutdown still ends it.
TEST_F(Faults, StoppedWorkerDoesNotOutliveTheEngine) {
  std::vector<pid_t> pids;
  {
    Engine engine;
    ASSERT_TRUE(runAndWait(engine, makeSpec(Op::broadcast, 3, 4))->verified);
    pids = engine.workerPids();
    ASSERT_EQ(pids.size(), 3u);
    ::kill(pids[0], SIGSTOP);
    waitStopped(pids[0]);
  }
  expectAllGone(pids);
}

// Shutdown while an op is blocked on a stopped rank: the destructor returns
// promptly (cancel) and ends every worker.
TEST_F(Faults, ShutdownDuringAHungOp) {
  std::vector<pid_t> pids;
  const auto t0 = Clock::now();
  {
    EngineOptions o;
    o.deadline = 30000ms;
    Engine engine(o);
    ASSERT_TRUE(runAndWait(engine, makeSpec(Op::all_to_all, 4, 4))->verified);
    pids = engine.workerPids();
    ::kill(pids[3], SIGSTOP);
    waitStopped(pids[3]);
    const uint64_t id = engine.run(makeSpec(Op::all_to_all, 4, 4), Program::single, BackendKind::gloo);
    ASSERT_TRUE(waitForOpPhase(engine, id)) << "the op never started";
    EXPECT_TRUE(engine.busy());
  }
  EXPECT_LE(Clock::now() - t0, 15s);
  expectAllGone(pids);
}

// Many crashes in a row: each is reported, nothing accumulates.
TEST_F(Faults, RepeatedCrashesLeaveNothingBehind) {
  Engine engine;
  std::vector<pid_t> all;
  const OpSpec s = makeSpec(Op::reduce_scatter, 2, 8, DType::i32);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(runAndWait(engine, s)->verified) << i;
    const auto pids = engine.workerPids();
    all.insert(all.end(), pids.begin(), pids.end());
    ::kill(pids[i % 2], SIGKILL);
    waitZombie(pids[i % 2]);
    auto bad = runAndWait(engine, s);
    ASSERT_TRUE(bad);
    EXPECT_THAT(bad->error, HasSubstr("rank " + std::to_string(i % 2)));
    EXPECT_LE(memfdCount(), 2);
  }
  ASSERT_TRUE(runAndWait(engine, s)->verified);
  expectAllGone(all);
}

}  // namespace
}  // namespace collviz::test
