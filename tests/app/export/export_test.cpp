// `collviz export` end to end: golden images, the --all set and its index,
// SVG, byte-identical repeats, bad input, no display. Run through ctest
// (one test per suite, label gui); exits 77 when no X server can be had.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "tests/app/export/export_support.h"

namespace collviz::test {
namespace {

namespace fs = std::filesystem;

// The image is compared region by region: in every 16 x 16 cell, pixels
// whose largest channel difference exceeds 24 levels. llvmpipe versions
// differ in a few antialiased edge pixels spread over the image; a changed
// glyph, colour or tile puts many into one cell.
struct CellDiff {
  int worst = 0;         // differing pixels in the worst cell
  int x = 0, y = 0;      // its top-left corner
  long total = 0;        // differing pixels in all
};
CellDiff compareCells(const Png& a, const Png& b) {
  constexpr int kCell = 16, kFuzz = 24;
  CellDiff d;
  for (int cy = 0; cy < a.height; cy += kCell)
    for (int cx = 0; cx < a.width; cx += kCell) {
      int n = 0;
      for (int y = cy; y < std::min(cy + kCell, a.height); ++y)
        for (int x = cx; x < std::min(cx + kCell, a.width); ++x) {
          const uint8_t *p = a.at(x, y), *q = b.at(x, y);
          int m = 0;
          for (int c = 0; c < 3; ++c) m = std::max(m, std::abs(int(p[c]) - int(q[c])));
          n += m > kFuzz;
        }
      d.total += n;
      if (n > d.worst) d = {n, cx, cy, d.total};
    }
  return d;
}

struct Golden {
  const char* name;  // tests/golden/<name>.png and <name>.txt
  const char* args;
  const char* lang = "en";  // --lang (zh: the PNG must draw its Chinese, not "?")
};
// Small on purpose. Regenerate deliberately and look at the results:
//   COLLVIZ_UPDATE_GOLDEN=1 build/bin/export_test --gtest_filter=Golden.*
const Golden kGoldens[] = {
    {"all_reduce_light", "--op all_reduce --size 640x400"},
    {"all_to_all_trace2_dark", "--op all_to_all --trace 2 --theme dark --size 640x400"},
    {"decomposed_step1_light", "--op all_reduce_decomposed --step 1 --size 1200x560"},
    {"all_reduce_zh_light", "--op all_reduce --size 640x400", "zh"},
};

TEST(Golden, MatchesReferenceImagesAndText) {
  std::string dir = freshDir("golden");
  const bool update = std::getenv("COLLVIZ_UPDATE_GOLDEN") != nullptr;
  for (const Golden& g : kGoldens) {
    SCOPED_TRACE(g.name);
    const std::string out = dir + "/" + g.name, ref = std::string(GOLDEN_DIR) + "/" + g.name;
    const std::string common = std::string("--lang ") + g.lang + " export " + g.args +
                               " --ranks 4 --backend gloo --no-status -o ";
    RunResult r = collviz(common + out + ".png");
    ASSERT_EQ(r.rc, 0) << r.out;
    EXPECT_EQ(r.out.find("cut off"), std::string::npos) << r.out;
    // Every text of the same view, read through the SVG in reading order:
    // the labels (Σ, not Π), the legend, titles.
    RunResult rs = collviz(common + out + ".svg");
    ASSERT_EQ(rs.rc, 0) << rs.out;
    const std::string text = svgTextRows(readFile(out + ".svg"));
    if (update) {
      // Nothing to compare with: the new references must be looked at.
      fs::copy_file(out + ".png", ref + ".png", fs::copy_options::overwrite_existing);
      writeFile(ref + ".txt", text);
      ADD_FAILURE() << "updated " << ref << ".png and .txt: look at them, then run without "
                    << "COLLVIZ_UPDATE_GOLDEN";
      continue;
    }
    EXPECT_EQ(text, readFile(ref + ".txt")) << "the text of " << out << ".svg differs";
    Png a = loadPng(out + ".png"), b = loadPng(ref + ".png");
    ASSERT_TRUE(a.ok() && b.ok()) << "cannot read " << out << ".png or " << ref << ".png";
    ASSERT_EQ(a.width, b.width);
    ASSERT_EQ(a.height, b.height);
    const CellDiff d = compareCells(a, b);
    EXPECT_LE(d.worst, 24) << "the 16x16 cell at " << d.x << "," << d.y << " has " << d.worst
                           << " pixels that differ by more than 24 levels";
    EXPECT_LE(d.total, long(a.width) * a.height / 200) << d.total << " pixels differ in all";
  }
}

TEST(Set, AllHasEveryFileAndTheIndex) {
  std::string dir = freshDir("set") + "/figures";  // created by the export
  RunResult r = collviz("export --all -o " + dir + " --ranks 4 --backend gloo --size 640x400");
  ASSERT_EQ(r.rc, 0) << r.out;
  const std::vector<std::string> want = {
      "01_broadcast.png",       "02_scatter.png",
      "03_gather.png",          "04_reduce.png",
      "05_all_gather.png",      "06_reduce_scatter.png",
      "07_all_reduce.png",      "08_all_to_all.png",
      "08_all_to_all_trace_r0.png", "08_all_to_all_trace_r1.png",
      "08_all_to_all_trace_r2.png", "08_all_to_all_trace_r3.png",
      "09_all_reduce_decomposed_step0.png", "09_all_reduce_decomposed_step1.png",
      "09_all_reduce_decomposed_step2.png",
      // ring all-reduce round by round: the start and its 2(N-1) rounds
      "07_all_reduce_ring_round0.png", "07_all_reduce_ring_round1.png",
      "07_all_reduce_ring_round2.png", "07_all_reduce_ring_round3.png",
      "07_all_reduce_ring_round4.png", "07_all_reduce_ring_round5.png",
      "07_all_reduce_ring_round6.png"};
  std::vector<std::string> files = listDir(dir);
  std::vector<std::string> expected = want;
  expected.push_back("index.md");
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(files, expected);
  std::string index = readFile(dir + "/index.md");
  size_t at = 0;
  for (const std::string& f : want) {
    size_t p = index.find("(" + f + ")", at);
    EXPECT_NE(p, std::string::npos) << f << " missing from index.md or out of order";
    if (p != std::string::npos) at = p;
    Png png = loadPng(dir + "/" + f);
    EXPECT_EQ(png.width, 640) << f;
    EXPECT_EQ(png.height, 400) << f;
  }
}

TEST(Svg, ParsesAsXmlAndHasTheLabels) {
  std::string dir = freshDir("svg");
  struct Case {
    const char* op;
    std::vector<std::string> labels;
  };
  const Case cases[] = {
      {"broadcast", {"01", "Broadcast", "copy the whole thing", "Input", "Output", "R0", "A", "D", "—"}},
      {"scatter", {"02", "Scatter", "cut and hand out", "each row is one GPU (rank) · root = R0", "D", "—"}},
      {"gather", {"03", "Gather", "collect and join", "—"}},
      {"reduce", {"04", "Reduce", "+", "Σ"}},
      {"all_gather", {"05", "All-gather", "join everywhere"}},
      {"reduce_scatter", {"06", "Reduce-scatter", "add, then shard", "Σ₃"}},
      {"all_reduce", {"07", "All-reduce", "everyone gets the total", "Σ₀"}},
      {"all_to_all", {"08", "All-to-all", "exchange by column", "A₃", "D₀"}},
      {"all_reduce_decomposed", {"All-reduce = Reduce-scatter + All-gather", "Reduce-scatter →"}},
  };
  const bool xmllint = haveTool("xmllint");
  if (!xmllint) std::printf("note: xmllint (libxml2-utils) not found; XML well-formedness not checked\n");
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op);
    std::string out = dir + "/" + c.op + ".svg";  // format from the extension
    RunResult r = collviz(std::string("export --op ") + c.op + " --ranks 4 --backend gloo --status -o " + out);
    ASSERT_EQ(r.rc, 0) << r.out;
    if (xmllint) {
      EXPECT_EQ(std::system(("xmllint --noout '" + out + "'").c_str()), 0);
    }
    std::string svg = readFile(out);
    EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
    EXPECT_NE(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
    EXPECT_NE(svg.find("verified against the oracle</text>"), std::string::npos);
    for (const std::string& l : c.labels)
      EXPECT_NE(svg.find(">" + l + "<"), std::string::npos) << "no <text> " << l;
  }
}

TEST(Reproducible, TwoExportsAreByteIdentical) {
  std::string dir = freshDir("repro");
  for (const char* ext : {"png", "svg"}) {
    SCOPED_TRACE(ext);
    std::string common = std::string("export --op all_to_all --trace 1 --ranks 4 --backend gloo "
                                     "--size 800x500 --scale 1.5 --theme dark -o ") + dir + "/";
    RunResult a = collviz(common + "a." + ext);
    RunResult b = collviz(common + "b." + ext);
    ASSERT_EQ(a.rc, 0) << a.out;
    ASSERT_EQ(b.rc, 0) << b.out;
    std::string fa = readFile(dir + "/a." + ext), fb = readFile(dir + "/b." + ext);
    EXPECT_GT(fa.size(), 1000u);
    EXPECT_TRUE(fa == fb) << "a." << ext << " and b." << ext << " differ";
  }
  Png p = loadPng(dir + "/a.png");
  EXPECT_EQ(p.width, 1200);
  EXPECT_EQ(p.height, 750);
}

TEST(Errors, BadInputExitsTwoAndLeavesNothing) {
  std::string dir = freshDir("errors");
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {"--op all_to_everyone -o " + dir + "/x.png", "is not a collective"},
      {"--op all_to_all --size 100000x100 -o " + dir + "/x.png", "--size"},
      {"--op all_to_all --size 20000x300 -o " + dir + "/x.png", "beyond what this OpenGL allows"},
      {"--op all_to_all --trace 4 --ranks 4 -o " + dir + "/x.png", "--trace 4"},
      {"--op all_reduce --step 1 -o " + dir + "/x.png", "--step applies"},
      {"--op all_reduce --size 10x10 -o " + dir + "/x.png", "--size"},
      {"--op all_reduce --format svg -o " + dir + "/x.png", "--format svg does not match"},
      {"--op all_reduce --theme sepia -o " + dir + "/x.png", "--theme sepia"},
      {"--op all_reduce -o " + dir + "/no/such/dir/x.png", "does not exist"},
      {"--op all_reduce --backend gloo -o /proc/collviz_export_test.png", "cannot write"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    RunResult r = collviz("export " + c.args);
    EXPECT_EQ(r.rc, 2) << r.out;
    EXPECT_NE(r.out.find(c.message), std::string::npos) << r.out;
    EXPECT_TRUE(listDir(dir).empty()) << "left behind: " << listDir(dir).front();
  }
}

// Without a display the PNG is drawn in-process (EGL, surfaceless): no
// xvfb-run, no X server started.
TEST(NoDisplay, DrawsInProcessWithoutAnXServer) {
  std::string dir = freshDir("nodisplay");
  RunResult r = collviz("export --op gather --backend gloo --size 400x300 -o " + dir + "/g.png",
                        "env -u DISPLAY -u WAYLAND_DISPLAY");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(r.out.find("xvfb"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Xvfb"), std::string::npos) << r.out;
  EXPECT_EQ(loadPng(dir + "/g.png").width, 400);
}

}  // namespace
}  // namespace collviz::test

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // SVG needs no display; everything else draws with OpenGL.
  const std::string filter = ::testing::GTEST_FLAG(filter);
  std::string why;
  if (filter.rfind("Svg", 0) != 0 && !collviz::test::ensureDisplay(&why)) {
    std::printf("SKIP: %s\n", why.c_str());
    return 77;
  }
  return RUN_ALL_TESTS();
}
