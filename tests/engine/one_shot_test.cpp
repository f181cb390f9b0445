// A one-shot run (Request::last, `collviz run`): its memory is filled while
// the ranks start (the inputs written, the outputs poisoned), and its ranks
// are let go as soon as their bytes are in, ending while the engine checks
// them. The bytes are re-checked here element by element
// (engine_test_support.h), so inputs written wrong or late cannot pass.
#include "tests/engine/engine_test_support.h"

namespace collviz::test {
namespace {

std::shared_ptr<const Snapshot> runLast(Engine& e, const OpSpec& s, bool last,
                                        Program p = Program::single) {
  Request r;
  r.spec = s;
  r.program = p;
  r.backend = BackendKind::gloo;
  r.keep_values = -1;
  r.last = last;
  const uint64_t id = e.submit(r);
  auto snap = e.waitFor(id, 60s);
  return snap && snap->request == id ? snap : nullptr;
}

// Ended, or exited and not yet reaped by the engine (its children).
bool ended(pid_t pid) { return gone(pid) || procState(pid) == 'Z'; }

TEST(OneShot, TheRanksEndWhileTheEngineChecksAndANextRequestStartsAFreshGroup) {
  Engine engine;
  // 1 MiB a rank: the memory is made of huge pages, the inputs written on
  // the thread that made it.
  const OpSpec s = makeSpec(Op::all_reduce, 4, int64_t(1) << 16);
  auto first = runLast(engine, s, true);
  ASSERT_TRUE(first && first->error.empty()) << (first ? first->error : "no snapshot");
  checkSingle(*first, s);
  const auto pids = engine.workerPids();
  ASSERT_EQ(pids.size(), 4u);
  // The engine has not been destroyed: only the release ended them.
  for (pid_t pid : pids)
    EXPECT_TRUE(waitUntilTrue([&] { return ended(pid); }, std::chrono::milliseconds(20000)))
        << "rank pid " << pid << " still runs after a last request (state " << procState(pid) << ")";
  // The group is spent: the next request, last or not, starts another.
  const OpSpec g = makeSpec(Op::all_gather, 4, 5, DType::i32);
  auto second = runLast(engine, g, false);
  ASSERT_TRUE(second && second->error.empty()) << (second ? second->error : "no snapshot");
  checkSingle(*second, g);
  for (pid_t pid : engine.workerPids()) EXPECT_EQ(std::count(pids.begin(), pids.end(), pid), 0);
}

// The decomposition runs three ops on one group: `last` lets nobody go
// early, and every step checks.
TEST(OneShot, TheDecompositionKeepsItsRanksToTheEnd) {
  Engine engine;
  const OpSpec s = makeSpec(Op::reduce_scatter, 4, 8);
  auto snap = runLast(engine, s, true, Program::all_reduce_decomposed);
  ASSERT_TRUE(snap && snap->error.empty()) << (snap ? snap->error : "no snapshot");
  EXPECT_TRUE(snap->verified);
  ASSERT_EQ(snap->steps.size(), 2u);
  EXPECT_TRUE(snap->all_reduce_compared);
  EXPECT_EQ(snap->all_reduce_diffs, 0);
}

}  // namespace
}  // namespace collviz::test
