// Each op's exported image has the expected rows and coloured blocks: the
// layout code says where every row box and block tile is (for a verified
// result the labels are the oracle's), and the pixels there must have the
// tile's colour; a reduced block's stripes the contributors' colours.
#include <gtest/gtest.h>
#include <imgui.h>

#include <bit>

#include "app/gl/diagram_view.h"
#include "app/gl/fonts.h"
#include "app/view/fit.h"
#include "tests/app/export/export_support.h"
#include "tests/label_parse.h"

#include <nlohmann/json.hpp>

namespace collviz::test {
namespace {

using namespace collviz::ui;

struct ImGuiFonts {
  ImGuiContext* ctx = ImGui::CreateContext();
  Fonts fonts;
  ImGuiFonts() { fonts.load(1.0f); }
  ~ImGuiFonts() { ImGui::DestroyContext(ctx); }
};

struct OpCase {
  const char* arg;
  Program program;
  Op op;
};

class OpImage : public ::testing::TestWithParam<OpCase> {};

// Max channel distance between a pixel and a colour.
int distance(const uint8_t* p, Rgba c) {
  auto ch = [](float v) { return int(std::clamp(v, 0.0f, 1.0f) * 255.0f + 0.5f); };
  return std::max({std::abs(p[0] - ch(c.r)), std::abs(p[1] - ch(c.g)), std::abs(p[2] - ch(c.b))});
}

TEST_P(OpImage, HasTheRowsAndColouredBlocks) {
  const OpCase c = GetParam();
  const int W = 900, H = 560, N = 4;
  std::string dir = freshDir(std::string("ops_") + c.arg);
  std::string out = dir + "/op.png";
  RunResult r = collviz(std::string("export --op ") + c.arg + " --ranks 4 --backend gloo --size " +
                        std::to_string(W) + "x" + std::to_string(H) + " --no-status -o " + out);
  ASSERT_EQ(r.rc, 0) << r.out;
  Png png = loadPng(out);
  ASSERT_EQ(png.width, W);
  ASSERT_EQ(png.height, H);

  // The same layout the export drew, from the oracle's shapes marked as run.
  ImGuiFonts f;
  OpSpec spec;
  spec.op = c.op;
  spec.ranks = N;
  DiagramModel model = buildModel(c.program, spec, nullptr);
  for (ColumnModel& col : model.columns) {
    col.expected = false;
    for (const std::string tail : {" · not yet run", "not yet run"})
      if (const auto at = col.subtitle.find(tail); at != std::string::npos) col.subtitle.erase(at);
  }
  ViewSettings view;
  const Theme theme = makeTheme(ThemeKind::light);
  LayoutParams lp{{float(W), float(H)}, 1.0f, [&f](const std::string& t, TextStyle s, float size) {
                    return f.fonts.measure(t, s, size);
                  }};
  // At the scale the export's fit picked (app/view/fit.h).
  const TraceSets trace = computeTrace(model, -1, view.trace_mode);
  auto layoutAt = [&](float u) {
    LayoutParams q = lp;
    q.scale = u;
    return layoutDiagram(model, trace, view, theme, q);
  };
  Scene scene = layoutAt(fitScale(layoutAt, {lp.size, 1.0f, lp.measure}));

  // Rows: every column has N row boxes (present: the box colour in its
  // padding; absent: a dashed box, background inside).
  int rows = 0;
  for (const TileInstance& t : scene.tiles) {
    // The legend's small dashed key (what a dashed box means) is not a row.
    bool dashed = (t.flags & kTileDashed) && t.rect.h > 30;
    bool row_box = !dashed && t.fill == theme.row_box && t.rect.h > 20 && t.rect.w > 40 &&
                   t.rect.y > 100;  // below the legend strip
    if (!dashed && !row_box) continue;
    ++rows;
    const uint8_t* p = png.at(int(t.rect.x + 3), int(t.rect.center().y));
    EXPECT_LE(distance(p, dashed ? theme.background : theme.row_box), 8)
        << (dashed ? "dashed" : "row") << " box at " << t.rect.x << "," << t.rect.y;
  }
  EXPECT_EQ(rows, int(model.columns.size()) * N);

  // Blocks: tile fill away from the label, and the contributor stripes.
  int blocks = 0;
  for (const HitBox& h : scene.hits) {
    const TileInstance* t = nullptr;
    for (const TileInstance& ti : scene.tiles)
      if (ti.rect.x == h.rect.x && ti.rect.y == h.rect.y && ti.rect.w == h.rect.w) t = &ti;
    ASSERT_NE(t, nullptr);
    ++blocks;
    const Rect& rc = t->rect;
    const uint8_t* p = png.at(int(rc.x + rc.w * 0.14f), int(rc.y + rc.h * 0.3f));
    EXPECT_LE(distance(p, t->fill), 10) << "block col " << h.column << " row " << h.row << " #" << h.block;
    if (t->flags & kTileStripes) {
      const int n = std::popcount(t->stripes);
      const float band = std::max(3.0f, 0.17f * rc.h), seg = (rc.w - 2 * t->border_width) / n;
      const int y = int(rc.y + rc.h - t->border_width - band / 2);
      for (int k = 0, bit = 0; k < n; ++bit) {
        if (!(t->stripes & (1u << bit))) continue;
        const uint8_t* s = png.at(int(rc.x + t->border_width + seg * (k + 0.5f)), y);
        EXPECT_LE(distance(s, letterColor(bit)), 12) << "stripe " << k << " of a reduced block";
        ++k;
      }
    }
  }
  int want = 0;
  for (const ColumnModel& col : model.columns)
    for (const RowModel& row : col.rows) want += int(row.labels.size());
  EXPECT_EQ(blocks, want);
  EXPECT_GT(blocks, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Ops, OpImage,
    ::testing::Values(OpCase{"broadcast", Program::single, Op::broadcast},
                      OpCase{"scatter", Program::single, Op::scatter},
                      OpCase{"gather", Program::single, Op::gather},
                      OpCase{"reduce", Program::single, Op::reduce},
                      OpCase{"all_gather", Program::single, Op::all_gather},
                      OpCase{"reduce_scatter", Program::single, Op::reduce_scatter},
                      OpCase{"all_reduce", Program::single, Op::all_reduce},
                      OpCase{"all_to_all", Program::single, Op::all_to_all},
                      OpCase{"all_reduce_decomposed", Program::all_reduce_decomposed, Op::all_reduce}),
    [](const ::testing::TestParamInfo<OpCase>& i) { return std::string(i.param.arg); });

// The rank rows of an exported SVG ("R0 …" up to the footer): each row's
// texts after the rank name.
std::vector<std::vector<std::string>> rankRows(const std::string& svg, int ranks) {
  std::vector<std::vector<std::string>> out;
  for (const auto& row : svgRows(svg))
    for (int r = 0; r < ranks; ++r)
      if (!row.empty() && row[0] == "R" + std::to_string(r))
        out.emplace_back(row.begin() + 1, row.end());
  return out;
}

// The article's facts, read from an exported picture's labels: all-to-all
// exchanges by column (rank i's output is A_i B_i C_i D_i).
TEST(OpLabels, AllToAllExchangesByColumn) {
  const std::string out = freshDir("oplabels") + "/a2a.svg";
  RunResult r = collviz("export --op all_to_all --ranks 4 --backend gloo --size 900x560 -o " + out);
  ASSERT_EQ(r.rc, 0) << r.out;
  const auto rows = rankRows(readFile(out), 4);
  ASSERT_EQ(rows.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    std::vector<std::string> want;
    const char* sub[] = {"₀", "₁", "₂", "₃"};
    for (int j = 0; j < 4; ++j) want.push_back(std::string(1, char('A' + i)) + sub[j]);  // input
    for (int j = 0; j < 4; ++j) want.push_back(std::string(1, char('A' + j)) + sub[i]);  // output
    EXPECT_EQ(rows[i], want) << "rank " << i;
  }
}

// Labels equal their bytes in the SVG a reader gets (tests/label_parse.h):
// every output label of every op, parsed back into contributors and block,
// against the values `collviz run --json` returns for the same spec.
TEST(OpLabels, EverySvgOutputLabelEqualsItsBytes) {
  const std::string dir = freshDir("svglabels");
  for (int o = 0; o < kOpCount; ++o) {
    const Op op = Op(o);
    const OpSpec s = makeSpec(op, 4, 2, DType::f64, RedOp::sum, usesRoot(op) ? 2 : 0);
    SCOPED_TRACE(describe(s));
    const std::string spec = "--op " + std::string(name(op)) + " --ranks 4 --elems 2 --dtype f64 "
                             "--root " + std::to_string(s.root) + " --backend gloo ";
    const std::string svg = dir + "/" + std::string(name(op)) + ".svg";
    RunResult e = collviz("export " + spec + "-o " + svg);
    ASSERT_EQ(e.rc, 0) << e.out;
    RunResult r = collviz("run " + spec + "--json 2>/dev/null");
    ASSERT_EQ(r.rc, 0) << r.out;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    const auto rows = rankRows(readFile(svg), 4);
    ASSERT_EQ(rows.size(), 4u);
    const TestPattern tp = testPattern(s);
    for (int rank = 0; rank < 4; ++rank) {
      const int blocks = outputBlocks(op, 4, rank, s.root);
      ASSERT_GE(int(rows[std::size_t(rank)].size()), blocks) << "rank " << rank;
      if (!blocks) continue;
      const std::vector<double> v = j["steps"][0]["ranks"][rank]["output"].get<std::vector<double>>();
      BufferView buf;
      buf.present = true;
      buf.bytes.resize(v.size() * sizeof(double));
      std::memcpy(buf.bytes.data(), v.data(), buf.bytes.size());
      for (int k = 0; k < blocks; ++k) {
        const std::string& label = rows[std::size_t(rank)][rows[std::size_t(rank)].size() - std::size_t(blocks - k)];
        EXPECT_EQ(labelMatchesBytes(label, s, tp, buf, k), "") << "SVG rank " << rank << " output " << k;
      }
    }
  }
}

// Every COLLVIZ_FAULT mode, exported: the export exits 1, the picture marks
// the bad blocks ("!") and says how many elements are wrong.
TEST(Faults, AnExportMarksEveryInjectedFault) {
  const std::string dir = freshDir("faults");
  struct Case {
    const char* fault;
    std::vector<std::string> rank1;  // rank 1's row (input, then output)
    int marks;                       // "!" on the picture
  };
  const Case cases[] = {
      {"skip", {"B₀", "B₁", "B₂", "B₃", "?", "?", "?", "?"}, 16},
      {"skip_after_first", {"B₀", "B₁", "B₂", "B₃", "?", "?", "?", "?"}, 16},
      {"rank:1,corrupt", {"B₀", "B₁", "B₂", "B₃", "Σ₀", "Σ₁", "Σ₂", "Σ₃"}, 1},
      {"rank:1,swap", {"B₀", "B₁", "B₂", "B₃", "Σ₃", "Σ₁", "Σ₂", "Σ₀"}, 2},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.fault);
    const std::string out = dir + "/" + std::string(c.fault).substr(std::string(c.fault).find(',') + 1) + ".svg";
    RunResult r = collviz("export --op all_reduce --ranks 4 --backend gloo -o " + out,
                          std::string("env COLLVIZ_FAULT=") + c.fault);
    EXPECT_EQ(r.rc, 1) << r.out;
    EXPECT_NE(r.out.find("NOT VERIFIED"), std::string::npos) << r.out;
    const std::string svg = readFile(out);
    const auto rows = rankRows(svg, 4);
    ASSERT_EQ(rows.size(), 4u);
    EXPECT_EQ(rows[1], c.rank1);
    int marks = 0;
    for (std::size_t at = 0; (at = svg.find(">!</text>", at)) != std::string::npos; ++at) ++marks;
    EXPECT_EQ(marks, c.marks);
    EXPECT_NE(svg.find(" wrong elements</text>"), std::string::npos);
    EXPECT_EQ(svg.find("✓"), std::string::npos) << "a check mark next to wrong elements";
    EXPECT_EQ(svg.find("verified against the oracle"), std::string::npos);
    EXPECT_NE(svg.find("block(s) marked !</text>"), std::string::npos);
    EXPECT_NE(svg.find("a fault injected on purpose"), std::string::npos);
  }
  RunResult hung = collviz("export --op all_reduce --ranks 4 --backend gloo --deadline-ms 500 -o " +
                               dir + "/delay.svg",
                           "env COLLVIZ_FAULT=rank:2,delay_ms:3000");
  EXPECT_EQ(hung.rc, 1) << hung.out;
  EXPECT_NE(hung.out.find("rank(s) 2 did not finish"), std::string::npos) << hung.out;
}

}  // namespace
}  // namespace collviz::test
