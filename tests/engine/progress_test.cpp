// Progress and cancel: the engine says which phase the request in flight is
// in, and Engine::cancel ends it whether it is queued, waiting on its ranks
// (they are killed and reaped) or checking; the next request works.
#include <gmock/gmock.h>

#include <set>

#include "tests/engine/engine_test_support.h"

namespace collviz::test {
namespace {

using Clock = std::chrono::steady_clock;

// Wait until `pred` holds, at most `limit`.
template <typename Pred>
bool eventually(Pred pred, std::chrono::milliseconds limit = 20s) {
  const auto end = Clock::now() + limit;
  while (Clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(5ms);
  }
  return pred();
}

Request slowRequest(int ranks = 3) {
  Request r;
  r.spec = makeSpec(Op::all_reduce, ranks, 1000);
  r.backend = BackendKind::gloo;
  r.fault = "delay_ms:20000";  // every call sleeps: the ranks are busy for a long time
  return r;
}

TEST(Progress, CancelWhileTheRanksRunEndsThemAtOnce) {
  EngineOptions o;
  o.deadline = 60s;  // the sleeping ranks must not be judged hung first
  Engine engine(o);
  EXPECT_EQ(engine.progress().request, 0u);
  // A quick run first: the group's pids are known once it is published.
  ASSERT_TRUE(runAndWait(engine, makeSpec(Op::all_reduce, 3, 4)));
  const std::vector<pid_t> pids = engine.workerPids();
  ASSERT_EQ(pids.size(), 3u);
  const uint64_t id = engine.submit(slowRequest());
  ASSERT_TRUE(eventually([&] {
    const Progress p = engine.progress();
    return p.request == id && p.phase == Progress::Phase::op;
  }));
  const auto t0 = Clock::now();
  EXPECT_TRUE(engine.cancel(id));
  auto snap = engine.waitFor(id, 10s);
  const auto took = Clock::now() - t0;
  ASSERT_TRUE(snap);
  EXPECT_EQ(snap->request, id);
  EXPECT_TRUE(snap->cancelled);
  EXPECT_EQ(snap->error, "cancelled");
  EXPECT_FALSE(snap->verified);
  EXPECT_LT(took, 3s);
  EXPECT_TRUE(eventually([&] { return engine.progress().request == 0; }, 5s));
  // No leftovers: the ranks were killed and reaped, none is a zombie.
  for (pid_t p : pids) EXPECT_TRUE(gone(p)) << "worker " << p << " state " << procState(p);
  EXPECT_FALSE(engine.cancel(id));  // answered already
  // The next request starts a fresh group and works.
  auto next = runAndWait(engine, makeSpec(Op::all_reduce, 3, 4));
  ASSERT_TRUE(next);
  EXPECT_TRUE(next->error.empty()) << next->error;
  EXPECT_TRUE(next->verified);
}

TEST(Progress, CancelAQueuedRequestAnswersIt) {
  EngineOptions o;
  o.deadline = 60s;
  Engine engine(o);
  const uint64_t slow = engine.submit(slowRequest());
  ASSERT_TRUE(eventually([&] { return engine.progress().request == slow; }));
  Request quick;
  quick.kind = Request::Kind::reconfigure;  // not a run: it does not replace the slow one
  quick.spec = makeSpec(Op::all_reduce, 3, 4);
  quick.backend = BackendKind::gloo;
  const uint64_t queued = engine.submit(quick);
  EXPECT_TRUE(engine.cancel(queued));
  EXPECT_TRUE(engine.cancel(slow));
  auto a = engine.waitFor(slow, 10s);
  ASSERT_TRUE(a);
  auto b = engine.waitFor(queued, 10s);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->request, queued);
  EXPECT_TRUE(b->cancelled);
  EXPECT_FALSE(engine.cancel(12345));  // never submitted
}

TEST(Progress, PhasesOfABigRunAndItsCheck) {
  Engine engine;
  Request r;
  r.spec = makeSpec(Op::all_reduce, 4, int64_t(1) << 21, DType::f32);  // 32 MiB per rank
  r.backend = BackendKind::gloo;
  const uint64_t id = engine.submit(r);
  std::set<Progress::Phase> seen;
  double last_verify = -1;
  bool verify_rose = true;
  while (!engine.waitFor(id, 1ms)) {
    const Progress p = engine.progress();
    if (p.request != id) continue;
    seen.insert(p.phase);
    if (p.phase == Progress::Phase::verify) {
      EXPECT_GE(p.fraction, 0.0);
      EXPECT_LE(p.fraction, 1.0);
      verify_rose = verify_rose && p.fraction >= last_verify;
      last_verify = p.fraction;
    }
  }
  EXPECT_TRUE(engine.waitFor(id, 1s)->verified);
  EXPECT_TRUE(seen.count(Progress::Phase::op)) << "the op phase was never seen";
  EXPECT_TRUE(seen.count(Progress::Phase::verify)) << "the verify phase was never reported";
  EXPECT_GE(last_verify, 0.0) << "no verify fraction was reported";
  EXPECT_TRUE(verify_rose);
}

// Cancel during the checks of a big run: the request ends early, the group
// stays (its ranks did nothing wrong: the fault only changes the bytes they
// return) and the next run reuses it. COLLVIZ_FAULT corrupt makes every
// block take the element-by-element path, so the checks last seconds and the
// cancel lands inside them: neither the phase nor the cancel can be missed.
TEST(Progress, CancelDuringTheChecksKeepsTheGroup) {
  Engine engine;
  Request r;
  r.spec = makeSpec(Op::all_reduce, 4, int64_t(1) << 22, DType::f32);  // 64 MiB per rank
  r.backend = BackendKind::gloo;
  r.fault = "corrupt";
  const uint64_t id = engine.submit(r);
  const bool checking = eventually([&] {
    const Progress p = engine.progress();
    return p.request == id && p.phase == Progress::Phase::verify;
  }, 60s);
  ASSERT_TRUE(checking) << "the verify phase of the request was never reported";
  engine.cancel(id);
  auto snap = engine.waitFor(id, 30s);
  ASSERT_TRUE(snap);
  ASSERT_TRUE(snap->cancelled) << "the checks ended before the cancel took effect: " << snap->error;
  EXPECT_EQ(snap->error, "cancelled");
  const std::vector<pid_t> pids = engine.workerPids();
  EXPECT_EQ(pids.size(), 4u);
  Request clean;
  clean.spec = makeSpec(Op::all_reduce, 4, 4);
  clean.backend = BackendKind::gloo;
  clean.fault = "";  // the fault off again, on the same workers
  auto next = engine.waitFor(engine.submit(clean), 60s);
  ASSERT_TRUE(next && next->verified) << (next ? next->error : "no snapshot");
  EXPECT_EQ(engine.workerPids(), pids);
}

}  // namespace
}  // namespace collviz::test
