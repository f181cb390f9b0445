// What a snapshot holds of big buffers (engine/verify/held_values.h): the ends of
// each block plus its overview, never a full copy unless asked; the inputs
// written straight from the closed form equal the pattern element by
// element; overviews read only where the extremes lie equal a full scan.
#include <random>

#include "tests/engine/engine_test_support.h"
#include "tests/engine/correct_step.h"
#include "engine/verify/held_values.h"
#include "engine/verify/overview.h"
#include "engine/verify/verify.h"
#include "engine/verify/verify_fast.h"

namespace collviz::test {
namespace {


TEST(HeldValues, InputsFromTheClosedFormAreThePattern) {
  int checked = 0;
  for (int t = 0; t < kDTypeCount; ++t)
    for (RedOp r : {RedOp::sum, RedOp::prod, RedOp::max})
      for (int n : {1, 3, 4, 8, 16})
        for (int64_t e : {int64_t(1), int64_t(7), int64_t(1000), int64_t(40000)}) {
          const OpSpec s = makeSpec(Op::all_reduce, n, e, DType(t), r);
          if (!validate(s)) continue;
          const Pattern p = choosePattern(s);
          for (int rank : {0, n - 1}) {
            std::vector<std::byte> fast(inputBytes(s, rank)), slow(inputBytes(s, rank));
            writeInputs(s, p, rank, fast.data());
            for (int b = 0; b < inputBlocks(s.op, n, rank, s.root); ++b)
              for (int64_t i = 0; i < e; ++i)
                writeElement(slow.data(), s.dtype, std::size_t(b * e + i),
                             patternValue(s, p, rank, b, i));
            ASSERT_EQ(fast, slow) << describe(s) << " rank " << rank << " (" << p.describe() << ")";
            ++checked;
          }
        }
  EXPECT_GT(checked, 100);
}

TEST(HeldValues, OverviewFromTheExtremesEqualsAFullScan) {
  for (int t = 0; t < kDTypeCount; ++t)
    for (int r = 0; r < kRedOpCount; ++r)
      for (int64_t e : {int64_t(65), int64_t(5000), int64_t(70001)}) {
        const OpSpec s = makeSpec(Op::all_reduce, 4, e, DType(t), RedOp(r));
        if (!validate(s)) continue;
        SCOPED_TRACE(describe(s));
        const Pattern p = choosePattern(s);
        StepResult step = correctStep(s, p);
        const Provenance prov = opProvenance(s);
        const StepBytes bytes = bytesOf(step);
        ClosedBlocks closed;
        ASSERT_TRUE(labelAndVerify(step, p, prov, bytes, {}, &closed));
        StepResult scanned = step;
        ASSERT_TRUE(addOverviews(step, p, prov, bytes, {}, &closed));
        ASSERT_TRUE(addOverviews(scanned, p, prov, bytes, {}, nullptr));
        for (int k = 0; k < s.ranks; ++k)
          for (BufferView RankResult::*side : {&RankResult::input, &RankResult::output}) {
            const BufferView &a = step.ranks[k].*side, &b = scanned.ranks[k].*side;
            ASSERT_EQ(a.overview.size(), b.overview.size());
            for (std::size_t j = 0; j < a.overview.size(); ++j) {
              EXPECT_EQ(a.overview[j].lo, b.overview[j].lo) << "rank " << k << " block " << j;
              EXPECT_EQ(a.overview[j].hi, b.overview[j].hi) << "rank " << k << " block " << j;
              EXPECT_EQ(a.overview[j].ok, b.overview[j].ok) << "rank " << k << " block " << j;
            }
          }
      }
}

TEST(HeldValues, EndsMapEveryIndex) {
  const int64_t e = 1000;
  std::vector<float> all(3 * e);
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = float(i);
  BufferView b;
  b.present = true;
  holdValues(b, reinterpret_cast<const std::byte*>(all.data()), all.size(), DType::f32, e, false);
  ASSERT_FALSE(b.whole());
  EXPECT_EQ(b.count(DType::f32), all.size());
  EXPECT_EQ(b.bytes.size(), 3 * std::size_t(kHeldHead + kHeldTail) * sizeof(float));
  for (std::size_t i = 0; i < all.size(); ++i) {
    const int64_t k = int64_t(i) % e;
    const bool held = k < kHeldHead || k >= e - kHeldTail;
    ASSERT_EQ(b.holds(i, DType::f32), held) << i;
    if (held) ASSERT_EQ(b.value(i, DType::f32), double(i)) << i;
    else ASSERT_TRUE(std::isnan(b.value(i, DType::f32))) << i;
  }
  // Small blocks, or asked for: every value.
  EXPECT_TRUE(holdsWhole(8 * 80, 80, 0));
  EXPECT_FALSE(holdsWhole(8 * 81, 81, 0));
  EXPECT_TRUE(holdsWhole(8 * 81, 81, 1000));
  EXPECT_TRUE(holdsWhole(std::size_t(1) << 30, int64_t(1) << 28, -1));
  // A summary of what is held never asks for more than the ends.
  const ValueLimit l = heldLimit(ValueLimit::all(), b);
  EXPECT_TRUE(summarised(l, b.count(DType::f32)));
  EXPECT_LE(l.edge, std::min(kHeldHead, kHeldTail));
}

// 16 MiB per rank through the engine: the snapshot holds, per block, the
// ends and a 64-bin overview, and nothing more; asked for, every value.
TEST(HeldValues, BigSnapshotHoldsEndsAndOverviewOnly) {
  Engine engine;
  const OpSpec s = makeSpec(Op::all_reduce, 4, int64_t(1) << 20, DType::f32);
  const Pattern p = choosePattern(s);
  Request r;
  r.spec = s;
  r.backend = BackendKind::gloo;
  auto snap = engine.waitFor(engine.submit(r), 120s);
  ASSERT_TRUE(snap);
  ASSERT_TRUE(snap->error.empty()) << snap->error;
  ASSERT_TRUE(snap->verified);
  std::size_t held = 0;
  for (const RankResult& rr : snap->steps[0].ranks)
    for (const BufferView* b : {&rr.input, &rr.output}) {
      ASSERT_FALSE(b->whole());
      EXPECT_EQ(b->count(s.dtype), std::size_t(s.ranks * s.elems));
      EXPECT_EQ(b->bytes.size(), std::size_t(s.ranks) * (kHeldHead + kHeldTail) * 4);
      ASSERT_EQ(b->overview.size(), std::size_t(s.ranks));
      for (const BlockOverview& o : b->overview) {
        EXPECT_EQ(o.bins(), kOverviewBins);
        EXPECT_EQ(o.elems, s.elems);
        for (uint8_t ok : o.ok) EXPECT_EQ(ok, 1);
      }
      held += b->bytes.capacity() + b->overview.size() * kOverviewBins * 9;
    }
  // A few tens of KiB for 128 MiB of buffers.
  EXPECT_LT(held, std::size_t(64) << 10);
  // The held values are the closed form's.
  const BufferView& out = snap->steps[0].ranks[2].output;
  const auto refs = expectedOutputRefs(s, 2);
  for (int j = 0; j < s.ranks; ++j) {
    const auto head = closedFormValues(s, p, refs[j], 0, kHeldHead);
    const auto tail = closedFormValues(s, p, refs[j], s.elems - kHeldTail, kHeldTail);
    for (int64_t i = 0; i < kHeldHead; ++i)
      ASSERT_EQ(out.value(std::size_t(j * s.elems + i), s.dtype), head[std::size_t(i)]);
    for (int64_t i = 0; i < kHeldTail; ++i)
      ASSERT_EQ(out.value(std::size_t(j * s.elems + s.elems - kHeldTail + i), s.dtype),
                tail[std::size_t(i)]);
  }

  r.keep_values = -1;
  auto whole = engine.waitFor(engine.submit(r), 120s);
  ASSERT_TRUE(whole && whole->error.empty());
  for (const RankResult& rr : whole->steps[0].ranks) {
    EXPECT_TRUE(rr.output.whole());
    EXPECT_EQ(rr.output.bytes.size(), outputBytes(s, rr.rank));
  }
  checkStep(whole->steps[0]);
}

// A big run with wrong elements on purpose: the engine, checking the
// workers' shared memory (and reading closed blocks only at their bins'
// extremes), gives the labels, counts, lines and overviews that checking a
// full copy of the same bytes gives, and only the bins holding a wrong
// element are marked.
TEST(HeldValues, BigRunWithPlantedFaultsChecksAsAFullCopy) {
  Engine engine;
  for (const char* fault : {"corrupt", "swap"}) {
    SCOPED_TRACE(fault);
    const OpSpec s = makeSpec(Op::all_reduce, 4, 300001, DType::f32);
    Request r;
    r.spec = s;
    r.backend = BackendKind::gloo;
    r.keep_values = -1;
    r.fault = fault;
    auto snap = engine.waitFor(engine.submit(r), 120s);
    ASSERT_TRUE(snap && snap->error.empty()) << (snap ? snap->error : "no snapshot");
    const StepResult& got = snap->steps[0];
    EXPECT_FALSE(got.verify.verified);
    StepResult copy = got;
    const Pattern p = choosePattern(s);
    labelAndVerify(copy, p, opProvenance(s));
    ASSERT_TRUE(addOverviews(copy, p, opProvenance(s), bytesOf(copy), {}, nullptr));
    EXPECT_EQ(got.verify.wrong, copy.verify.wrong);
    EXPECT_EQ(got.verify.mismatches, copy.verify.mismatches);
    EXPECT_EQ(got.verify.undecodable, copy.verify.undecodable);
    EXPECT_EQ(got.verify.unwritten, copy.verify.unwritten);
    EXPECT_EQ(got.verify.first_problem, copy.verify.first_problem);
    EXPECT_EQ(got.verify.bad_blocks, copy.verify.bad_blocks);
    int bad_bins = 0;
    for (int k = 0; k < s.ranks; ++k)
      for (BufferView RankResult::*side : {&RankResult::input, &RankResult::output}) {
        const BufferView &a = got.ranks[k].*side, &b = copy.ranks[k].*side;
        ASSERT_EQ(a.labels.size(), b.labels.size());
        for (std::size_t j = 0; j < a.labels.size(); ++j) {
          EXPECT_EQ(a.labels[j].text(s.redop), b.labels[j].text(s.redop)) << k << " " << j;
          EXPECT_EQ(a.labels[j].bad, b.labels[j].bad) << k << " " << j;
          EXPECT_EQ(a.labels[j].contributors, b.labels[j].contributors) << k << " " << j;
        }
        ASSERT_EQ(a.overview.size(), b.overview.size());
        for (std::size_t j = 0; j < a.overview.size(); ++j) {
          EXPECT_EQ(a.overview[j].lo, b.overview[j].lo);
          EXPECT_EQ(a.overview[j].hi, b.overview[j].hi);
          EXPECT_EQ(a.overview[j].ok, b.overview[j].ok);
          for (uint8_t ok : a.overview[j].ok) bad_bins += !ok;
        }
      }
    if (std::string(fault) == "corrupt") {
      EXPECT_EQ(got.verify.wrong, s.ranks);  // one element in each rank's output
      EXPECT_EQ(bad_bins, s.ranks);          // and only its bin is marked
    } else {
      EXPECT_GT(bad_bins, 0);
    }
  }
}

// The bytes fetchValues returns for a range of one buffer of `snap`,
// against the same range of `whole` (every value kept).
void expectFetched(const Engine& e, const Snapshot& snap, int step, int rank, BufferSide side,
                   const BufferView& whole, int64_t first, int64_t count) {
  const DType t = snap.steps[std::size_t(step)].spec.dtype;
  const std::size_t sz = dtypeSize(t);
  const FetchedValues f = e.fetchValues(snap.seq, step, rank, side, first, count);
  ASSERT_EQ(f.status, FetchedValues::Status::ok) << f.why;
  EXPECT_EQ(f.first, first);
  EXPECT_EQ(f.dtype, t);
  const std::size_t n = std::min<std::size_t>(std::size_t(count), whole.count(t) - std::size_t(first));
  ASSERT_EQ(f.bytes.size(), n * sz);
  EXPECT_TRUE(std::equal(f.bytes.begin(), f.bytes.end(), whole.bytes.begin() + first * sz))
      << "step " << step << " rank " << rank << " from " << first;
}

// fetchValues reads what the workers wrote, for any range, while the run is
// the newest; after a newer request it says stale.
TEST(FetchValues, ExactBytesOfAnyRangeThenStale) {
  Engine engine;
  const OpSpec s = makeSpec(Op::all_reduce, 4, 300001, DType::f32);
  Request r;
  r.spec = s;
  r.backend = BackendKind::gloo;
  r.keep_values = -1;  // the whole buffers to compare with
  // One element broken on purpose, so the bytes are not only the pattern's.
  r.fault = "corrupt";
  auto snap = engine.waitFor(engine.submit(r), 120s);
  ASSERT_TRUE(snap && snap->error.empty()) << (snap ? snap->error : "no snapshot");
  EXPECT_FALSE(snap->verified);
  const int64_t n = s.ranks * s.elems;
  std::mt19937_64 rng(7);
  for (int k = 0; k < 40; ++k) {
    const int rank = int(rng() % 4);
    const bool out = rng() % 2;
    const int64_t first = int64_t(rng() % uint64_t(n));
    const int64_t count = 1 + int64_t(rng() % 5000);
    const RankResult& rr = snap->steps[0].ranks[std::size_t(rank)];
    expectFetched(engine, *snap, 0, rank, out ? BufferSide::output : BufferSide::input,
                  out ? rr.output : rr.input, first, count);
  }
  // The last element, the cap, and ranges off the end.
  expectFetched(engine, *snap, 0, 3, BufferSide::output, snap->steps[0].ranks[3].output, n - 1, 10);
  const FetchedValues big = engine.fetchValues(snap->seq, 0, 0, BufferSide::output, 0, n);
  EXPECT_EQ(int64_t(big.count()), kFetchMax);
  EXPECT_EQ(engine.fetchValues(snap->seq, 0, 0, BufferSide::output, n, 1).status,
            FetchedValues::Status::unavailable);
  EXPECT_EQ(engine.fetchValues(snap->seq, 1, 0, BufferSide::output, 0, 1).status,
            FetchedValues::Status::unavailable);
  EXPECT_EQ(engine.fetchValues(snap->seq + 5, 0, 0, BufferSide::output, 0, 1).status,
            FetchedValues::Status::unavailable);

  // A newer request (a smaller op) reuses the memory: the old run is stale.
  Request small;
  small.spec = makeSpec(Op::all_gather, 4, 5);
  small.backend = BackendKind::gloo;
  auto next = engine.waitFor(engine.submit(small), 60s);
  ASSERT_TRUE(next && next->error.empty());
  const FetchedValues old = engine.fetchValues(snap->seq, 0, 0, BufferSide::output, 0, 4);
  EXPECT_EQ(old.status, FetchedValues::Status::stale);
  EXPECT_TRUE(old.bytes.empty());
  EXPECT_FALSE(old.why.empty());
  EXPECT_EQ(engine.fetchValues(next->seq, 0, 1, BufferSide::output, 0, 20).status,
            FetchedValues::Status::ok);
}

// The decomposition keeps both ops' buffers where they are: each step's
// output can be fetched, and equals what the snapshot copied.
TEST(FetchValues, BothStepsOfTheDecomposition) {
  Engine engine;
  const OpSpec s = makeSpec(Op::all_reduce, 3, 50000, DType::i32);
  Request r;
  r.spec = s;
  r.program = Program::all_reduce_decomposed;
  r.backend = BackendKind::gloo;
  r.keep_values = -1;
  auto snap = engine.waitFor(engine.submit(r), 120s);
  ASSERT_TRUE(snap && snap->error.empty()) << (snap ? snap->error : "no snapshot");
  ASSERT_TRUE(snap->verified);
  ASSERT_EQ(snap->steps.size(), 2u);
  EXPECT_TRUE(snap->all_reduce_compared);
  EXPECT_EQ(snap->all_reduce_diffs, 0);
  for (int step = 0; step < 2; ++step)
    for (int rank = 0; rank < 3; ++rank) {
      const RankResult& rr = snap->steps[std::size_t(step)].ranks[std::size_t(rank)];
      expectFetched(engine, *snap, step, rank, BufferSide::input, rr.input, 12345, 100);
      expectFetched(engine, *snap, step, rank, BufferSide::output, rr.output, 0, 777);
    }
}

}  // namespace
}  // namespace collviz::test
