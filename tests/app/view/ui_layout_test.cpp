// Layout, labels, colours and trace sets of the diagrams, for every op and
// rank count, without GL.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>
#include <vector>

#include "app/view/diagram_layout.h"
#include "app/view/diagram_model.h"
#include "app/view/palette.h"
#include "app/view/trace.h"
#include "tests/app/view/view_spec.h"

namespace collviz::ui {
namespace {

const Op kOps[] = {Op::broadcast,  Op::scatter,        Op::gather,     Op::reduce,
                   Op::all_gather, Op::reduce_scatter, Op::all_reduce, Op::all_to_all};

std::vector<std::string> rowText(const DiagramModel& m, int column, int rank) {
  std::vector<std::string> out;
  for (const BlockLabel& l : m.columns[column].rows[rank].labels) out.push_back(l.text(m.spec.redop));
  return out;
}

using Row = std::vector<std::string>;
const Row kNone = {};

// ---- The article's table (N = 4, root R0, SUM) ------------------------------

TEST(DiagramModel, MatchesTheArticleForFourRanks) {
  struct Case {
    Op op;
    std::vector<Row> in, out;
  };
  const Row abcd = {"A", "B", "C", "D"};
  const std::vector<Case> cases = {
      {Op::broadcast, {abcd, kNone, kNone, kNone}, {abcd, abcd, abcd, abcd}},
      {Op::scatter, {abcd, kNone, kNone, kNone}, {{"A"}, {"B"}, {"C"}, {"D"}}},
      {Op::gather, {{"A"}, {"B"}, {"C"}, {"D"}}, {abcd, kNone, kNone, kNone}},
      {Op::reduce, {{"A"}, {"B"}, {"C"}, {"D"}}, {{"Σ"}, kNone, kNone, kNone}},
      {Op::all_gather, {{"A"}, {"B"}, {"C"}, {"D"}}, {abcd, abcd, abcd, abcd}},
      {Op::reduce_scatter,
       {{"A₀", "A₁", "A₂", "A₃"}, {"B₀", "B₁", "B₂", "B₃"}, {"C₀", "C₁", "C₂", "C₃"}, {"D₀", "D₁", "D₂", "D₃"}},
       {{"Σ₀"}, {"Σ₁"}, {"Σ₂"}, {"Σ₃"}}},
      {Op::all_to_all,
       {{"A₀", "A₁", "A₂", "A₃"}, {"B₀", "B₁", "B₂", "B₃"}, {"C₀", "C₁", "C₂", "C₃"}, {"D₀", "D₁", "D₂", "D₃"}},
       {{"A₀", "B₀", "C₀", "D₀"}, {"A₁", "B₁", "C₁", "D₁"}, {"A₂", "B₂", "C₂", "D₂"}, {"A₃", "B₃", "C₃", "D₃"}}},
  };
  for (const Case& c : cases) {
    DiagramModel m = buildModel(Program::single, spec(c.op, 4), nullptr);
    ASSERT_EQ(m.columns.size(), 2u);
    for (int r = 0; r < 4; ++r) {
      EXPECT_EQ(rowText(m, 0, r), c.in[r]) << name(c.op) << " input R" << r;
      EXPECT_EQ(rowText(m, 1, r), c.out[r]) << name(c.op) << " output R" << r;
      EXPECT_EQ(m.columns[1].rows[r].present, !c.out[r].empty());
    }
    EXPECT_TRUE(m.columns[1].expected);
    EXPECT_NE(m.columns[1].subtitle.find("not yet run"), std::string::npos);
  }
  DiagramModel ar = buildModel(Program::single, spec(Op::all_reduce, 4), nullptr);
  for (int r = 0; r < 4; ++r) EXPECT_EQ(rowText(ar, 1, r), (Row{"Σ₀", "Σ₁", "Σ₂", "Σ₃"}));
}

TEST(DiagramModel, DecompositionHasThreeStates) {
  DiagramModel m = buildModel(Program::all_reduce_decomposed, spec(Op::all_reduce, 4), nullptr);
  ASSERT_EQ(m.columns.size(), 3u);
  ASSERT_EQ(m.gaps.size(), 2u);
  EXPECT_EQ(m.gaps[0].kind, FlowKind::sum_node);
  EXPECT_EQ(m.gaps[1].kind, FlowKind::concat_node);
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(rowText(m, 1, r), Row{"Σ" + std::string(r == 0 ? "₀" : r == 1 ? "₁" : r == 2 ? "₂" : "₃")});
    EXPECT_EQ(rowText(m, 2, r), (Row{"Σ₀", "Σ₁", "Σ₂", "Σ₃"}));
    for (const BlockLabel& l : m.columns[2].rows[r].labels) EXPECT_EQ(l.contributors, 0xfu);
  }
}

// ---- Every op, every N: shapes follow the spec ------------------------------

TEST(DiagramModel, ShapesFollowTheSpecForEveryOpAndN) {
  for (Op op : kOps) {
    for (int n = 1; n <= 16; ++n) {
      int root = n / 2;
      OpSpec s = spec(op, n, root);
      DiagramModel m = buildModel(Program::single, s, nullptr);
      for (int r = 0; r < n; ++r) {
        EXPECT_EQ(int(m.columns[0].rows[r].labels.size()), inputBlocks(op, n, r, root));
        EXPECT_EQ(int(m.columns[1].rows[r].labels.size()), outputBlocks(op, n, r, root));
        EXPECT_EQ(m.columns[1].rows[r].refs, expectedOutputRefs(s, r));
        for (const BlockLabel& l : m.columns[1].rows[r].labels) {
          EXPECT_NE(l.kind, BlockLabel::Kind::unknown);
          if (reduces(op)) {
            EXPECT_EQ(l.kind, BlockLabel::Kind::reduced);
          }
        }
      }
    }
  }
}

// A fake result: the output column shows the backend's labels, not the oracle's.
std::shared_ptr<Snapshot> fakeSnapshot(const OpSpec& s) {
  auto snap = std::make_shared<Snapshot>();
  snap->seq = 7;
  snap->spec = s;
  snap->verified = false;
  StepResult step;
  step.spec = s;
  for (int r = 0; r < s.ranks; ++r) {
    RankResult rr;
    rr.rank = r;
    rr.input.present = inputBlocks(s.op, s.ranks, r, s.root) > 0;
    rr.input.labels = expectedInputLabels(s, r);
    rr.output.present = outputBlocks(s.op, s.ranks, r, s.root) > 0;
    for (int b = 0; b < outputBlocks(s.op, s.ranks, r, s.root); ++b) {
      BlockLabel l;
      l.kind = BlockLabel::Kind::unknown;  // bytes that decode to nothing
      l.bad = 3;
      l.decoded = true;
      rr.output.labels.push_back(l);
    }
    step.ranks.push_back(rr);
  }
  snap->steps.push_back(step);
  return snap;
}

TEST(DiagramModel, OutputLabelsComeFromTheSnapshot) {
  OpSpec s = spec(Op::all_gather, 4);
  DiagramModel m = buildModel(Program::single, s, fakeSnapshot(s));
  ASSERT_TRUE(m.ran());
  EXPECT_FALSE(m.columns[1].expected);
  EXPECT_EQ(rowText(m, 1, 2), (Row{"?", "?", "?", "?"}));
  EXPECT_NE(m.buffer(1, 2), nullptr);
  // A snapshot for another spec is not shown: the expected shape is.
  OpSpec other = s;
  other.ranks = 3;
  DiagramModel stale = buildModel(Program::single, other, fakeSnapshot(s));
  EXPECT_FALSE(stale.ran());
  EXPECT_EQ(rowText(stale, 1, 0), (Row{"A", "B", "C"}));
  // The root does not matter to all-gather.
  OpSpec moved = s;
  moved.root = 2;
  EXPECT_TRUE(snapshotMatches(*fakeSnapshot(s), Program::single, moved));
}

// ---- Trace sets --------------------------------------------------------------

TEST(Trace, AllToAllFollowsTheArticle) {
  DiagramModel m = buildModel(Program::single, spec(Op::all_to_all, 4), nullptr);
  TraceSets t = computeTrace(m, 2, TraceMode::reaches);
  ASSERT_TRUE(t.active);
  for (int r = 0; r < 4; ++r) {
    for (int b = 0; b < 4; ++b) {
      EXPECT_EQ(t.block(0, r, b), b == 2) << "input R" << r << " block " << b;
      EXPECT_EQ(t.block(1, r, b), r == 2) << "output R" << r << " block " << b;
    }
    for (int d = 0; d < 4; ++d) EXPECT_EQ(t.pair(0, r, d), d == 2);
  }
  TraceSets g = computeTrace(m, 1, TraceMode::goes);
  for (int r = 0; r < 4; ++r)
    for (int b = 0; b < 4; ++b) {
      EXPECT_EQ(g.block(0, r, b), r == 1);
      EXPECT_EQ(g.block(1, r, b), b == 1);
    }
  TraceSets all = computeTrace(m, -1, TraceMode::reaches);
  EXPECT_FALSE(all.active);
  EXPECT_TRUE(all.block(0, 3, 3));
}

TEST(Trace, NodesLightOnlyTheirRows) {
  DiagramModel m = buildModel(Program::single, spec(Op::reduce, 4), nullptr);
  TraceSets t = computeTrace(m, 2, TraceMode::goes);
  EXPECT_TRUE(t.intoNode(0, 2));
  EXPECT_FALSE(t.intoNode(0, 1));
  EXPECT_TRUE(t.fromNode(0, 0));
  EXPECT_TRUE(t.block(1, 0, 0));
  // Nothing reaches R3 in a reduce to R0.
  TraceSets none = computeTrace(m, 3, TraceMode::reaches);
  for (int r = 0; r < 4; ++r) EXPECT_FALSE(none.row(0, r));
}

// For every op, N and k: "reaches" lights exactly Rk's output and exactly
// the input blocks the oracle says feed it; "goes" the reverse.
TEST(Trace, MatchesTheOracleForEveryOpNAndRank) {
  for (Op op : kOps) {
    for (int n = 1; n <= 8; ++n) {
      OpSpec s = spec(op, n, n - 1);
      DiagramModel m = buildModel(Program::single, s, nullptr);
      for (int k = 0; k < n; ++k) {
        TraceSets reach = computeTrace(m, k, TraceMode::reaches);
        TraceSets goes = computeTrace(m, k, TraceMode::goes);
        std::vector<std::vector<bool>> feeds(n);
        for (int r = 0; r < n; ++r) feeds[r].assign(inputBlocks(op, n, r, s.root), false);
        for (const BlockRef& ref : expectedOutputRefs(s, k))
          for (int r = 0; r < n; ++r)
            if (ref.ranks & (1u << r)) feeds[r][ref.block] = true;
        for (int r = 0; r < n; ++r) {
          for (int b = 0; b < inputBlocks(op, n, r, s.root); ++b) {
            EXPECT_EQ(reach.block(0, r, b), feeds[r][b]) << name(op) << " n=" << n << " k=" << k;
            EXPECT_EQ(goes.block(0, r, b), r == k);
          }
          std::vector<BlockRef> refs = expectedOutputRefs(s, r);
          for (int b = 0; b < int(refs.size()); ++b) {
            EXPECT_EQ(reach.block(1, r, b), r == k);
            bool from_k = (refs[b].ranks & (1u << k)) && refs[b].block < inputBlocks(op, n, k, s.root);
            EXPECT_EQ(goes.block(1, r, b), from_k) << name(op) << " n=" << n << " k=" << k;
          }
        }
      }
    }
  }
}

// ---- Layout -----------------------------------------------------------------

Scene layout(const DiagramModel& m, int trace_rank = -1, Vec2 size = {1400, 800}) {
  ViewSettings v;
  v.trace_rank = trace_rank;
  TraceSets t = computeTrace(m, trace_rank, v.trace_mode);
  return layoutDiagram(m, t, v, makeTheme(ThemeKind::light), {size, 1.0f, nullptr});
}

int count(const Scene& s, uint32_t flag) {
  return int(std::count_if(s.tiles.begin(), s.tiles.end(), [&](const TileInstance& t) { return t.flags & flag; }));
}

TEST(Layout, EveryBlockHasATileInsideTheScene) {
  for (Op op : kOps) {
    for (int n : {1, 2, 3, 4, 5, 8, 16}) {
      DiagramModel m = buildModel(Program::single, spec(op, n), nullptr);
      Scene s = layout(m);
      size_t blocks = 0, absent = 0;
      for (const ColumnModel& c : m.columns)
        for (const RowModel& r : c.rows) blocks += r.labels.size(), absent += !r.present;
      EXPECT_EQ(s.hits.size(), blocks) << name(op) << " n=" << n;
      // Dashed boxes are exactly the rows without a buffer, plus the
      // legend's key that explains them (only where there are some).
      EXPECT_EQ(count(s, kTileDashed), int(absent) + (absent > 0 ? 1 : 0));
      for (const HitBox& h : s.hits) {
        EXPECT_GE(h.rect.x, 0);
        EXPECT_LE(h.rect.x + h.rect.w, s.width + 0.5f);
        EXPECT_GT(h.rect.w, 5);
      }
      // Tiles of one row do not overlap; rows do not overlap.
      for (size_t i = 1; i < s.hits.size(); ++i) {
        const HitBox &a = s.hits[i - 1], &b = s.hits[i];
        if (a.column == b.column && a.row == b.row) {
          EXPECT_LE(a.rect.x + a.rect.w, b.rect.x);
        }
        if (a.column == b.column && a.row + 1 == b.row) {
          EXPECT_LE(a.rect.y + a.rect.h, b.rect.y);
        }
      }
    }
  }
}

TEST(Layout, FlowsFollowTheKind) {
  auto curves = [](Op op, int n) { return layout(buildModel(Program::single, spec(op, n), nullptr)).curves.size(); };
  EXPECT_EQ(curves(Op::all_to_all, 4), 16u);  // one per (source, destination)
  EXPECT_EQ(curves(Op::broadcast, 4), 4u);    // fan out of the root
  EXPECT_EQ(curves(Op::scatter, 4), 4u);
  EXPECT_EQ(curves(Op::gather, 4), 4u);       // fan in to the root
  EXPECT_EQ(curves(Op::reduce, 4), 5u);       // 4 into "+", 1 out
  EXPECT_EQ(curves(Op::all_gather, 4), 8u);   // 4 into the join, 4 out
  EXPECT_EQ(curves(Op::all_reduce, 8), 16u);
  EXPECT_EQ(curves(Op::all_to_all, 8), 64u);
  Scene ag = layout(buildModel(Program::single, spec(Op::all_gather, 4), nullptr));
  EXPECT_EQ(count(ag, kTileStripesFull), 1);  // the join node, four stripes
  for (const TileInstance& t : ag.tiles)
    if (t.flags & kTileStripesFull) {
      EXPECT_EQ(t.stripes, 0xfu);
    }
}

TEST(Layout, ReducedBlocksAreNeutralWithContributorStripes) {
  Theme th = makeTheme(ThemeKind::light);
  Scene s = layout(buildModel(Program::single, spec(Op::reduce_scatter, 4), nullptr));
  int striped = 0;
  for (const TileInstance& t : s.tiles) {
    if (!(t.flags & kTileStripes)) continue;
    ++striped;
    EXPECT_EQ(t.stripes, 0xfu);
    EXPECT_NEAR(t.fill.r, th.neutral_fill.r, 1e-6);
  }
  EXPECT_EQ(striped, 4 + 1);  // four Σᵢ plus the legend's Σ₀
}

TEST(Layout, SourceTilesAreTintsWithFullColourBorders) {
  Theme th = makeTheme(ThemeKind::light);
  Scene s = layout(buildModel(Program::single, spec(Op::all_to_all, 4), nullptr));
  bool found = false;
  for (const TileInstance& t : s.tiles) {
    if (t.border == letterColor(2)) {
      found = true;
      EXPECT_EQ(t.fill, tileFill(th, 2));
    }
  }
  EXPECT_TRUE(found);
}

TEST(Layout, RootLabelIsBold) {
  Scene s = layout(buildModel(Program::single, spec(Op::gather, 4, 2), nullptr));
  for (const TextItem& t : s.texts) {
    if (t.text == "R2") {
      EXPECT_EQ(t.style, TextStyle::bold);
    }
    if (t.text == "R1") {
      EXPECT_EQ(t.style, TextStyle::regular);
    }
  }
}

TEST(Layout, TraceFadesWhatDoesNotReachTheRank) {
  DiagramModel m = buildModel(Program::single, spec(Op::all_to_all, 4), nullptr);
  m.columns[1].expected = false;  // as after a run: the output is not faded as "not yet run"
  Scene all = layout(m);
  Scene traced = layout(m, 1);
  ASSERT_EQ(all.tiles.size(), traced.tiles.size());
  int faded = 0, bright = 0;
  for (size_t i = 0; i < traced.tiles.size(); ++i) {
    if (traced.tiles[i].border.a < 0.3f) ++faded;
    else ++bright;
  }
  // Input: 4 of 16 blocks stay; output: row R1's 4 of 16.
  EXPECT_EQ(faded, 24);
  int lit_curves = 0;
  for (const CurveInstance& c : traced.curves) lit_curves += c.color.a > 0.5f;
  EXPECT_EQ(lit_curves, 4);
  for (const CurveInstance& c : traced.curves)
    if (c.color.a > 0.5f) {
      EXPECT_GT(c.width, all.curves[0].width);
    }
}

TEST(Layout, OutputNotYetRunIsFaded) {
  Scene s = layout(buildModel(Program::single, spec(Op::all_gather, 4), nullptr));
  bool marked = false;
  for (const TextItem& t : s.texts) marked = marked || t.text.find("not yet run") != std::string::npos;
  EXPECT_TRUE(marked);
  OpSpec sp = spec(Op::all_gather, 4);
  Scene ran = layout(buildModel(Program::single, sp, fakeSnapshot(sp)));
  EXPECT_EQ(ran.bad_blocks, 16);  // every output block of the fake is bad
  for (const TextItem& t : ran.texts) EXPECT_EQ(t.text.find("not yet run"), std::string::npos);
}

TEST(Layout, HeadingsNameTheOp) {
  Heading h = headingFor(Program::single, Op::all_to_all);
  EXPECT_EQ(h.number, "08");
  EXPECT_EQ(h.title, "All-to-all");
  EXPECT_EQ(h.phrase, "exchange by column");
  EXPECT_EQ(headingFor(Program::all_reduce_decomposed, Op::all_reduce).title,
            "All-reduce = Reduce-scatter + All-gather");
}

// ---- Palette ----------------------------------------------------------------

struct Lab {
  double L, a, b;
};

double linear(double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); }

Lab toLab(double r, double g, double b) {  // linear sRGB in
  double x = 0.4124 * r + 0.3576 * g + 0.1805 * b, y = 0.2126 * r + 0.7152 * g + 0.0722 * b,
         z = 0.0193 * r + 0.1192 * g + 0.9505 * b;
  auto f = [](double t) { return t > 0.008856 ? std::cbrt(t) : 7.787 * t + 16.0 / 116; };
  double fx = f(x / 0.9505), fy = f(y), fz = f(z / 1.089);
  return {116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)};
}

// Machado et al. 2009, severity 1.0, on linear RGB.
Lab simulate(Rgba c, int kind) {
  static const double kM[3][9] = {
      {1, 0, 0, 0, 1, 0, 0, 0, 1},
      {0.367322, 0.860646, -0.227968, 0.280085, 0.672501, 0.047413, -0.011820, 0.042940, 0.968881},
      {0.152286, 1.052583, -0.204868, 0.114503, 0.786281, 0.099216, -0.003882, -0.048116, 1.051998},
  };
  const double* m = kM[kind];
  double r = linear(c.r), g = linear(c.g), b = linear(c.b);
  auto cl = [](double v) { return std::clamp(v, 0.0, 1.0); };
  return toLab(cl(m[0] * r + m[1] * g + m[2] * b), cl(m[3] * r + m[4] * g + m[5] * b),
               cl(m[6] * r + m[7] * g + m[8] * b));
}

double deltaE(Lab x, Lab y) { return std::hypot(x.L - y.L, x.a - y.a, x.b - y.b); }

double minDistance(int colours, int kind) {
  double best = 1e9;
  for (int i = 0; i < colours; ++i)
    for (int j = i + 1; j < colours; ++j)
      best = std::min(best, deltaE(simulate(letterColor(i), kind), simulate(letterColor(j), kind)));
  return best;
}

TEST(Palette, ArticleColoursComeFirst) {
  Rgba a = letterColor(0), b = letterColor(1), c = letterColor(2), d = letterColor(3);
  EXPECT_GT(a.b, a.r);                      // A blue
  EXPECT_GT(b.g, b.r);  // B sage green
  EXPECT_GT(b.g, b.b);
  EXPECT_GT(c.r, c.g);  // C ochre
  EXPECT_GT(c.g, c.b);
  EXPECT_GT(d.r, d.g);  // D rose
  EXPECT_GT(d.b, d.g);
  EXPECT_EQ(letterColor(16), letterColor(0));
}

TEST(Palette, DistinguishableForEightRanksAlsoForColourBlindViewers) {
  // CIE76 distances: ~2.3 is a just-noticeable difference; tiles also carry
  // their letter, so colour is never the only cue.
  EXPECT_GE(minDistance(8, 0), 20.0);  // normal vision
  EXPECT_GE(minDistance(8, 1), 12.0);  // protanopia
  EXPECT_GE(minDistance(8, 2), 12.0);  // deuteranopia
  for (int kind = 0; kind < 3; ++kind) EXPECT_GE(minDistance(16, kind), 9.0);  // all sixteen
}

}  // namespace
}  // namespace collviz::ui
