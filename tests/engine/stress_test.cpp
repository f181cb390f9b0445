// Stress: thousands of small ops from one thread while another reads
// latest() in a loop and checks every snapshot it sees is whole and
// consistent. Built and run under ThreadSanitizer in CI (label "tsan").
// COLLVIZ_STRESS_OPS scales it (default 2000; 600 under TSan).
#include <atomic>
#include <cstdlib>
#include <thread>

#include "tests/engine/engine_test_support.h"

namespace collviz::test {
namespace {

#if defined(__SANITIZE_THREAD__)
constexpr int kDefaultOps = 600;
#else
constexpr int kDefaultOps = 2000;
#endif

int opsToRun() {
  const char* env = std::getenv("COLLVIZ_STRESS_OPS");
  const int n = env ? std::atoi(env) : kDefaultOps;
  return n > 0 ? n : kDefaultOps;
}

// Problems found by the reader thread (checked by the main thread).
struct ReaderLog {
  std::atomic<int64_t> seen{0}, problems{0};
  std::string first;  // written by the reader only, read after join
  void fail(const std::string& why) {
    if (problems++ == 0) first = why;
  }
};

void checkWhole(const Snapshot& s, ReaderLog& log) {
  const std::string at = "seq " + std::to_string(s.seq) + ": ";
  if (s.request == 0) log.fail(at + "no request id");
  if (!s.error.empty()) {
    if (!s.steps.empty()) log.fail(at + "error with steps");
    return;
  }
  const std::size_t want_steps = s.program == Program::all_reduce_decomposed ? 2 : 1;
  if (s.steps.size() != want_steps) return log.fail(at + "wrong step count");
  if (!s.verified) log.fail(at + "not verified: " + s.steps[0].verify.first_problem);
  if (s.backend.name != "gloo") log.fail(at + "backend " + s.backend.name);
  for (const StepResult& st : s.steps) {
    const OpSpec& p = st.spec;
    if (p.ranks != s.spec.ranks || int(st.ranks.size()) != p.ranks)
      return log.fail(at + "rank count");
    for (int r = 0; r < p.ranks; ++r) {
      const RankResult& rr = st.ranks[r];
      const int ib = tableInBlocks(p.op, p.ranks, r, p.root);
      const int ob = tableOutBlocks(p.op, p.ranks, r, p.root);
      if (rr.input.present != (ib > 0) || rr.output.present != (ob > 0))
        return log.fail(at + "presence");
      if ((ib && int(rr.input.labels.size()) != ib) || (ob && int(rr.output.labels.size()) != ob))
        return log.fail(at + "labels count != blocks");
      if (rr.output.bytes.size() != std::size_t(ob) * p.elems * dtypeSize(p.dtype))
        return log.fail(at + "output size");
      for (const auto& l : rr.output.labels)
        if (l.bad || l.kind == BlockLabel::Kind::unknown) return log.fail(at + "bad label");
    }
  }
  // The bytes themselves, against the article's table (not the engine's
  // verification): a torn or stale snapshot shows here.
  if (s.program == Program::single)
    if (const std::string bad = firstTableMismatch(s.steps[0]); !bad.empty())
      log.fail(at + bad);
}

TEST(Stress, ThousandsOfOpsWhileReading) {
  const int total = opsToRun();
  Engine engine;
  ReaderLog log;
  std::atomic<bool> done{false};
  std::thread reader([&] {
    std::shared_ptr<const Snapshot> last;
    uint64_t last_request = 0;
    while (!done.load()) {
      auto s = engine.latest();
      if (s && s != last) {
        ++log.seen;
        if (last && s->seq <= last->seq)
          log.fail("seq went from " + std::to_string(last->seq) + " to " +
                   std::to_string(s->seq));
        if (s->request < last_request) log.fail("request ids went backwards");
        last_request = s->request;
        checkWhole(*s, log);
        last = s;
      }
      (void)engine.busy();
      if (engine.workerPids().size() > 8) log.fail("too many workers");
      std::this_thread::yield();
    }
  });

  const Op ops[] = {Op::broadcast, Op::scatter,        Op::gather,     Op::reduce,
                    Op::all_gather, Op::reduce_scatter, Op::all_reduce, Op::all_to_all};
  const DType types[] = {DType::f32, DType::i32, DType::f64, DType::u8};
  int answered = 0, dropped = 0;
  uint64_t last_seq = 0;
  for (int i = 0; i < total; ++i) {
    // N = 2, 3, 4 in thirds: three group starts in all.
    const int n = 2 + (3 * i) / total;
    OpSpec s = makeSpec(ops[i % 8], n, 4, types[(i / 8) % 4],
                        (i / 32) % 2 ? RedOp::max : RedOp::sum, i % n);
    const Program prog = i % 50 == 49 ? Program::all_reduce_decomposed : Program::single;
    if (prog == Program::all_reduce_decomposed) s.op = Op::all_reduce;
    if (i % 100 == 99) {
      // A burst: queued runs are replaced by the newest; only it must answer.
      std::vector<uint64_t> ids;
      for (int k = 0; k < 4; ++k) ids.push_back(engine.run(s, prog, BackendKind::gloo));
      auto snap = engine.waitFor(ids.back(), 60s);
      ASSERT_TRUE(snap) << "burst " << i;
      ASSERT_EQ(snap->request, ids.back());
      EXPECT_TRUE(snap->verified) << snap->error;
      dropped += 3;
      continue;
    }
    const uint64_t id = engine.run(s, prog, BackendKind::gloo);
    auto snap = engine.waitFor(id, 60s);
    ASSERT_TRUE(snap) << "op " << i << " " << describe(s);
    ASSERT_EQ(snap->request, id);
    ASSERT_TRUE(snap->error.empty()) << describe(s) << ": " << snap->error;
    EXPECT_TRUE(snap->verified) << describe(s);
    EXPECT_GT(snap->seq, last_seq);
    last_seq = snap->seq;
    ++answered;
  }
  done = true;
  reader.join();
  EXPECT_EQ(log.problems.load(), 0) << log.first;
  EXPECT_GT(log.seen.load(), 0);
  EXPECT_GE(answered, total * 9 / 10);
  // Every answered request got its own snapshot; dropped runs may or may
  // not have run, so seq is between the two counts.
  EXPECT_GE(last_seq, uint64_t(answered));
  EXPECT_LE(last_seq, uint64_t(total + dropped));
  std::printf("stress: %d ops (%d dropped in bursts), reader saw %lld snapshots\n", total,
              dropped, static_cast<long long>(log.seen.load()));
}

// Readers that outlive the engine keep their snapshots (immutable values).
TEST(Stress, SnapshotsOutliveTheEngine) {
  std::shared_ptr<const Snapshot> keep;
  {
    Engine engine;
    keep = runAndWait(engine, makeSpec(Op::all_to_all, 3, 4));
  }
  ASSERT_TRUE(keep);
  checkSingle(*keep, makeSpec(Op::all_to_all, 3, 4));
}

}  // namespace
}  // namespace collviz::test
