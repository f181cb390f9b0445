// The provenance pattern: values decode back to (contributors, code) for
// every pattern kind; choosePattern's documented limits; a corrupted element
// in a real snapshot is caught; labels match the article's table.
#include "tests/engine/engine_test_support.h"
#include "engine/verify/verify.h"

namespace collviz::test {
namespace {

using Kind = Pattern::Kind;

// Sum/prod/min/max/avg over every non-empty rank subset S of one element's
// pattern values must decode to S (min/max: to the single winner).
void roundTrip(const OpSpec& s, Kind want_kind, bool want_full) {
  SCOPED_TRACE(describe(s));
  const Pattern p = choosePattern(s);
  ASSERT_EQ(p.kind, want_kind);
  EXPECT_EQ(p.full, want_full);
  const int n = s.ranks;
  const int blocks = reduces(s.op) && s.op != Op::reduce ? n : 1;
  for (int b = 0; b < blocks; ++b)
    for (int64_t e = 0; e < s.elems; ++e) {
      const int64_t code = b * s.elems + e;
      const int64_t want_code = want_kind == Kind::prod_bits ? code
                                : p.full ? code : code % p.modulus;
      for (uint32_t set = 1; set < (1u << n); ++set) {
        double acc = 0, best = 0;
        int winner = -1, cnt = 0;
        for (int r = 0; r < n; ++r) {
          if (!(set & (1u << r))) continue;
          const double v = patternValue(s, p, r, b, e);
          ASSERT_EQ(v, roundToDType(s.dtype, v)) << "pattern value not exact in dtype";
          acc = cnt++ == 0 ? v : combine(s.redop, s.dtype, acc, v);
          if (winner < 0 || (s.redop == RedOp::min ? v < best : v > best)) best = v, winner = r;
        }
        if (s.redop == RedOp::min || s.redop == RedOp::max) {
          const DecodedElement d = decodeValue(s, p, acc, code, true);
          ASSERT_TRUE(d.ok);
          EXPECT_EQ(d.ranks, 1u << winner);
          EXPECT_EQ(d.code, want_code);
          continue;
        }
        // Only full sets are reduced by the ops; every set must still decode.
        const bool reduced = s.redop == RedOp::avg;
        if (reduced) acc = roundToDType(s.dtype, acc / n);
        if (reduced && set != (1u << n) - 1) continue;  // avg divides by N, not |S|
        const DecodedElement d = decodeValue(s, p, acc, code, reduced);
        ASSERT_TRUE(d.ok) << "set " << set << " code " << code << " value " << acc;
        EXPECT_EQ(d.ranks, set) << "code " << code;
        EXPECT_EQ(d.code, want_code) << "set " << set;
      }
    }
}

TEST(Pattern, RoundTripsEveryKind) {
  roundTrip(makeSpec(Op::all_reduce, 4, 4, DType::f32, RedOp::sum), Kind::sum_bits, true);
  roundTrip(makeSpec(Op::all_reduce, 8, 33, DType::f64, RedOp::sum), Kind::sum_bits, true);
  roundTrip(makeSpec(Op::all_reduce, 4, 33, DType::f16, RedOp::sum), Kind::sum_bits, false);
  roundTrip(makeSpec(Op::all_reduce, 4, 4, DType::u8, RedOp::sum), Kind::sum_bits, false);
  roundTrip(makeSpec(Op::reduce, 3, 5, DType::i32, RedOp::max), Kind::sum_bits, true);
  roundTrip(makeSpec(Op::reduce_scatter, 4, 4, DType::f32, RedOp::min), Kind::sum_bits, true);
  roundTrip(makeSpec(Op::all_reduce, 4, 4, DType::f32, RedOp::avg), Kind::sum_bits, true);
  roundTrip(makeSpec(Op::all_reduce, 4, 4, DType::i32, RedOp::prod), Kind::prod_bits, false);
  roundTrip(makeSpec(Op::all_reduce, 3, 4, DType::u8, RedOp::prod), Kind::prod_bits, false);
  roundTrip(makeSpec(Op::all_reduce, 8, 2, DType::f64, RedOp::prod), Kind::prod_bits, false);
  roundTrip(makeSpec(Op::reduce, 4, 3, DType::f16, RedOp::prod), Kind::prod_bits, false);
}

TEST(Pattern, CopyOpsDecodeSourceAndPosition) {
  for (Op op : {Op::broadcast, Op::scatter, Op::gather, Op::all_gather, Op::all_to_all}) {
    const OpSpec s = makeSpec(op, 4, 7, DType::i32);
    const Pattern p = choosePattern(s);
    ASSERT_EQ(p.kind, Kind::sum_bits) << name(op);
    ASSERT_TRUE(p.full);
    for (int r = 0; r < 4; ++r)
      for (int b = 0; b < tableInBlocks(op, 4, r, 0); ++b)
        for (int64_t e = 0; e < 7; ++e) {
          const DecodedElement d =
              decodeValue(s, p, patternValue(s, p, r, b, e), b * 7 + e, false);
          ASSERT_TRUE(d.ok);
          EXPECT_EQ(d.ranks, 1u << r);
          EXPECT_EQ(d.code, b * 7 + e);
        }
  }
}

TEST(Pattern, RejectsValuesOutsideThePattern) {
  const OpSpec s = makeSpec(Op::all_reduce, 4, 4, DType::f32, RedOp::sum);
  const Pattern p = choosePattern(s);
  for (double v : {-1.0, 0.0, 0.5, std::nan(""), 1e30})
    EXPECT_FALSE(decodeValue(s, p, v, 0, true).ok) << v;
  const OpSpec q = makeSpec(Op::all_reduce, 4, 4, DType::i32, RedOp::prod);
  const Pattern pp = choosePattern(q);
  for (double v : {3.0, 1.0, 6.0, 0.0}) EXPECT_FALSE(decodeValue(q, pp, v, 0, true).ok) << v;
}

TEST(Pattern, ChoosesKindAtTheDocumentedLimits) {
  auto kind = [](Op op, int n, int64_t e, DType t, RedOp r) {
    return choosePattern(makeSpec(op, n, e, t, r));
  };
  // f16 (exact to 2048): N = 4 sums of 16 codes fit, 33 per block do not.
  EXPECT_TRUE(kind(Op::all_reduce, 4, 4, DType::f16, RedOp::sum).full);
  auto f16 = kind(Op::all_reduce, 4, 33, DType::f16, RedOp::sum);
  EXPECT_EQ(f16.kind, Kind::sum_bits);
  EXPECT_FALSE(f16.full);
  EXPECT_EQ(f16.modulus, 32);  // floor((2048 - 15) / 64) + 1 = 32
  EXPECT_EQ(kind(Op::all_reduce, 8, 1, DType::f16, RedOp::sum).kind, Kind::plain);
  EXPECT_EQ(kind(Op::all_reduce, 8, 1, DType::bf16, RedOp::sum).kind, Kind::plain);
  auto bf = kind(Op::all_reduce, 4, 4, DType::bf16, RedOp::sum);
  EXPECT_EQ(bf.kind, Kind::sum_bits);
  EXPECT_EQ(bf.modulus, 4);
  EXPECT_TRUE(kind(Op::all_reduce, 2, 1, DType::bf16, RedOp::sum).full);
  EXPECT_EQ(kind(Op::all_reduce, 8, 4, DType::u8, RedOp::sum).kind, Kind::plain);
  // Copies need no factor N: u8 all_gather N = 4 E = 1 fits whole.
  EXPECT_TRUE(kind(Op::all_gather, 4, 1, DType::u8, RedOp::sum).full);
  // prod: 2^N - 1 <= the largest exponent (i32 30, u8 7, f16 15, f32 127).
  EXPECT_EQ(kind(Op::all_reduce, 4, 4, DType::i32, RedOp::prod).kind, Kind::prod_bits);
  EXPECT_EQ(kind(Op::all_reduce, 5, 4, DType::i32, RedOp::prod).kind, Kind::plain);
  EXPECT_EQ(kind(Op::all_reduce, 3, 4, DType::u8, RedOp::prod).kind, Kind::prod_bits);
  EXPECT_EQ(kind(Op::all_reduce, 4, 4, DType::u8, RedOp::prod).kind, Kind::plain);
  EXPECT_EQ(kind(Op::all_reduce, 4, 4, DType::f16, RedOp::prod).kind, Kind::prod_bits);
  EXPECT_EQ(kind(Op::all_reduce, 5, 4, DType::f16, RedOp::prod).kind, Kind::plain);
  EXPECT_EQ(kind(Op::all_reduce, 7, 4, DType::f32, RedOp::prod).kind, Kind::prod_bits);
  EXPECT_EQ(kind(Op::all_reduce, 8, 4, DType::f32, RedOp::prod).kind, Kind::plain);
  EXPECT_EQ(kind(Op::all_reduce, 8, 4, DType::i64, RedOp::prod).kind, Kind::plain);
  EXPECT_EQ(kind(Op::all_reduce, 8, 4, DType::f64, RedOp::prod).kind, Kind::prod_bits);
  // prod applies only to reducing ops: a broadcast with redop prod is a copy.
  EXPECT_EQ(kind(Op::broadcast, 8, 4, DType::i32, RedOp::prod).kind, Kind::sum_bits);
  // avg keeps 3 bits of headroom: f32 N=4 full at E=4, contributors at 2^18.
  EXPECT_TRUE(kind(Op::all_reduce, 4, 4, DType::f32, RedOp::avg).full);
  EXPECT_FALSE(kind(Op::all_reduce, 4, 1 << 18, DType::f32, RedOp::avg).full);
  // Every describe() says which mode it is.
  EXPECT_NE(kind(Op::all_reduce, 8, 1, DType::f16, RedOp::sum).describe().find("values only"),
            std::string::npos);
  EXPECT_NE(f16.describe().find("mod 32"), std::string::npos);
}

// A real snapshot, then one element corrupted: verification must see it.
class Corruption : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { engine_ = new Engine(); }
  static void TearDownTestSuite() { delete engine_; }
  StepResult realStep(const OpSpec& s) {
    auto snap = runAndWait(*engine_, s);
    EXPECT_TRUE(snap && snap->verified) << (snap ? snap->error : "no snapshot");
    return snap ? snap->steps.at(0) : StepResult{};
  }
  static void reverify(StepResult& st) {
    labelAndVerify(st, choosePattern(st.spec), opProvenance(st.spec));
  }
  static Engine* engine_;
};
Engine* Corruption::engine_ = nullptr;

TEST_F(Corruption, OneFlippedElementIsFoundAndLocated) {
  StepResult st = realStep(makeSpec(Op::all_reduce, 4, 4));
  ASSERT_EQ(st.ranks.size(), 4u);
  reverify(st);  // untouched: still verified
  ASSERT_TRUE(st.verify.verified);
  // Rank 1, block 2, element 3: flip the sign bit (f32 byte 3, bit 7).
  st.ranks[1].output.bytes[(2 * 4 + 3) * 4 + 3] ^= std::byte{0x80};
  reverify(st);
  EXPECT_FALSE(st.verify.verified);
  EXPECT_EQ(st.verify.mismatches, 1);
  EXPECT_EQ(st.verify.undecodable, 1);
  EXPECT_NE(st.verify.first_problem.find("rank 1 output block 2 element 3"), std::string::npos)
      << st.verify.first_problem;
  for (int r = 0; r < 4; ++r)
    for (int j = 0; j < 4; ++j) {
      const BlockLabel& l = st.ranks[r].output.labels[j];
      EXPECT_EQ(l.bad, r == 1 && j == 2 ? 1 : 0) << r << "," << j;
      EXPECT_EQ(l.kind, BlockLabel::Kind::reduced);  // three elements still decode
    }
  // A low mantissa bit: the value decodes to the wrong contributor set.
  StepResult st2 = realStep(makeSpec(Op::all_reduce, 4, 4));
  st2.ranks[3].output.bytes[(0 * 4 + 1) * 4] ^= std::byte{0x01};
  reverify(st2);
  EXPECT_EQ(st2.verify.mismatches, 1);
  EXPECT_EQ(st2.verify.undecodable, 1);
  EXPECT_EQ(st2.ranks[3].output.labels[0].bad, 1);
}

TEST_F(Corruption, GarbageBlockIsUnknown) {
  StepResult st = realStep(makeSpec(Op::all_to_all, 4, 4, DType::i32));
  auto& out = st.ranks[2].output;
  std::fill(out.bytes.begin() + 16, out.bytes.begin() + 32, std::byte{0xFF});  // block 1: -1s
  reverify(st);
  EXPECT_EQ(st.verify.mismatches, 4);
  EXPECT_EQ(st.verify.undecodable, 4);
  EXPECT_EQ(st.verify.wrong, 4);      // counted once, though it fails both checks
  EXPECT_EQ(st.verify.unwritten, 4);  // i32 -1 is the poison: "not written"
  EXPECT_EQ(out.labels[1].kind, BlockLabel::Kind::unknown);
  EXPECT_EQ(out.labels[1].bad, 4);
  EXPECT_EQ(out.labels[1].text(RedOp::sum), "?");
  EXPECT_EQ(out.labels[0].text(RedOp::sum), "A₂");
  ASSERT_EQ(st.verify.bad_blocks.size(), 1u);
  EXPECT_EQ(st.verify.bad_blocks[0],
            "rank 2 output block 1: not written (still the poison) where B₂ belongs "
            "(4 of 4 elements wrong)");
  // A block swapped for another rank's: valid bytes, wrong place. The label
  // reads what is there (C₀), marked bad, not "?".
  StepResult sw = realStep(makeSpec(Op::all_to_all, 4, 4, DType::i32));
  auto& o = sw.ranks[0].output.bytes;
  std::copy(o.begin() + 32, o.begin() + 48, o.begin() + 16);  // block 1 := block 2 (C₀)
  reverify(sw);
  EXPECT_EQ(sw.verify.undecodable, 4);
  EXPECT_EQ(sw.verify.wrong, 4);
  const BlockLabel& l = sw.ranks[0].output.labels[1];
  EXPECT_EQ(l.kind, BlockLabel::Kind::source);
  EXPECT_EQ(l.text(RedOp::sum), "C₀");
  EXPECT_EQ(l.bad, 4);
  EXPECT_TRUE(l.decoded);
  ASSERT_EQ(sw.verify.bad_blocks.size(), 1u);
  EXPECT_EQ(sw.verify.bad_blocks[0],
            "rank 0 output block 1: C₀ where B₀ belongs (4 of 4 elements wrong)");
}

// Broadcast's letters are the root's pieces: a misplaced piece reads as the
// piece it is, decoded from the positions its values carry.
TEST_F(Corruption, MisplacedPieceReadsAsWhatItIs) {
  StepResult st = realStep(makeSpec(Op::broadcast, 4, 4, DType::f32));
  auto& o = st.ranks[3].output.bytes;
  std::swap_ranges(o.begin(), o.begin() + 16, o.begin() + 16);  // A and B exchanged
  reverify(st);
  const auto& l = st.ranks[3].output.labels;
  EXPECT_EQ(l[0].text(RedOp::sum), "B");
  EXPECT_EQ(l[1].text(RedOp::sum), "A");
  EXPECT_EQ(l[0].bad, 4);
  EXPECT_EQ(st.verify.wrong, 8);
  // Elements out of place inside a block: the letter holds, the block is bad.
  StepResult in = realStep(makeSpec(Op::broadcast, 4, 4, DType::f32));
  auto& b = in.ranks[1].output.bytes;
  std::swap_ranges(b.begin() + 4, b.begin() + 8, b.begin() + 8);
  reverify(in);
  EXPECT_EQ(in.ranks[1].output.labels[0].text(RedOp::sum), "A");
  EXPECT_EQ(in.ranks[1].output.labels[0].bad, 2);
  ASSERT_EQ(in.verify.bad_blocks.size(), 1u);
  EXPECT_NE(in.verify.bad_blocks[0].find("elements out of place"), std::string::npos);
}

// Where the pattern cannot carry a part of the label, it says so.
TEST_F(Corruption, OracleLabelsAreMarked) {
  StepResult u8 = realStep(makeSpec(Op::all_reduce, 8, 4, DType::u8));  // plain
  for (const auto& l : u8.ranks[0].output.labels) EXPECT_FALSE(l.decoded);
  StepResult prod = realStep(makeSpec(Op::all_reduce, 4, 4, DType::f32, RedOp::prod));
  EXPECT_FALSE(prod.ranks[0].output.labels[1].decoded);  // Π₁: the shard is the oracle's
  StepResult red = realStep(makeSpec(Op::reduce, 4, 4, DType::f32, RedOp::prod));
  EXPECT_TRUE(red.ranks[0].output.labels[0].decoded);  // Π: contributors only, decoded
  StepResult full = realStep(makeSpec(Op::all_reduce, 4, 4, DType::f32));
  for (const auto& l : full.ranks[2].output.labels) EXPECT_TRUE(l.decoded);
}

TEST_F(Corruption, ProdAndPlainPatternsCatchToo) {
  StepResult p = realStep(makeSpec(Op::all_reduce, 4, 4, DType::i32, RedOp::prod));
  ASSERT_EQ(choosePattern(p.spec).kind, Kind::prod_bits);
  writeElement(p.ranks[0].output.bytes.data(), DType::i32, 5, 3.0);
  reverify(p);
  EXPECT_EQ(p.verify.mismatches, 1);
  EXPECT_EQ(p.verify.undecodable, 1);
  EXPECT_EQ(p.ranks[0].output.labels[1].bad, 1);
  // Plain (f16, N = 8): no decoding, the oracle still catches the value.
  StepResult q = realStep(makeSpec(Op::all_reduce, 8, 2, DType::f16));
  ASSERT_EQ(choosePattern(q.spec).kind, Kind::plain);
  const double v = readElement(q.ranks[5].output.bytes.data(), DType::f16, 3);
  writeElement(q.ranks[5].output.bytes.data(), DType::f16, 3, v + 1);
  reverify(q);
  EXPECT_FALSE(q.verify.verified);
  EXPECT_EQ(q.verify.mismatches, 1);
  EXPECT_EQ(q.verify.undecodable, 0);
  EXPECT_EQ(q.ranks[5].output.labels[1].bad, 1);
  EXPECT_FALSE(q.ranks[5].output.labels[1].decoded);
}

std::vector<std::string> texts(const BufferView& b, RedOp r) {
  std::vector<std::string> out;
  for (const auto& l : b.labels) out.push_back(l.text(r));
  return out;
}
using V = std::vector<std::string>;

// The article's table (N = 4, root R0, SUM), from real runs' bytes.
TEST_F(Corruption, LabelsFollowTheArticle) {
  const V abcd = {"A", "B", "C", "D"}, one[4] = {{"A"}, {"B"}, {"C"}, {"D"}};
  auto step = [&](Op op) { return realStep(makeSpec(op, 4, 4)); };
  StepResult b = step(Op::broadcast);
  EXPECT_EQ(texts(b.ranks[0].input, RedOp::sum), abcd);
  for (int r = 1; r < 4; ++r) EXPECT_FALSE(b.ranks[r].input.present);
  for (int r = 0; r < 4; ++r) EXPECT_EQ(texts(b.ranks[r].output, RedOp::sum), abcd);
  StepResult sc = step(Op::scatter);
  for (int r = 0; r < 4; ++r) EXPECT_EQ(texts(sc.ranks[r].output, RedOp::sum), one[r]);
  StepResult g = step(Op::gather);
  EXPECT_EQ(texts(g.ranks[0].output, RedOp::sum), abcd);
  for (int r = 0; r < 4; ++r) EXPECT_EQ(texts(g.ranks[r].input, RedOp::sum), one[r]);
  for (int r = 1; r < 4; ++r) EXPECT_FALSE(g.ranks[r].output.present);
  StepResult rd = step(Op::reduce);
  EXPECT_EQ(texts(rd.ranks[0].output, RedOp::sum), V{"Σ"});
  EXPECT_EQ(rd.ranks[0].output.labels[0].contributors, 0b1111u);
  StepResult ag = step(Op::all_gather);
  for (int r = 0; r < 4; ++r) EXPECT_EQ(texts(ag.ranks[r].output, RedOp::sum), abcd);
  StepResult rs = step(Op::reduce_scatter);
  EXPECT_EQ(texts(rs.ranks[1].input, RedOp::sum), (V{"B₀", "B₁", "B₂", "B₃"}));
  const char* sub[4] = {"₀", "₁", "₂", "₃"};
  for (int r = 0; r < 4; ++r)
    EXPECT_EQ(texts(rs.ranks[r].output, RedOp::sum), V{std::string("Σ") + sub[r]});
  StepResult ar = step(Op::all_reduce);
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(texts(ar.ranks[r].output, RedOp::sum), (V{"Σ₀", "Σ₁", "Σ₂", "Σ₃"}));
    for (const auto& l : ar.ranks[r].output.labels) EXPECT_EQ(l.contributors, 0b1111u);
  }
  StepResult a2a = step(Op::all_to_all);
  for (int r = 0; r < 4; ++r)
    EXPECT_EQ(texts(a2a.ranks[r].output, RedOp::sum),
              (V{std::string("A") + sub[r], std::string("B") + sub[r], std::string("C") + sub[r],
                 std::string("D") + sub[r]}));
  StepResult mx = realStep(makeSpec(Op::all_reduce, 4, 4, DType::f32, RedOp::max));
  EXPECT_EQ(texts(mx.ranks[0].output, RedOp::max), (V{"max₀", "max₁", "max₂", "max₃"}));
  // The rotated pattern makes max winners vary by element: no single winner.
  EXPECT_EQ(mx.ranks[0].output.labels[0].contributors, 0b1111u);
}

}  // namespace
}  // namespace collviz::test
