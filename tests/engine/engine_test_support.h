// Helpers shared by the engine tests: run a spec through a real Engine and
// re-check its snapshot independently of engine/verify/verify.cpp (the article's
// table of who-gets-what is restated here, not taken from the oracle).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "engine/dtype.h"
#include "engine/engine.h"
#include "engine/verify/oracle.h"

namespace collviz::test {

using namespace std::chrono_literals;

inline OpSpec makeSpec(Op op, int n, int64_t e, DType t = DType::f32, RedOp r = RedOp::sum,
                       int root = 0) {
  OpSpec s;
  s.op = op;
  s.ranks = n;
  s.elems = e;
  s.dtype = t;
  s.redop = r;
  s.root = root;
  return s;
}

inline std::string describe(const OpSpec& s) {
  std::ostringstream os;
  os << name(s.op) << " N=" << s.ranks << " E=" << s.elems << " " << name(s.dtype) << " "
     << name(s.redop) << " root=" << s.root;
  return os.str();
}

inline std::shared_ptr<const Snapshot> runAndWait(Engine& e, const OpSpec& s,
                                                  Program p = Program::single,
                                                  std::chrono::milliseconds t = 60s,
                                                  BackendKind backend = BackendKind::gloo) {
  // Every value kept: the checks below re-read every element.
  Request r;
  r.spec = s;
  r.program = p;
  r.backend = backend;
  r.keep_values = -1;
  const uint64_t id = e.submit(r);
  auto snap = e.waitFor(id, t);
  if (snap && snap->request != id) return nullptr;  // a different answer: a bug
  return snap;
}

// The article's table, restated: blocks per buffer (0 = "—").
inline int tableInBlocks(Op op, int n, int r, int root) {
  if (op == Op::broadcast || op == Op::scatter) return r == root ? n : 0;
  if (op == Op::gather || op == Op::reduce || op == Op::all_gather) return 1;
  return n;
}
inline int tableOutBlocks(Op op, int n, int r, int root) {
  switch (op) {
    case Op::broadcast: case Op::all_gather: case Op::all_reduce: case Op::all_to_all: return n;
    case Op::scatter: case Op::reduce_scatter: return 1;
    case Op::gather: return r == root ? n : 0;
    case Op::reduce: return r == root ? 1 : 0;
  }
  return -1;
}
// Output block j of rank r: a copy of input block `block` of rank `rank`, or
// (reduced) the combination of input block `block` over every rank.
struct Source { bool reduced; int rank; int block; };
inline Source tableSource(Op op, int root, int r, int j) {
  switch (op) {
    case Op::broadcast: return {false, root, j};
    case Op::scatter: return {false, root, r};
    case Op::gather: case Op::all_gather: return {false, j, 0};
    case Op::all_to_all: return {false, j, r};
    case Op::reduce: return {true, -1, 0};
    case Op::reduce_scatter: return {true, -1, r};
    case Op::all_reduce: return {true, -1, j};
  }
  return {false, -1, -1};
}

// The input pattern, restated from the formulas in provenance.h (not by
// calling it): value = (code mod K)·2^N + 2^pos for sums and copies, K = all
// codes when F·(K−1)·2^N + 2^N − 1 fits the dtype's exact integers (F = N for
// sum/avg, avg with 1/8 of the range), else the largest multiple of N that
// fits; prod uses 2^(2^pos) while 2^N − 1 fits the dtype's largest power-of-two
// exponent; otherwise small integers ("plain").
struct TestPattern {
  enum Kind { sum_bits, prod_bits, plain } kind = plain;
  bool full = false;
  int64_t modulus = 0;
};
inline double testExactLimit(DType t) {
  switch (t) {
    case DType::f32: return 16777216.0;
    case DType::f64: case DType::i64: return 9007199254740992.0;
    case DType::f16: return 2048.0;
    case DType::bf16: return 256.0;
    case DType::i32: return 2147483647.0;
    case DType::u8: return 255.0;
  }
  return 0;
}
inline int testMaxExponent(DType t) {
  switch (t) {
    case DType::f32: case DType::bf16: return 127;
    case DType::f64: return 1023;
    case DType::f16: return 15;
    case DType::i32: return 30;
    case DType::i64: return 62;
    case DType::u8: return 7;
  }
  return 0;
}
inline bool testReduces(Op op) {
  return op == Op::reduce || op == Op::reduce_scatter || op == Op::all_reduce;
}
inline int tableInBlocks(Op op, int n, int r, int root);
inline TestPattern testPattern(const OpSpec& s) {
  TestPattern p;
  const int n = s.ranks;
  if (n > 30) return p;
  if (testReduces(s.op) && s.redop == RedOp::prod) {
    if ((1 << n) - 1 <= testMaxExponent(s.dtype)) p.kind = TestPattern::prod_bits;
    return p;
  }
  const bool sums = testReduces(s.op) && (s.redop == RedOp::sum || s.redop == RedOp::avg);
  const double limit = testExactLimit(s.dtype) /
                       (testReduces(s.op) && s.redop == RedOp::avg ? 8.0 : 1.0);
  const double f = sums ? n : 1, two_n = std::ldexp(1.0, n);
  int blocks = 1;
  for (int r = 0; r < n; ++r) blocks = std::max(blocks, tableInBlocks(s.op, n, r, s.root));
  const int64_t codes = int64_t(blocks) * s.elems;
  const double kmax = std::floor((limit - (two_n - 1)) / (f * two_n)) + 1;
  if (double(codes) <= kmax) return {TestPattern::sum_bits, true, codes};
  const int64_t k = int64_t(kmax / n) * n;
  if (k >= n) return {TestPattern::sum_bits, false, k};
  return p;
}
inline double testPatternValue(const OpSpec& s, const TestPattern& p, int r, int b, int64_t e) {
  const int n = s.ranks;
  const int64_t code = int64_t(b) * s.elems + e;
  const int pos = int((r + code) % n);
  switch (p.kind) {
    case TestPattern::sum_bits: return double(code % p.modulus) * std::ldexp(1.0, n) + std::ldexp(1.0, pos);
    case TestPattern::prod_bits: return std::ldexp(1.0, 1 << pos);
    case TestPattern::plain:
      if (testReduces(s.op) && s.redop == RedOp::prod) return pos == 0 ? 2.0 : 1.0;
      return double(1 + (r + code) % 3);
  }
  return 0;
}
// Is every part of a label carried by the bytes? The full pattern carries
// contributors, block and element; otherwise only the contributors, so a
// label that names a block (a shard subscript, a piece of the root's tensor)
// must be marked as the oracle's; plain carries nothing.
inline bool testLabelDecoded(const TestPattern& p, bool names_block) {
  if (p.kind == TestPattern::plain) return false;
  return (p.kind == TestPattern::sum_bits && p.full) || !names_block;
}

// Re-check one step of a snapshot: shapes, inputs = the pattern, every
// output element against the article's table (byte copies) and the oracle
// (reductions, plus an own double-precision reduction), and the labels.
// `single`: a one-op step whose inputs are the pattern (the all-gather step
// of the decomposition holds Σ blocks instead: its caller checks those).
inline void checkStep(const StepResult& st, bool single = true) {
  const OpSpec& s = st.spec;
  SCOPED_TRACE(describe(s));
  const int n = s.ranks;
  const std::size_t e = std::size_t(s.elems), sz = dtypeSize(s.dtype);
  ASSERT_EQ(int(st.ranks.size()), n);
  const TestPattern pat = testPattern(s);
  std::vector<std::vector<double>> in(n);
  for (int r = 0; r < n; ++r) {
    const RankResult& rr = st.ranks[r];
    EXPECT_EQ(rr.rank, r);
    const int ib = tableInBlocks(s.op, n, r, s.root), ob = tableOutBlocks(s.op, n, r, s.root);
    ASSERT_EQ(rr.input.present, ib > 0) << "rank " << r;
    ASSERT_EQ(rr.output.present, ob > 0) << "rank " << r;
    ASSERT_EQ(rr.input.bytes.size(), ib * e * sz) << "rank " << r;
    ASSERT_EQ(rr.output.bytes.size(), ob * e * sz) << "rank " << r;
    if (rr.input.present) {
      ASSERT_EQ(int(rr.input.labels.size()), ib);
    }
    if (rr.output.present) {
      ASSERT_EQ(int(rr.output.labels.size()), ob);
    }
    for (std::size_t i = 0; i < ib * e; ++i) in[r].push_back(rr.input.value(i, s.dtype));
  }
  for (int r = 0; r < n; ++r) {
    const RankResult& rr = st.ranks[r];
    const int ib = tableInBlocks(s.op, n, r, s.root);
    // Only single-op steps hold the pattern itself (the all-gather step of
    // the decomposition holds reduce-scatter outputs, checked by its caller).
    if (single)
      for (int b = 0; b < ib; ++b)
        for (std::size_t i = 0; i < e; ++i)
          if (in[r][b * e + i] != roundToDType(s.dtype, testPatternValue(s, pat, r, b, int64_t(i))))
            ADD_FAILURE() << "rank " << r << " input block " << b << " elem " << i
                          << " is not the pattern: " << in[r][b * e + i];
    const bool piece = s.op == Op::broadcast || s.op == Op::scatter;
    for (int b = 0; single && b < ib; ++b) {
      const BlockLabel& l = rr.input.labels[b];
      EXPECT_EQ(l.kind, BlockLabel::Kind::source) << "rank " << r << " input " << b;
      EXPECT_EQ(l.letter, piece ? b : r) << "rank " << r << " input " << b;
      EXPECT_EQ(l.shard, !piece && ib > 1 ? b : -1) << "rank " << r << " input " << b;
      EXPECT_EQ(l.contributors, 1u << r) << "rank " << r << " input " << b;
    }
    const int ob = tableOutBlocks(s.op, n, r, s.root);
    if (!ob) continue;
    const auto oracle = expectedOutput(s, r, in);
    int fails = 0;
    for (int j = 0; j < ob; ++j) {
      const Source src = tableSource(s.op, s.root, r, j);
      if (!src.reduced) {
        const auto* got = rr.output.bytes.data() + j * e * sz;
        const auto* want = st.ranks[src.rank].input.bytes.data() + src.block * e * sz;
        if (std::memcmp(got, want, e * sz) != 0 && fails++ < 3)
          ADD_FAILURE() << "rank " << r << " output block " << j << " is not input block "
                        << src.block << " of rank " << src.rank;
        continue;
      }
      for (std::size_t i = 0; i < e; ++i) {
        const double got = rr.output.value(j * e + i, s.dtype);
        double acc = in[0][src.block * e + i];
        for (int k = 1; k < n; ++k) {
          const double x = in[k][src.block * e + i];
          switch (s.redop) {
            case RedOp::sum: case RedOp::avg: acc += x; break;
            case RedOp::prod: acc *= x; break;
            case RedOp::min: acc = std::min(acc, x); break;
            case RedOp::max: acc = std::max(acc, x); break;
          }
        }
        if (s.redop == RedOp::avg) acc /= n;
        const double own = roundToDType(s.dtype, acc), want = oracle[j * e + i];
        const double tol = s.redop != RedOp::avg ? 0.0
                           : s.dtype == DType::f16 ? 2e-3 * std::max(1.0, std::fabs(own))
                           : s.dtype == DType::f32 ? 1e-6 * std::max(1.0, std::fabs(own))
                                                   : 1e-12 * std::max(1.0, std::fabs(own));
        if ((std::fabs(got - own) > tol || std::fabs(got - want) > tol) && fails++ < 3)
          ADD_FAILURE() << "rank " << r << " output block " << j << " elem " << i << ": got "
                        << got << ", own reduction " << own << ", oracle " << want;
      }
    }
    if (!single) continue;
    // Labels: kind, letter, shard and contributors by the article's rules.
    const uint32_t all = (1u << n) - 1;
    for (int j = 0; j < ob; ++j) {
      const BlockLabel& l = rr.output.labels[j];
      const Source src = tableSource(s.op, s.root, r, j);
      EXPECT_EQ(l.bad, 0) << "rank " << r << " block " << j;
      const bool names_block = src.reduced ? tableInBlocks(s.op, n, 0, s.root) > 1
                               : s.op == Op::broadcast || s.op == Op::scatter ||
                                     (s.op == Op::all_to_all && n > 1);
      EXPECT_EQ(l.decoded, testLabelDecoded(pat, names_block)) << "rank " << r << " block " << j;
      if (src.reduced) {
        EXPECT_EQ(l.kind, BlockLabel::Kind::reduced) << "rank " << r << " block " << j;
        // Subscripts name shards only where inputs hold several blocks
        // (at N = 1 an all_reduce gives plain Σ).
        EXPECT_EQ(l.shard, tableInBlocks(s.op, n, 0, s.root) > 1 ? src.block : -1);
        if (s.redop == RedOp::min || s.redop == RedOp::max)
          EXPECT_TRUE(l.contributors != 0 && (l.contributors & ~all) == 0);
        else
          EXPECT_EQ(l.contributors, all) << "rank " << r << " block " << j;
      } else {
        EXPECT_EQ(l.kind, BlockLabel::Kind::source) << "rank " << r << " block " << j;
        EXPECT_EQ(l.contributors, 1u << src.rank) << "rank " << r << " block " << j;
        const bool piece = s.op == Op::broadcast || s.op == Op::scatter;
        EXPECT_EQ(l.letter, piece ? src.block : src.rank) << "rank " << r << " block " << j;
        EXPECT_EQ(l.shard, s.op == Op::all_to_all && n > 1 ? src.block : -1);
      }
    }
  }
  EXPECT_TRUE(st.verify.verified) << st.verify.first_problem;
  EXPECT_EQ(st.verify.mismatches, 0);
  EXPECT_EQ(st.verify.undecodable, 0);
}

// The first output element of a single-op step that the article's table
// does not give ("" when none): copies byte for byte, reductions against an
// own reduction in double (exact for the pattern's sums, min and max).
// Thread-safe, for checks off the test's thread.
inline std::string firstTableMismatch(const StepResult& st) {
  const OpSpec& s = st.spec;
  const std::size_t e = std::size_t(s.elems), sz = dtypeSize(s.dtype);
  for (int r = 0; r < s.ranks; ++r) {
    const RankResult& rr = st.ranks[r];
    for (int j = 0; j < tableOutBlocks(s.op, s.ranks, r, s.root); ++j) {
      const Source src = tableSource(s.op, s.root, r, j);
      const std::string at = "rank " + std::to_string(r) + " output block " + std::to_string(j);
      if (!src.reduced) {
        if (std::memcmp(rr.output.bytes.data() + j * e * sz,
                        st.ranks[src.rank].input.bytes.data() + src.block * e * sz, e * sz) != 0)
          return at + " is not input block " + std::to_string(src.block) + " of rank " +
                 std::to_string(src.rank);
        continue;
      }
      for (std::size_t i = 0; i < e; ++i) {
        double acc = 0;
        for (int k = 0; k < s.ranks; ++k) {
          const double x = st.ranks[k].input.value(src.block * e + i, s.dtype);
          acc = k == 0 ? x : s.redop == RedOp::max ? std::max(acc, x)
                         : s.redop == RedOp::min   ? std::min(acc, x)
                                                   : acc + x;
        }
        if (s.redop == RedOp::prod || s.redop == RedOp::avg) return "";  // not restated here
        if (rr.output.value(j * e + i, s.dtype) != roundToDType(s.dtype, acc))
          return at + " element " + std::to_string(i) + " is not the reduction of its inputs";
      }
    }
  }
  return "";
}

inline void checkSingle(const Snapshot& snap, const OpSpec& s,
                        const std::string& backend = "gloo") {
  SCOPED_TRACE(describe(s));
  ASSERT_TRUE(snap.error.empty()) << snap.error;
  EXPECT_EQ(snap.spec, s);
  ASSERT_EQ(snap.steps.size(), 1u);
  EXPECT_EQ(snap.steps[0].spec, s);
  EXPECT_TRUE(snap.verified);
  EXPECT_EQ(snap.mismatches, 0);
  EXPECT_EQ(snap.backend.name, backend);
  checkStep(snap.steps[0]);
}

// ---- processes -------------------------------------------------------------

// Process state letter from /proc/<pid>/stat ('R', 'S', 'T', 'Z'); 0 if gone.
// Polls `done` until it holds, at most `limit`; false when it never did. The
// tests wait for a condition, never a fixed time.
template <typename Pred>
bool waitUntilTrue(Pred done, std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

// Until the engine runs request `id`'s op (the ranks have it), at most 20 s.
inline bool waitForOpPhase(Engine& e, uint64_t id) {
  return waitUntilTrue([&] {
    const Progress p = e.progress();
    return p.request == id && p.phase == Progress::Phase::op;
  }, std::chrono::milliseconds(20000));
}

inline char procState(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(f, line)) return 0;
  const auto p = line.rfind(')');
  return p == std::string::npos || p + 2 >= line.size() ? 0 : line[p + 2];
}
inline bool gone(pid_t pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

// Shared-memory descriptors this process holds (memfd:collviz-rank).
inline int memfdCount() {
  int n = 0;
  std::error_code ec;
  for (const auto& d : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    const auto t = std::filesystem::read_symlink(d.path(), ec);
    if (!ec && t.string().find("memfd:collviz") != std::string::npos) ++n;
  }
  return n;
}

}  // namespace collviz::test
