// FigureText (app/view/figure_text.h): an exported figure's caption and
// status block, built once, set exactly where the one-call functions
// (captionTexts, statusLineTexts) set them; marked blocks build the block
// again with its verdict, and the height is the one sized before layout.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "app/view/caption.h"
#include "app/view/figure_text.h"
#include "app/view/status_text.h"
#include "app/view/text.h"

namespace {

using namespace collviz;
using namespace collviz::ui;

bool same(const TextItem& a, const TextItem& b) {
  return a.anchor.x == b.anchor.x && a.anchor.y == b.anchor.y && a.align_x == b.align_x &&
         a.align_y == b.align_y && a.text == b.text && a.size == b.size && a.style == b.style &&
         a.color.r == b.color.r && a.color.g == b.color.g && a.color.b == b.color.b && a.color.a == b.color.a;
}

std::string joined(const std::vector<TextItem>& items) {
  std::string out;
  for (const TextItem& t : items) out += t.text + "\n";
  return out;
}

struct Figure {
  Snapshot snap;
  FigureTextParams p;
  Theme theme = makeTheme(ThemeKind::dark);

  Figure() {
    snap.backend = {"gloo", "0.5.0", "CPU (2 cores)", "tcp on 127.0.0.1 (loopback), full mesh",
                    "a long backend note that has to wrap over more than one line of the narrow figure"};
    snap.verified = false;
    p.with_status = true;
    p.status.shown = &snap;
    p.status.machine = true;
    p.status.scale = 1.5f;
    p.status.x = 27;
    p.status.max_width = 300;
    p.caption.text = "A caption long enough to take two lines of this figure";
    p.caption.scale = 1.5f;
    p.caption.x = 27;
    p.caption.width = 800;
    auto m = [](const std::string& t, TextStyle, float size) { return 0.5f * size * float(codePoints(t)); };
    p.status.measure = m;
    p.caption.measure = m;
  }
};

TEST(FigureText, SetsTheTextsWhereTheOneCallFunctionsDo) {
  Figure f;
  const FigureText text(f.p, f.theme);
  const float top = 412.25f;
  std::vector<TextItem> want = captionTexts([&] { CaptionParams c = f.p.caption; c.y = top; return c; }(), f.theme);
  ASSERT_EQ(want.size(), 2u) << joined(want);
  EXPECT_EQ(text.captionHeight(), captionHeight(f.p.caption));
  StatusLineParams s = f.p.status;
  s.y = top + captionHeight(f.p.caption) + 4 * s.scale;
  const std::vector<TextItem> status = statusLineTexts(s, f.theme);
  want.insert(want.end(), status.begin(), status.end());
  const int lines = statusLineCount(f.p.status);
  ASSERT_GT(lines, 2);  // the note wrapped
  EXPECT_EQ(text.statusHeight(), lines * statusLineHeight(1.5f) + 14 * 1.5f);
  EXPECT_EQ(text.height(), text.statusHeight() + text.captionHeight());

  const std::vector<TextItem> got = text.place(top, 0);
  ASSERT_EQ(got.size(), want.size()) << joined(got) << "--\n" << joined(want);
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(same(got[i], want[i])) << i << ": " << got[i].text;
  const std::vector<TextItem> caption = text.captionAt(top);
  ASSERT_LE(caption.size(), got.size());
  for (std::size_t i = 0; i < caption.size(); ++i) EXPECT_TRUE(same(caption[i], got[i])) << i;

  FigureTextParams undrawn = f.p;
  undrawn.caption_drawn = false;  // a PDF page: room kept, text left out
  const FigureText bare(undrawn, f.theme);
  EXPECT_EQ(bare.height(), text.height());
  EXPECT_EQ(bare.place(top, 0).size(), status.size());
}

TEST(FigureText, MarkedBlocksShowInTheVerdict) {
  Figure f;
  f.snap.verified = true;
  const FigureText text(f.p, f.theme);
  EXPECT_EQ(joined(text.place(0, 0)).find("marked"), std::string::npos);
  const std::string marked = joined(text.place(0, 2));
  EXPECT_NE(marked.find("2 block(s) marked !"), std::string::npos) << marked;
  EXPECT_NE(marked.find("✗"), std::string::npos) << marked;  // a marked figure is never ✓
}

}  // namespace
