// Each algorithm's rounds and busiest rank's bytes, pinned against the
// published closed forms: Thakur, Rabenseifner and Gropp, "Optimization of
// Collective Communication Operations in MPICH" (IJHPCA 2005), and the
// architecture guide's table of textbook costs. The formulas are written
// here, by hand, for the N where they are exact (powers of two for the
// recursive algorithms); nothing is computed by engine/algo's code. The
// schedule's own count (what the workers send) and the figures the
// algorithm reports must both equal them: an algorithm whose schedule and
// "formula" drift together (the same loop counting the same slots) is
// caught here.
//
// Notation: N ranks, b = one block (E elements), S = the op's buffer per
// rank = N·b (one block for reduce), lg = log2.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "engine/algo/algorithms.h"
#include "engine/algo/schedule.h"

namespace collviz::algo {
namespace {

bool powerOfTwo(int n) { return n > 0 && (n & (n - 1)) == 0; }
int lg(int n) {  // ceil(log2 n), by hand
  int l = 0;
  while ((1 << l) < n) ++l;
  return l;
}

struct Published {
  const char* algo;
  Op op;
  const char* source;                 // where the closed form is printed
  bool (*exact_at)(int n);            // the N it is stated for
  int (*rounds)(int n);
  double (*sent)(int n, double S);    // busiest rank's bytes sent
  bool reduce_buffer = false;         // S is one block (reduce), not N blocks
};

bool anyN(int) { return true; }

const Published kTable[] = {
    // Ring all-reduce: 2(N-1)α + 2(N-1)/N·Sβ (guide; NCCL's runRing).
    {"ring", Op::all_reduce, "guide: ring all-reduce", anyN,
     [](int n) { return 2 * (n - 1); }, [](int n, double S) { return 2.0 * (n - 1) / n * S; }},
    // Ring reduce-scatter and all-gather: (N-1)α + (N-1)/N·Sβ (TRG 2005 §4, ring allgather).
    {"ring", Op::all_gather, "TRG 2005: ring allgather", anyN,
     [](int n) { return n - 1; }, [](int n, double S) { return double(n - 1) / n * S; }},
    {"ring", Op::reduce_scatter, "TRG 2005: ring reduce-scatter", anyN,
     [](int n) { return n - 1; }, [](int n, double S) { return double(n - 1) / n * S; }},
    // Pipelined chain broadcast of N blocks: N-1 hops + N-1 more blocks;
    // every rank but the last forwards the whole S.
    {"ring", Op::broadcast, "chain broadcast, N pieces pipelined", anyN,
     [](int n) { return n > 1 ? 2 * n - 2 : 0; }, [](int n, double S) { return n > 1 ? S : 0.0; }},
    // Binomial-tree broadcast: ceil(lg N)(α + Sβ); the root sends S to each of its lg N children.
    {"tree", Op::broadcast, "TRG 2005: binomial broadcast; guide", anyN,
     [](int n) { return lg(n); }, [](int n, double S) { return lg(n) * S; }},
    // Binomial reduce: ceil(lg N)(α + Sβ); every rank but the root sends its S once.
    {"tree", Op::reduce, "TRG 2005: binomial reduce", anyN,
     [](int n) { return lg(n); }, [](int n, double S) { return n > 1 ? S : 0.0; }, true},
    // Reduce then broadcast: 2·ceil(lg N) rounds; rank 0 sends S to lg N children.
    {"tree", Op::all_reduce, "TRG 2005: reduce + broadcast", anyN,
     [](int n) { return 2 * lg(n); }, [](int n, double S) { return lg(n) * S; }},
    // Recursive doubling all-gather: lg N·α + (N-1)/N·Sβ, N a power of two.
    {"recursive_doubling", Op::all_gather, "TRG 2005: recursive doubling allgather", powerOfTwo,
     [](int n) { return lg(n); }, [](int n, double S) { return double(n - 1) / n * S; }},
    // Rabenseifner: 2·lg N·α + 2(N-1)/N·Sβ; its first half is the recursive
    // halving reduce-scatter, lg N·α + (N-1)/N·Sβ. N a power of two.
    {"halving_doubling", Op::all_reduce, "TRG 2005: Rabenseifner's allreduce; guide", powerOfTwo,
     [](int n) { return 2 * lg(n); }, [](int n, double S) { return 2.0 * (n - 1) / n * S; }},
    {"halving_doubling", Op::reduce_scatter, "TRG 2005: recursive halving reduce-scatter",
     powerOfTwo, [](int n) { return lg(n); }, [](int n, double S) { return double(n - 1) / n * S; }},
    // Bruck all-to-all: lg N·α + (S/2)·lg N·β, N a power of two (guide; TRG 2005 §5).
    {"bruck", Op::all_to_all, "TRG 2005: Bruck alltoall; guide", powerOfTwo,
     [](int n) { return lg(n); }, [](int n, double S) { return S / 2 * lg(n); }},
    // Pairwise exchange all-to-all: (N-1)α + (N-1)/N·Sβ (guide; TRG 2005 §5).
    {"pairwise", Op::all_to_all, "TRG 2005: pairwise exchange; guide", anyN,
     [](int n) { return n - 1; }, [](int n, double S) { return double(n - 1) / n * S; }},
    // Linear scatter / gather: one round; the root sends (N-1)/N·S; gather:
    // every other rank sends its S/N.
    {"direct", Op::scatter, "linear scatter", anyN,
     [](int n) { return n > 1 ? 1 : 0; }, [](int n, double S) { return double(n - 1) / n * S; }},
    {"direct", Op::gather, "linear gather", anyN,
     [](int n) { return n > 1 ? 1 : 0; }, [](int n, double S) { return n > 1 ? S / n : 0.0; }},
};

TEST(AlgoFigures, PinnedToThePublishedClosedForms) {
  int checked = 0;
  for (const Published& p : kTable)
    for (int n = 1; n <= 16; ++n) {
      if (!p.exact_at(n)) continue;
      for (auto [elems, dtype] : {std::pair{int64_t(3), DType::f32}, {int64_t(5), DType::f64}}) {
        OpSpec s;
        s.op = p.op;
        s.ranks = n;
        s.elems = elems;
        s.dtype = dtype;
        s.root = 0;
        SCOPED_TRACE(std::string(p.algo) + " " + std::string(name(p.op)) + " N=" +
                     std::to_string(n) + " E=" + std::to_string(elems) + " (" + p.source + ")");
        auto built = buildSchedule(p.algo, s);
        ASSERT_TRUE(built) << built.error().message;
        const double b = double(elems) * double(dtypeSize(dtype));
        const double S = p.reduce_buffer ? b : n * b;
        const int want_rounds = p.rounds(n);
        const double want_sent = p.sent(n, S);
        uint64_t busiest = 0;
        for (int r = 0; r < n; ++r) busiest = std::max(busiest, built->bytesSent(r));
        EXPECT_EQ(built->messageRounds(), want_rounds) << "the schedule's rounds";
        EXPECT_DOUBLE_EQ(double(busiest), want_sent) << "the schedule's busiest rank";
        const Figures f = figuresFor(p.algo, s);
        EXPECT_EQ(f.rounds, want_rounds) << "the figures' rounds";
        EXPECT_DOUBLE_EQ(f.bytes, want_sent) << "the figures' bytes";
        EXPECT_TRUE(f.exact);
        ++checked;
      }
    }
  EXPECT_GT(checked, 250);
}

// A few figures written out as numbers, so a wrong closed form above cannot
// hide either: N = 8, one block = 12 bytes (3 f32), S = 96 bytes.
TEST(AlgoFigures, WrittenOutAtEightRanks) {
  auto busiest = [](const char* algo, Op op) {
    OpSpec s;
    s.op = op;
    s.ranks = 8;
    s.elems = 3;
    auto built = buildSchedule(algo, s);
    EXPECT_TRUE(built) << built.error().message;
    uint64_t most = 0;
    for (int r = 0; built && r < 8; ++r) most = std::max(most, built->bytesSent(r));
    return std::pair{built ? built->messageRounds() : -1, most};
  };
  EXPECT_EQ(busiest("ring", Op::all_reduce), (std::pair{14, uint64_t(168)}));       // 2·7/8·96
  EXPECT_EQ(busiest("bruck", Op::all_to_all), (std::pair{3, uint64_t(144)}));       // 96/2·3
  EXPECT_EQ(busiest("pairwise", Op::all_to_all), (std::pair{7, uint64_t(84)}));     // 7/8·96
  EXPECT_EQ(busiest("halving_doubling", Op::all_reduce), (std::pair{6, uint64_t(168)}));
  EXPECT_EQ(busiest("recursive_doubling", Op::all_gather), (std::pair{3, uint64_t(84)}));
  EXPECT_EQ(busiest("tree", Op::broadcast), (std::pair{3, uint64_t(288)}));         // 3·96
}

}  // namespace
}  // namespace collviz::algo
