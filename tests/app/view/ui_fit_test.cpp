// The fitted layout (app/view/fit.h) without GL: every op, the
// decomposition and algorithm rounds at the window and slide sizes, UI
// scales and rank counts a lecture meets. Nothing overlaps, everything lies
// inside the view, block labels grow with the view and none is drawn under
// 11 px; and the abbreviation rule for long partial sums (label_text.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "app/view/diagram_layout.h"
#include "app/view/fit.h"
#include "app/view/label_text.h"
#include "app/view/round_layout.h"
#include "app/view/round_model.h"
#include "app/view/trace.h"

namespace collviz::ui {
namespace {

const Op kOps[] = {Op::broadcast,  Op::scatter,        Op::gather,     Op::reduce,
                   Op::all_gather, Op::reduce_scatter, Op::all_reduce, Op::all_to_all};

struct Case {
  std::string name;
  std::function<Scene(float u, Vec2 size, float ui)> layout;
};

OpSpec specOf(Op op, int n) {
  OpSpec s;
  s.op = op;
  s.ranks = n;
  s.root = 0;
  return s;
}

Case opCase(Program program, Op op, int n) {
  const OpSpec s = specOf(op, n);
  return {std::string(program == Program::single ? name(op) : "decomposition") + " N=" + std::to_string(n),
          [=](float u, Vec2 size, float ui) {
            const DiagramModel m = buildModel(program, s, nullptr);
            const TraceSets t = computeTrace(m, -1, TraceMode::reaches);
            return layoutDiagram(m, t, ViewSettings{}, makeTheme(ThemeKind::light), {size, u, nullptr, ui});
          }};
}

Case roundCase(Op op, const std::string& algo, int n, int round, bool in_file = false) {
  const OpSpec s = specOf(op, n);
  return {algo + " " + std::string(name(op)) + " N=" + std::to_string(n) + " round " + std::to_string(round),
          [=](float u, Vec2 size, float ui) {
            const RoundModel rm = buildRoundModel(s, algo, round, nullptr);
            const DiagramModel dm = roundDiagramModel(rm);
            ViewSettings v;
            v.algo = algo;
            v.round = round;
            v.in_file = v.hide_times = in_file;
            return layoutRounds(rm, dm, v, makeTheme(ThemeKind::light), {size, u, nullptr, ui});
          }};
}

std::vector<Case> casesFor(int n) {
  std::vector<Case> out;
  for (Op op : kOps) out.push_back(opCase(Program::single, op, n));
  out.push_back(opCase(Program::all_reduce_decomposed, Op::all_reduce, n));
  out.push_back(roundCase(Op::all_reduce, "ring", n, std::max(1, n - 1)));
  out.push_back(roundCase(Op::all_to_all, "bruck", n, 1));
  return out;
}

// The scene at the scale the fit picks for `size` and `ui`.
Scene fitted(const Case& c, Vec2 size, float ui) {
  const float u = fitScale([&](float s) { return c.layout(s, size, ui); }, {size, ui, nullptr});
  return c.layout(u, size, ui);
}

// Every way the scene can go wrong; empty when none.
std::string problems(const Scene& s, Vec2 size) {
  std::string out;
  for (const Region& r : s.regions)
    if (r.rect.x < -0.5f || r.rect.y < -0.5f || r.rect.x + r.rect.w > size.x + 0.5f || r.rect.y + r.rect.h > size.y + 0.5f)
      out += r.name + " outside the view; ";
  const Rect b = sceneBounds(s, nullptr);
  if (b.x < -0.5f || b.y < -0.5f || b.x + b.w > size.x + 0.5f || b.y + b.h > size.y + 0.5f)
    out += "outside the view (" + std::to_string(b.x) + "," + std::to_string(b.y) + " " +
           std::to_string(b.w) + "x" + std::to_string(b.h) + "); ";
  for (std::size_t i = 0; i < s.regions.size(); ++i)
    for (std::size_t j = i + 1; j < s.regions.size(); ++j)
      if (overlaps(s.regions[i].rect, s.regions[j].rect))
        out += s.regions[i].name + " overlaps " + s.regions[j].name + "; ";
  std::vector<Rect> boxes;
  for (const TextItem& t : s.texts) boxes.push_back(textBox(t, nullptr));
  for (std::size_t i = 0; i < boxes.size(); ++i)
    for (std::size_t j = i + 1; j < boxes.size(); ++j)
      if (overlaps(boxes[i], boxes[j], 1.0f))
        return out + "text '" + s.texts[i].text + "' overlaps '" + s.texts[j].text + "'; ";
  // A block's label (centred on its tile) lies inside the tile.
  for (const HitBox& h : s.hits)
    for (std::size_t i = 0; i < boxes.size(); ++i)
      if (h.rect.contains(s.texts[i].anchor) && std::abs(s.texts[i].anchor.x - h.rect.center().x) < 0.5f) {
        const Rect& r = boxes[i];
        if (r.x < h.rect.x - 0.5f || r.x + r.w > h.rect.x + h.rect.w + 0.5f)
          out += "label '" + s.texts[i].text + "' wider than its tile; ";
      }
  return out;
}

// No block label under 11 px, at 1x and where the view holds the figure at
// a larger UI scale. Known exception (see the closing note of issue 20): at
// 1024x640 with 16 ranks, the decomposition's three columns and the
// algorithm rounds' 16 slots a row beside their link view fit only with
// labels from 8 px (6.5 px since the side parts keep 11 px texts).
std::string smallLabels(const Scene& s, Vec2 size, float ui, const std::string& name = "") {
  float least = 11;
  if (size.x < 1600 && name.find("N=16") != std::string::npos) {
    if (ui > 1) return "";  // 16 rows at 1.5x or 2x in 640 px: shrunk to fit
    if (name.find("decomposition") != std::string::npos) least = 7.5f;
    // The algorithm rounds' side parts keep their texts at 11 px (issue 37),
    // which leaves ring's 16 slots a row 6.5 px labels here.
    if (name.find("round") != std::string::npos) least = 6.5f;
  }
  return s.label_px_min < least ? "a label of " + std::to_string(s.label_px_min) + " px" : "";
}

// The fit refuses a scale at which two of a figure's parts (layout_rows'
// named regions: the grid, the legend, the footer…) overlap, even when both
// lie inside the view. At the sizes the layouts are tested at, the parts
// never collide (the test below), so the rule is held here on a scene made
// for it: deleting it fails this test.
TEST(Fit, OverlappingPartsDoNotFit) {
  const MeasureText measure = [](const std::string& s, TextStyle, float px) { return float(s.size()) * px * 0.5f; };
  Scene s;
  s.width = 800;
  s.height = 600;
  s.regions.push_back({{10, 10, 400, 300}, "grid"});
  s.regions.push_back({{500, 10, 200, 300}, "legend"});
  EXPECT_TRUE(sceneFits(s, {800, 600}, measure));
  s.regions[1].rect.x = 300;  // the legend over the grid's right side
  EXPECT_FALSE(sceneFits(s, {800, 600}, measure)) << "parts that overlap were taken to fit";
}

TEST(Fit, NothingOverlapsAtAnySizeScaleAndRankCount) {
  const Vec2 sizes[] = {{1024, 640}, {1600, 1000}, {1920, 1080}, {3840, 2160}};
  for (int n : {2, 4, 8, 16})
    for (const Case& c : casesFor(n))
      for (Vec2 size : sizes)
        for (float ui : {1.0f, 1.5f, 2.0f}) {
          const Scene s = fitted(c, size, ui);
          EXPECT_EQ(problems(s, size) + smallLabels(s, size, ui, c.name), "")
              << c.name << " at " << size.x << "x" << size.y << " scale " << ui << " (fitted " << s.scale << ")";
        }
}

TEST(Fit, LabelsGrowWithTheView) {
  // Today's figure at 1200x700 (laid out at the UI scale, 16 px labels)
  // against the fitted one at 1920x1080, panels hidden.
  for (int n : {2, 4, 8}) {
    for (const Case& c : casesFor(n)) {
      const float before = c.layout(1.0f, {1200, 700}, 1.0f).label_px_min;
      const float after = fitted(c, {1920, 1080}, 1.0f).label_px_min;
      // The ops and the decomposition: 1.8x. The algorithm view shares its
      // width with the link view and its texts: 1.5x.
      const bool rounds = c.name.find("round") != std::string::npos;
      if (n == 4) std::printf("figure: %s block labels %.1f px at 1200x700 today, %.1f px fitted at 1920x1080\n", c.name.c_str(), before, after);
      if (n == 4) EXPECT_GE(after, (rounds ? 1.5f : 1.8f) * before) << c.name << ": " << before << " px -> " << after << " px";
      const float big = fitted(c, {3840, 2160}, 1.0f).label_px_min;
      EXPECT_GE(big, 1.6f * after) << c.name << " at 3840x2160: " << big << " px against " << after;
    }
  }
}

TEST(Fit, BroadcastTilesFillTheLectureScreen) {
  // The lecture window at 1920x1080 full screen against today's 1600x1000
  // window with its panels (a diagram area of about 1270x700).
  const Case c = opCase(Program::single, Op::broadcast, 4);
  const Scene before = c.layout(1.0f, {1270, 700}, 1.0f);
  const Scene after = fitted(c, {1920, 960}, 1.0f);  // the caption below takes the rest
  std::printf("figure: broadcast N=4 tile %.0fx%.0f px today (1270x700 area), %.0fx%.0f px fitted at 1920x960 (%.1fx the area)\n",
              before.tile_w, before.tile_h, after.tile_w, after.tile_h,
              after.tile_w * after.tile_h / (before.tile_w * before.tile_h));
  EXPECT_GE(after.tile_w * after.tile_h, 3 * before.tile_w * before.tile_h)
      << before.tile_w << "x" << before.tile_h << " -> " << after.tile_w << "x" << after.tile_h;
}

TEST(Fit, ZoomAndScaleMultiplyTheFit) {
  const Case c = opCase(Program::single, Op::all_reduce, 4);
  auto scale = [&](Vec2 size, float ui) {
    return fitScale([&](float s) { return c.layout(s, size, ui); }, {size, ui, nullptr});
  };
  // The same view twice as large in pixels at twice the UI scale: the same
  // figure, twice as large.
  EXPECT_NEAR(scale({3200, 2000}, 2.0f), 2 * scale({1600, 1000}, 1.0f), 0.02f);
}

// Issue 37: the algorithm view's side parts (link view, bytes, times) are
// counted by the fit too: at 1x none of their texts is under 11 px, in a
// 1200x600 figure and a 1024x640 window, whether the parts stand beside the
// grid or under it. (Before: the bytes panel's labels about 6 px, its
// formula 8 px, in a 1200x600 figure of a ring round.)
TEST(Fit, SidePanelTextsAreReadableInSmallFigures) {
  const Vec2 sizes[] = {{1200, 600}, {1024, 640}};
  for (int n : {2, 4, 8})
    for (bool in_file : {true, false})
      for (const Case& c : {roundCase(Op::all_reduce, "ring", n, 2, in_file), roundCase(Op::all_to_all, "bruck", n, 1, in_file)})
        for (Vec2 size : sizes) {
          const Scene s = fitted(c, size, 1.0f);
          const std::string where = c.name + (in_file ? " (a file)" : " (the window)") + " at " +
                                    std::to_string(int(size.x)) + "x" + std::to_string(int(size.y));
          int counted = 0;
          for (const Region& r : s.regions) {
            if (r.name != "links" && r.name != "bytes" && r.name != "times") continue;
            for (const TextItem& t : s.texts) {
              if (!r.rect.contains(t.anchor)) continue;
              ++counted;
              EXPECT_GE(t.size, 11.0f - 0.01f) << where << ": " << r.name << " text '" << t.text << "' at " << t.size << " px";
            }
          }
          EXPECT_GT(counted, 4) << where << ": no side panel texts found";
          EXPECT_EQ(problems(s, size), "") << where;
        }
}

// ---- the abbreviation rule ------------------------------------------------

BlockLabel partial(uint32_t contributors, int shard) {
  BlockLabel l;
  l.kind = BlockLabel::Kind::reduced;
  l.partial = true;
  l.contributors = contributors;
  l.shard = shard;
  return l;
}

TEST(LabelForms, RunsRangesAndCounts) {
  using V = std::vector<std::string>;
  EXPECT_EQ(labelForms(partial(0b1111, 3), RedOp::sum, 8), (V{"A₃+B₃+C₃+D₃", "Σ{A–D}₃", "Σ(4)₃", "Σ…₃"}));
  // C, D, A: a run that wraps past the last rank of four.
  EXPECT_EQ(labelForms(partial(0b1101, 1), RedOp::sum, 4), (V{"A₁+C₁+D₁", "Σ{C–A}₁", "Σ(3)₁", "Σ…₁"}));
  // The same set among eight ranks is no run.
  EXPECT_EQ(labelForms(partial(0b1101, 1), RedOp::sum, 8), (V{"A₁+C₁+D₁", "A+C+…(3)₁", "Σ(3)₁", "Σ…₁"}));
  EXPECT_EQ(labelForms(partial(0b10101, 0), RedOp::prod, 8), (V{"A₀·C₀·E₀", "A·C·…(3)₀", "Π(3)₀", "Π…₀"}));
  EXPECT_EQ(labelForms(partial(0b10101, 0), RedOp::max, 8)[1], "max{A,C,…}(3)₀");
  // Two contributors: no range; a whole reduction, a source block: one form.
  EXPECT_EQ(labelForms(partial(0b11, 2), RedOp::sum, 4), (V{"A₂+B₂", "Σ(2)₂", "Σ…₂"}));
  BlockLabel whole = partial(0b1111, 1);
  whole.partial = false;
  EXPECT_EQ(labelForms(whole, RedOp::sum, 4), (V{"Σ₁"}));
  BlockLabel src;
  src.kind = BlockLabel::Kind::source;
  src.letter = 2;
  src.shard = 5;
  EXPECT_EQ(labelForms(src, RedOp::sum, 8), (V{"C₅"}));
}

TEST(LabelForms, RingOfSixteenNeverShrinksALabelBelowElevenPixels) {
  // Every round of ring all-reduce at N = 16, fitted to a slide: each label
  // fits its tile (no label narrower than its text) at 11 px or more.
  for (int round = 1; round <= 30; ++round) {
    const Case c = roundCase(Op::all_reduce, "ring", 16, round);
    const Scene s = fitted(c, {1920, 1080}, 1.0f);
    EXPECT_EQ(problems(s, {1920, 1080}) + smallLabels(s, {1920, 1080}, 1), "") << c.name;
  }
}

}  // namespace
}  // namespace collviz::ui
