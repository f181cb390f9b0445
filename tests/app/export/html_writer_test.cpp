// The HTML writer (app/files/html_writer) without a browser: names and
// captions that hold markup stay text. Every text field of a page and of a
// deck (title, heading, intro, caption, description, verdict, a block's
// hover text, the controls' words, the language switch, the slides'
// captions) is given "</script><img …>", quotes and a CDATA end; the page
// must keep its one <script>, hold no <img>, <b> or "]]>", and show each
// field escaped. The states the page keeps compressed (data-z: zlib, then
// base64) are inflated and checked too, as the script would set them.
// export_html_browser checks the same in chromium, where it is installed.
#include <gtest/gtest.h>
#include <zlib.h>

#include <regex>
#include <string>
#include <vector>

#include "app/files/html_writer.h"

namespace collviz::ui {
namespace {

const std::string kHostile = "</script><img src=x onerror=alert(1)>]]>\"'<b>x</b>&amp;";
const std::string kEscaped = "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;]]&gt;";

std::string unbase64(const std::string& s) {
  auto v = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
  };
  std::string out;
  int bits = 0, acc = 0;
  for (char c : s) {
    const int x = v(c);
    if (x < 0) continue;
    acc = (acc << 6) | x, bits += 6;
    if (bits >= 8) bits -= 8, out += char((acc >> bits) & 255);
  }
  return out;
}

std::string inflated(const std::string& b64) {
  const std::string z = unbase64(b64);
  std::vector<unsigned char> out(1 << 20);
  uLongf n = uLongf(out.size());
  if (uncompress(out.data(), &n, reinterpret_cast<const Bytef*>(z.data()), uLong(z.size())) != Z_OK) return "(not zlib)";
  return std::string(reinterpret_cast<const char*>(out.data()), n);
}

// What the SVG writer makes of a figure named by the hostile text: its
// title escaped (app/files/svg_writer does so; here given as it would).
HtmlSvg svg(int k) {
  HtmlSvg s;
  s.light = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\" height=\"50\">\n<title>state " + std::to_string(k) + " " +
            htmlEscape(kHostile) + "</title>\n<rect id=\"c1\" fill=\"#ffffff\" width=\"10\" height=\"10\"/>\n</svg>\n";
  s.tips.push_back({Rect{1, 2, 3, 4}, "block " + kHostile + "\nline two"});
  return s;
}

HtmlWords words() {
  HtmlWords w;
  for (std::string* f : {&w.trace, &w.all, &w.direction, &w.prev, &w.next, &w.play, &w.pause, &w.states})
    *f = "word " + kHostile;
  w.reaches = "what reaches {0} " + kHostile;
  w.goes = "where {0} goes " + kHostile;
  w.round = "round {0}/{1} " + kHostile;
  return w;
}

// The page is text but for the writer's own markup.
void expectNoMarkupFromText(const std::string& page, const std::string& what) {
  std::size_t scripts = 0;
  for (std::size_t at = page.find("<script"); at != std::string::npos; at = page.find("<script", at + 1)) ++scripts;
  EXPECT_EQ(scripts, 1u) << what << ": a name closed the script or opened another";
  for (const char* never : {"<img", "<b>", "</b>", "]]>", "\"'<"})
    EXPECT_EQ(page.find(never), std::string::npos) << what << ": \"" << never << "\" came through as markup";
  EXPECT_NE(page.find(kEscaped), std::string::npos) << what << ": the hostile text is not there, escaped";
  EXPECT_NE(page.find("&amp;amp;"), std::string::npos) << what << ": an entity in a name was not escaped again";
}

TEST(HtmlWriter, HostileNamesAndCaptionsNeverBecomeMarkup) {
  std::vector<HtmlFigure> figures;
  for (HtmlKind kind : {HtmlKind::trace, HtmlKind::rounds, HtmlKind::stages, HtmlKind::still}) {
    HtmlFigure f;
    f.id = "f" + std::to_string(figures.size());
    f.kind = kind;
    f.heading = "heading " + kHostile;
    f.caption = "caption " + kHostile;
    f.desc = "desc " + kHostile;
    f.verdict = "verdict " + kHostile;
    f.verified = kind != HtmlKind::still;
    f.ranks = 2;
    const int n = kind == HtmlKind::trace ? 5 : kind == HtmlKind::still ? 1 : 3;
    for (int k = 0; k < n; ++k) f.states.push_back(svg(k));
    figures.push_back(f);
  }
  std::vector<HtmlLang> langs(2);
  for (HtmlLang& l : langs) {
    l.lang = &l == &langs[0] ? "en" : "zh-Hans";
    l.name = "name " + kHostile;
    l.title = "title " + kHostile;
    l.heading = true;
    l.intro = {"intro " + kHostile, "`code " + kHostile + "`"};
    l.figures = figures;
    l.words = words();
  }
  for (const std::string theme : {"", "light"}) {
    const std::string page = htmlPage(langs, theme);
    expectNoMarkupFromText(page, "htmlPage (theme '" + theme + "')");
    for (const std::string field : {"title ", "heading ", "caption ", "verdict ", "desc ", "name ", "intro ", "word ", "block "})
      EXPECT_NE(page.find(field + kEscaped), std::string::npos) << field << "is not on the page, escaped";
    // The states kept compressed, as the script will put them in the page.
    const std::regex z("data-z=\"([^\"]*)\"");
    int states = 0;
    for (auto it = std::sregex_iterator(page.begin(), page.end(), z); it != std::sregex_iterator(); ++it) {
      std::string list = (*it)[1];
      for (std::size_t from = 0; from <= list.size();) {
        const std::size_t comma = std::min(list.find(',', from), list.size());
        const std::string one = list.substr(from, comma - from);
        from = comma + 1;
        if (one.empty()) continue;
        const std::string state = inflated(one);
        ++states;
        EXPECT_NE(state.find("<svg"), std::string::npos) << state.substr(0, 200);
        for (const char* never : {"<img", "<b>", "]]>", "<script"}) EXPECT_EQ(state.find(never), std::string::npos) << never << " in a kept state";
        EXPECT_NE(state.find("desc " + kEscaped), std::string::npos);
      }
    }
    EXPECT_EQ(states, 2 * 4) << "the trace figure's four states after the first, in each language";
  }

  std::vector<HtmlSlide> slides;
  for (int k = 0; k < 3; ++k) slides.push_back({svg(k), "slide caption " + kHostile});
  const std::string deck = deckPage("en", "deck " + kHostile, slides, words(), "dark");
  expectNoMarkupFromText(deck, "deckPage");
  EXPECT_NE(deck.find("<h1>deck " + kEscaped), std::string::npos);
  EXPECT_NE(deck.find("<figcaption>slide caption " + kEscaped), std::string::npos);
}

}  // namespace
}  // namespace collviz::ui
