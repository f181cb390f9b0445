// An algorithm's run through a real Engine, and everything a run round by
// round must show, checked against a schedule and reference the test builds
// itself: every round's buffers decoded from the bytes and held against the
// reference, the final output equal to the backend's own op, the counted
// bytes equal to the schedule and the formula. For the Gloo tests
// (algo_engine_test) and the NCCL ones (nccl_rounds_test).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "engine/algo/algorithms.h"
#include "engine/algo/reference.h"
#include "tests/engine/engine_test_support.h"

namespace collviz::test {

inline std::shared_ptr<const Snapshot> runAlgo(Engine& e, const OpSpec& s, const std::string& algo,
                                               bool every_round = true,
                                               BackendKind backend = BackendKind::gloo) {
  Request r;
  r.spec = s;
  r.backend = backend;
  r.algo = algo;
  r.every_round = every_round;
  const uint64_t id = e.submit(r);
  auto snap = e.waitFor(id, 120s);
  return snap && snap->request == id ? snap : nullptr;
}

// Everything a run round by round must show, checked against a schedule and
// reference the test builds itself.
inline void checkRun(const Snapshot& snap, const OpSpec& s, const std::string& algo) {
  SCOPED_TRACE(algo + " " + describe(s));
  ASSERT_TRUE(snap.error.empty()) << snap.error;
  EXPECT_EQ(snap.algo, algo);
  auto sch = algo::buildSchedule(algo, s);
  ASSERT_TRUE(sch);
  const algo::Reference ref = algo::simulate(*sch);
  const algo::Figures f = algo::figuresFor(algo, s);
  ASSERT_EQ(snap.steps.size(), sch->rounds.size());
  EXPECT_EQ(sch->messageRounds(), f.rounds);
  ASSERT_EQ(snap.steps.size(), sch->rounds.size());
  const bool minmax = s.redop == RedOp::min || s.redop == RedOp::max;
  const bool decodes = testPattern(s).kind != TestPattern::plain;
  for (std::size_t k = 0; k < snap.steps.size(); ++k) {
    const StepResult& st = snap.steps[k];
    SCOPED_TRACE(st.name);
    EXPECT_EQ(st.name, sch->rounds[k].name());
    EXPECT_TRUE(st.verify.verified) << st.verify.first_problem;
    EXPECT_EQ(st.transfers.size(), sch->rounds[k].moves.size());
    ASSERT_EQ(int(st.ranks.size()), s.ranks);
    for (int r = 0; r < s.ranks; ++r) {
      const BufferView& w = st.ranks[std::size_t(r)].output;
      ASSERT_EQ(int(w.labels.size()), sch->slots);
      ASSERT_EQ(w.bytes.size(), sch->workBytes());
      for (int slot = 0; slot < sch->slots; ++slot) {
        const algo::SlotState& want = ref.rounds[k][std::size_t(r)][std::size_t(slot)];
        const BlockLabel& l = w.labels[std::size_t(slot)];
        EXPECT_EQ(l.bad, 0) << "rank " << r << " slot " << slot;
        EXPECT_EQ(l.empty, want.empty()) << "rank " << r << " slot " << slot;
        if (want.empty() || !decodes) continue;
        if (minmax) EXPECT_EQ(l.contributors & ~want.ranks, 0u);
        else EXPECT_EQ(l.contributors, want.ranks) << "rank " << r << " slot " << slot;
      }
    }
  }
  EXPECT_TRUE(snap.final_compared);
  EXPECT_EQ(snap.final_diffs, 0);
  EXPECT_TRUE(snap.verified);
  ASSERT_EQ(int(snap.bytes_sent.size()), s.ranks);
  uint64_t busiest = 0;
  for (int r = 0; r < s.ranks; ++r) {
    EXPECT_EQ(snap.bytes_sent[std::size_t(r)], sch->bytesSent(r)) << "rank " << r;
    EXPECT_EQ(snap.bytes_received[std::size_t(r)], sch->bytesReceived(r)) << "rank " << r;
    busiest = std::max(busiest, snap.bytes_sent[std::size_t(r)]);
  }
  EXPECT_EQ(snap.formula.rounds, f.rounds);
  if (f.exact) {
    EXPECT_EQ(double(busiest), f.bytes) << f.text;
  }
  // The output after the last round is the op's own, decoded and verified.
  ASSERT_EQ(int(snap.final_ranks.size()), s.ranks);
  for (const RankResult& rr : snap.final_ranks) {
    EXPECT_EQ(rr.output.present, outputBlocks(s.op, s.ranks, rr.rank, s.root) > 0);
    EXPECT_EQ(int(rr.output.labels.size()), outputBlocks(s.op, s.ranks, rr.rank, s.root));
  }
}

}  // namespace collviz::test
