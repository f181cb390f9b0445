// Figures a writer can publish: what an exported figure says and what it
// leaves out. The article's set in English and Chinese as SVG (the text is
// the <text> elements): no machine notes by default, no other backend's
// absence, no driver, keys or run-to-run timing even with --status, only the
// notes of the op drawn; traced figures name their trace, the dashed box is
// explained. A deck exported twice is byte-identical; --crop leaves only
// background in the margin.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>

#include "tests/app/export/export_support.h"

namespace collviz::test {
namespace {

namespace fs = std::filesystem;

// Every <text> of an SVG, unescaped enough for the checks here.
std::vector<std::string> svgTexts(const std::string& with_tspans) {
  const std::string svg = withoutTspans(with_tspans);
  std::vector<std::string> out;
  static const std::regex text(R"(<text[^>]*>([^<]*)</text>)");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text); it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1]);
  return out;
}

std::string joined(const std::vector<std::string>& texts) {
  std::string all;
  for (const std::string& t : texts) all += t + "\n";
  return all;
}

// Words that belong to the machine or the window, never to a figure.
const char* const kForbidden[] = {"unavailable", "cudaGetDeviceCount", "driver", "PgDn", "varies run to run",
                                  "--status-time", "tcp on", "loopback", "µs", "下一步"};

struct SetText {
  std::string lang;
  std::map<std::string, std::string> text;  // file name -> its texts
};

SetText exportSet(const std::string& lang, const std::string& extra) {
  SetText s{lang, {}};
  const std::string dir = freshDir("figures_" + lang + (extra.empty() ? "" : "_status"));
  RunResult r = collviz("--lang " + lang + " export --all --format svg --ranks 4 --backend auto " + extra +
                        " --size 1200x700 -o " + dir);
  EXPECT_EQ(r.rc, 0) << r.out;
  for (const std::string& f : listDir(dir))
    if (f.size() > 4 && f.substr(f.size() - 4) == ".svg") s.text[f] = joined(svgTexts(readFile(dir + "/" + f)));
  EXPECT_EQ(s.text.size(), 22u) << r.out;
  return s;
}

TEST(FigureText, TheSetCarriesTheOpNotTheMachine) {
  for (const char* lang : {"en", "zh"}) {
    for (const char* extra : {"", "--status"}) {
      SCOPED_TRACE(std::string(lang) + " " + extra);
      const SetText s = exportSet(lang, extra);
      for (const auto& [file, text] : s.text) {
        SCOPED_TRACE(file);
        for (const char* word : kForbidden) EXPECT_EQ(text.find(word), std::string::npos) << "\"" << word << "\" in\n" << text;
        // Only the notes for the op drawn: Gloo's reduce-scatter note under
        // reduce-scatter (and the decomposition that runs it), never elsewhere.
        const bool rs = file.find("reduce_scatter") != std::string::npos || file.find("decomposed") != std::string::npos;
        if (!rs) {
          EXPECT_EQ(text.find("ReduceScatterHalvingDoubling"), std::string::npos) << text;
        }
        if (std::string(extra) == "--status" && file == "06_reduce_scatter.svg" &&
            text.find("gloo ") != std::string::npos) {  // and there it is
          EXPECT_NE(text.find("ReduceScatterHalvingDoubling"), std::string::npos) << text;
        }
        EXPECT_EQ(text.find("bf16:"), std::string::npos) << text;  // f32 is drawn
        EXPECT_EQ(text.find("avg:"), std::string::npos) << text;   // sum is drawn
        // The status block only when asked for.
        const bool status = text.find("gloo ") != std::string::npos || text.find("nccl ") != std::string::npos;
        EXPECT_EQ(status, std::string(extra) == "--status") << text;
      }
      const bool zh = std::string(lang) == "zh";
      // The trace is named, in the figure's language.
      for (int r = 0; r < 4; ++r) {
        const std::string file = "08_all_to_all_trace_r" + std::to_string(r) + ".svg";
        ASSERT_TRUE(s.text.count(file)) << file;
        const std::string want = zh ? "已追踪：到达 R" + std::to_string(r) + " 的数据"
                                    : "traced: what reaches R" + std::to_string(r);
        EXPECT_NE(s.text.at(file).find(want), std::string::npos) << s.text.at(file);
      }
      EXPECT_EQ(s.text.at("08_all_to_all.svg").find(zh ? "已追踪" : "traced:"), std::string::npos);
      // The dashed box is explained in the article's words where there is one.
      const std::string dashed =
          zh ? "虚线框表示无指定输入或输出，并不表示清空原数据" : "dashed box = no input or output specified, not cleared";
      for (const char* f : {"01_broadcast.svg", "02_scatter.svg", "03_gather.svg", "04_reduce.svg"})
        EXPECT_NE(s.text.at(f).find(dashed), std::string::npos) << f << "\n" << s.text.at(f);
      for (const char* f : {"05_all_gather.svg", "07_all_reduce.svg", "08_all_to_all.svg"})
        EXPECT_EQ(s.text.at(f).find(dashed), std::string::npos) << f;
    }
  }
}

TEST(FigureText, ATraceWithNothingToShowSaysSo) {
  const std::string dir = freshDir("trace_nothing");
  RunResult r = collviz("export --op broadcast --trace 2 --trace-by source --ranks 4 --backend gloo -o " + dir +
                        "/b.svg");
  ASSERT_EQ(r.rc, 0) << r.out;
  const std::string text = joined(svgTexts(readFile(dir + "/b.svg")));
  EXPECT_NE(text.find("traced: R2 has no input in this op"), std::string::npos) << text;
  r = collviz("export --op gather --trace 1 --ranks 4 --backend gloo -o " + dir + "/g.svg");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(joined(svgTexts(readFile(dir + "/g.svg"))).find("traced: R1 has no output in this op"),
            std::string::npos);
  r = collviz("export --op broadcast --trace 2 --ranks 4 --backend gloo -o " + dir + "/ok.svg");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(joined(svgTexts(readFile(dir + "/ok.svg"))).find("traced: what reaches R2"), std::string::npos);
}

TEST(FigureText, StatusTimeAloneBringsTimes) {
  const std::string dir = freshDir("status_time");
  RunResult r = collviz("export --op all_reduce --algo ring --ranks 4 --backend gloo --status-time -o " + dir +
                        "/t.svg");
  ASSERT_EQ(r.rc, 0) << r.out;
  const std::string text = joined(svgTexts(readFile(dir + "/t.svg")));
  EXPECT_NE(text.find("op "), std::string::npos) << text;
  // The op's time in the view's one unit (issue 57 item 12: µs, ms or s by the slowest round).
  EXPECT_TRUE(std::regex_search(text, std::regex("op [0-9.]+ (µs|ms|s)"))) << text;
}

TEST(Deck, ExportedTwiceIsByteIdentical) {
  const std::string a = freshDir("deck_a"), b = freshDir("deck_b");
  const std::string script = std::string(COLLVIZ_SOURCE_DIR) + "/assets/lectures/allreduce_inside.toml";
  for (const std::string& d : {a, b}) {
    RunResult r = collviz("lecture " + script + " --export " + d + " --format svg");
    ASSERT_EQ(r.rc, 0) << r.out;
  }
  const std::vector<std::string> files = listDir(a);
  ASSERT_GT(files.size(), 5u);
  EXPECT_EQ(files, listDir(b));
  bool rounds = false;
  for (const std::string& f : files) {
    EXPECT_TRUE(readFile(a + "/" + f) == readFile(b + "/" + f)) << f << " differs between two exports";
    const std::string text = joined(svgTexts(readFile(a + "/" + f)));
    rounds = rounds || text.find("round") != std::string::npos;
    for (const char* word : kForbidden) EXPECT_EQ(text.find(word), std::string::npos) << f << ": " << word;
  }
  EXPECT_TRUE(rounds) << "the deck has no algorithm slide: the round times were not put to the test";
}

// Rows and columns at the edge of a cropped image: background only within
// the margin, and the figure within reach of every edge (it was trimmed).
void expectCropped(const Png& p, int margin) {
  const uint8_t* bg = p.at(0, 0);
  auto isBg = [&](int x, int y) {
    const uint8_t* q = p.at(x, y);
    return std::abs(q[0] - bg[0]) <= 2 && std::abs(q[1] - bg[1]) <= 2 && std::abs(q[2] - bg[2]) <= 2;
  };
  int top = p.height, bottom = -1, left = p.width, right = -1;
  for (int y = 0; y < p.height; ++y)
    for (int x = 0; x < p.width; ++x)
      if (!isBg(x, y)) top = std::min(top, y), bottom = std::max(bottom, y), left = std::min(left, x), right = std::max(right, x);
  ASSERT_GE(bottom, 0) << "the image is empty";
  // Background in the border rows and columns, and the content starts
  // within the margin (plus a few pixels of antialiasing and rounding).
  EXPECT_GE(top, 2);
  EXPECT_GE(left, 2);
  EXPECT_LE(p.height - 1 - bottom, margin + 4) << "bottom not trimmed";
  EXPECT_LE(p.width - 1 - right, margin + 4) << "right not trimmed";
  // The top is the heading's text box, whose glyphs start a little below it
  // (more at the fitted layout's larger text): a few pixels more room.
  EXPECT_LE(top, margin + 12) << "top not trimmed";
  EXPECT_LE(left, margin + 4) << "left not trimmed";
  EXPECT_GE(p.height - 1 - bottom, 2);
  EXPECT_GE(p.width - 1 - right, 2);
}

TEST(Crop, TrimsToTheFigurePlusTheMargin) {
  const std::string dir = freshDir("crop");
  for (const char* op : {"broadcast", "all_reduce_decomposed"}) {
    SCOPED_TRACE(op);
    const std::string base = std::string("export --op ") + op + " --ranks 4 --backend gloo --size 1600x1400 ";
    RunResult full = collviz(base + "-o " + dir + "/" + op + "_full.png");
    RunResult cut = collviz(base + "--crop -o " + dir + "/" + op + ".png");
    ASSERT_EQ(full.rc, 0) << full.out;
    ASSERT_EQ(cut.rc, 0) << cut.out;
    const Png f = loadPng(dir + "/" + op + "_full.png"), c = loadPng(dir + "/" + op + ".png");
    ASSERT_TRUE(f.ok() && c.ok());
    EXPECT_EQ(f.height, 1400);
    // The fitted layout fills most of the view, so the trim is what is left
    // of it; expectCropped checks that only the margin is.
    EXPECT_LT(c.height, f.height) << "nothing trimmed";
    expectCropped(c, 16);
    // It says the size it wrote, not the size before the crop.
    const std::string said = "(" + std::to_string(c.width) + "x" + std::to_string(c.height) + ", cropped)";
    EXPECT_NE(cut.out.find(said), std::string::npos) << cut.out;
    // The SVG gets the same box.
    RunResult svg = collviz(base + "--crop -o " + dir + "/" + op + ".svg");
    ASSERT_EQ(svg.rc, 0) << svg.out;
    const std::string s = readFile(dir + "/" + op + ".svg");
    EXPECT_NE(s.find("height=\"" + std::to_string(c.height) + "\""), std::string::npos) << s.substr(0, 300);
    EXPECT_NE(svg.out.find("x" + std::to_string(c.height) + ", cropped)"), std::string::npos) << svg.out;
  }
  RunResult gif = collviz("export --op all_reduce --algo ring --crop -o " + dir + "/r.gif");
  EXPECT_EQ(gif.rc, 2) << gif.out;
  EXPECT_NE(gif.out.find("--crop applies to png and svg"), std::string::npos) << gif.out;
}

}  // namespace
}  // namespace collviz::test
