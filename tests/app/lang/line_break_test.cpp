// Line breaking (app/lang/line_break): the article's own sentences and mixed
// Chinese/Latin captions wrapped at several widths, each result checked
// against rules restated here independently of the code under test.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "app/lang/line_break.h"
#include "app/view/caption.h"
#include "app/view/palette.h"
#include "app/view/status_text.h"
#include "app/view/text.h"
#include "engine/snapshot.h"

namespace collviz::ui {
namespace {

// From the article (/work/shared/seed: 集合通信笔记), word for word.
const std::vector<std::string> kArticle = {
    "R0 的完整张量 A、B、C、D 被复制到所有 rank，每个 rank 都得到完整的一份。",
    "R0 持有 A、B、C、D 四块数据。分发后 R0 得到 A，R1 得到 B，R2 得到 C，R3 得到 D。",
    "四个 rank 分别提供 A、B、C、D，在 R0 按 rank 顺序拼接为四块数据。只在 R0 指定输出。",
    "四个 rank 的同形状数据 A、B、C、D 逐元素相加，R0 得到同形状的结果 Σ = A + B + C + D。只在 R0 指定输出。",
    "各 rank 先按相同分片位置逐元素相加。Σᵢ = Aᵢ + Bᵢ + Cᵢ + Dᵢ。R0 只得到 Σ₀，R1 只得到 Σ₁，R2 只得到 Σ₂，R3 只得到 Σ₃。",
    "每个 rank 将第 i 个分片发给 Ri。Ri 按来源 rank 顺序收到 Aᵢ、Bᵢ、Cᵢ、Dᵢ。输入的每一列成为输出的一行，没有求和或复制。"
    "可用图下方的单选按钮高亮一个目标 rank。",
    "左侧每个 rank 有四个输入分片。Reduce-scatter 后，中间的每个 rank 持有一个求和分片 Σᵢ。再经 All-gather，右侧每个 rank "
    "都持有完整结果 Σ₀、Σ₁、Σ₂、Σ₃，与 All-reduce 的输出相同。这是结果等价的分解，不限定实际通信算法。",
    "更详细的代码可以看 CS336 · Lecture 7。归约以 SUM 为例；箭头表示数据关系。虚线框表示无指定输入或输出，并不表示清空原数据。",
    "Σ₀ = A₀ + B₀ + C₀ + D₀，表示同一分片位置的逐元素求和。",
};

// Captions and notes that mix the two, with numbers and their units.
const std::vector<std::string> kMixed = {
    "每行一张 GPU；颜色跟随数据块，下标表示分片",
    "Reduce-scatter 之后：每处一片",
    "每个 rank 发送 16 MiB，8 ranks 共用一块 GPU（All-reduce 的环算法）。",
    "环算法共 2(N-1) 轮：前 N-1 轮做 Reduce-scatter，后 N-1 轮做 All-gather，每轮每个 rank 发送 16 MiB。",
    "「二项树」广播只需 3 轮就覆盖 8 ranks；Bruck 算法则是 All-to-all 的《对数轮》做法。",
    "All-reduce moves 16 MiB over 8 ranks in 2(N-1) rounds, then every rank holds the total.",
    "每行一张 GPU",
};

// What must never be split across lines, wherever it occurs.
const std::vector<std::string> kUnits = {"All-reduce", "Reduce-scatter", "All-gather", "All-to-all", "GPU",
                                         "16 MiB", "8 ranks", "2(N-1)", "N-1", "rank", "ranks", "Lecture",
                                         "CS336", "Bruck", "SUM", "3 轮", "8 个"};

bool wideChar(char32_t c) { return c >= 0x2e80; }
bool ideograph(char32_t c) { return (c >= 0x3400 && c <= 0x4dbf) || (c >= 0x4e00 && c <= 0x9fff); }

// Widths in ems: CJK characters and full-width punctuation 1, the rest 0.55.
float ems(const std::string& s) {
  float w = 0;
  for (char32_t c : toCodePoints(s)) w += wideChar(c) ? 1.0f : 0.55f;
  return w;
}

std::vector<std::string> wrap(const std::string& text, float width) {
  WrapParams p;
  p.width = width;
  p.measure = ems;
  return wrapText(text, p);
}

std::string withoutSpaces(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != ' ') out += c;
  return out;
}

// Every rule on the lines `text` wrapped to at `width`.
void checkLines(const std::string& text, float width) {
  const std::vector<std::string> lines = wrap(text, width);
  const std::string where = "text \"" + text + "\" at width " + std::to_string(width);
  ASSERT_FALSE(lines.empty()) << where;
  // Nothing lost, nothing added but dropped spaces.
  std::string joined;
  for (const std::string& l : lines) joined += l;
  EXPECT_EQ(withoutSpaces(joined), withoutSpaces(text)) << where;
  // Where each line sits in the text.
  std::vector<std::size_t> begin, end;
  std::size_t at = 0;
  for (const std::string& l : lines) {
    const std::size_t b = text.find(l, at);
    ASSERT_NE(b, std::string::npos) << where << ": line \"" << l << "\" is not a run of the text";
    begin.push_back(b);
    end.push_back(b + l.size());
    at = b + l.size();
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    const std::u32string cps = toCodePoints(l);
    ASSERT_FALSE(cps.empty()) << where << ": empty line " << i;
    EXPECT_NE(cps.front(), U' ') << where;
    EXPECT_NE(cps.back(), U' ') << where;
    EXPECT_EQ(std::u32string_view(U"，。、；：？！）」』》,.;:!?)").find(cps.front()), std::u32string_view::npos)
        << where << ": line " << i << " starts with closing punctuation: " << l;
    EXPECT_EQ(std::u32string_view(U"（「『《“(").find(cps.back()), std::u32string_view::npos)
        << where << ": line " << i << " ends with opening punctuation: " << l;
    // Never a lone binary operator first ("+ D."): it ends the line before.
    if (i > 0 && cps.size() > 1 && cps[1] == U' ')
      EXPECT_EQ(std::u32string_view(U"+-−×÷/=≈·").find(cps.front()), std::u32string_view::npos)
          << where << ": line " << i << " starts with a lone operator: " << l;
    // Too wide only when the line is one unbreakable piece: no space, no
    // CJK character where it could have broken.
    if (ems(l) > width) {
      // Punctuation glued on either side does not make a unit breakable.
      std::u32string core = cps;
      while (!core.empty() && std::u32string_view(U"（「『《“(").find(core.front()) != std::u32string_view::npos)
        core.erase(0, 1);
      while (!core.empty() && std::u32string_view(U"，。、；：？！）」』》,.;:!?)").find(core.back()) != std::u32string_view::npos)
        core.pop_back();
      // Nor does a lone operator it keeps at its end ("Reduce-scatter +").
      while (core.size() > 2 && core[core.size() - 2] == U' ' &&
             std::u32string_view(U"+-−×÷/=≈·").find(core.back()) != std::u32string_view::npos)
        core.resize(core.size() - 2);
      bool unit = false;
      for (const std::string& u : kUnits) unit = unit || core == toCodePoints(u);
      bool breakable = false;
      for (char32_t c : core) breakable = breakable || ideograph(c) || c == U' ';
      EXPECT_TRUE(unit || !breakable) << where << ": line " << i << " is too wide: " << l;
    }
    // No line of one Latin word when the Chinese character before it could
    // have come along (and left Chinese on the line above).
    if (i > 0) {
      bool latin_word = l.find(' ') == std::string::npos;
      for (char32_t c : cps) latin_word = latin_word && !wideChar(c);
      const std::u32string prev = toCodePoints(lines[i - 1]);
      if (latin_word && ideograph(prev.back())) {
        bool chinese_stays = false;
        for (std::size_t k = 0; k + 1 < prev.size(); ++k) chinese_stays = chinese_stays || ideograph(prev[k]);
        const std::string moved = std::string(lines[i - 1].substr(lines[i - 1].size() - 3)) + " " + l;
        EXPECT_FALSE(chinese_stays && ems(moved) <= width)
            << where << ": line " << i << " is the lone word \"" << l << "\" after \"" << lines[i - 1] << "\"";
      }
    }
  }
  // No unit split between two lines.
  for (const std::string& u : kUnits)
    for (std::size_t p = text.find(u); p != std::string::npos; p = text.find(u, p + 1)) {
      // A whole word only ("rank" inside "ranks" is the longer unit's business).
      auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
      if ((p > 0 && letter(text[p - 1])) || (p + u.size() < text.size() && letter(text[p + u.size()]))) continue;
      for (std::size_t i = 0; i + 1 < lines.size(); ++i)
        EXPECT_FALSE(p < end[i] && begin[i + 1] < p + u.size())
            << where << ": \"" << u << "\" split between \"" << lines[i] << "\" and \"" << lines[i + 1] << "\"";
    }
}

TEST(LineBreak, ArticleSentencesAtSeveralWidths) {
  for (const std::string& t : kArticle)
    for (float w : {3.0f, 4.5f, 6.0f, 8.0f, 11.0f, 16.0f, 24.0f, 40.0f}) checkLines(t, w);
}

TEST(LineBreak, MixedCaptionsAtSeveralWidths) {
  for (const std::string& t : kMixed)
    for (float w : {3.0f, 4.0f, 5.0f, 5.5f, 6.5f, 8.0f, 9.5f, 12.0f, 20.0f}) checkLines(t, w);
}

TEST(LineBreak, OpportunitiesFollowTheRules) {
  auto breaks = [](std::string_view s) { return breakOpportunities(s); };
  EXPECT_TRUE(breaks("All-reduce").empty());
  EXPECT_TRUE(breaks("16 MiB").empty());
  EXPECT_TRUE(breaks("8 ranks").empty());
  EXPECT_TRUE(breaks("8 个").empty());
  EXPECT_TRUE(breaks("（GPU）").empty());
  EXPECT_TRUE(breaks("2(N-1)").empty());
  EXPECT_TRUE(breaks("16\u00a0B").empty());  // a no-break space holds
  EXPECT_EQ(breaks("每行"), std::vector<std::size_t>({3}));
  EXPECT_EQ(breaks("a b"), std::vector<std::size_t>({2}));
  // Never before closing punctuation, even after a space; after it, yes.
  EXPECT_EQ(breaks("分片。Ri"), std::vector<std::size_t>({3, 9}));
  EXPECT_TRUE(breaks("GPU ，").empty());
  // Never after opening punctuation: 「 keeps 二.
  EXPECT_EQ(breaks("是「二」"), std::vector<std::size_t>({3}));
  // Between Chinese and Latin, with or without a space.
  EXPECT_EQ(breaks("一张GPU的"), std::vector<std::size_t>({3, 6, 9}));
  EXPECT_EQ(breaks("一张 GPU"), std::vector<std::size_t>({3, 7}));
  EXPECT_EQ(breaks("a\nb"), std::vector<std::size_t>({2}));
}

// The case: the presenter broke "每行一张 GPU；…" at its only space,
// leaving "GPU" alone; the lone word now takes 张 along.
TEST(LineBreak, ALoneWordTakesChineseAlong) {
  EXPECT_EQ(wrap("每行一张 GPU", 4.5f), std::vector<std::string>({"每行一", "张 GPU"}));
  // Wide enough for all: one line.
  EXPECT_EQ(wrap("每行一张 GPU", 8.0f), std::vector<std::string>({"每行一张 GPU"}));
  // Followed by Chinese, "GPU；" starts a line that goes on in Chinese.
  const std::vector<std::string> l = wrap("每行一张 GPU；颜色跟随数据块", 6.0f);
  ASSERT_GE(l.size(), 2u);
  EXPECT_EQ(l[0], "每行一张");
  EXPECT_EQ(l[1].substr(0, 6), "GPU；");
  EXPECT_GT(l[1].size(), 6u);
}

// The case: "… = A + B + C / + D." left "+ D." to start a line; the
// operator now ends the line and the operand starts the next.
TEST(LineBreak, ALoneOperatorNeverStartsALine) {
  const std::string t = "结果 Σ = A + B + C + D。";
  // 10.5 ems held "结果 Σ = A + B + C" and left "+ D。" to the next line.
  EXPECT_EQ(wrap(t, 10.5f), std::vector<std::string>({"结果 Σ = A + B +", "C + D。"}));
  EXPECT_EQ(breakOpportunities("A + B"), std::vector<std::size_t>({4}));  // after "+ ", never before it
  EXPECT_EQ(breakOpportunities("a / b"), std::vector<std::size_t>({4}));
  EXPECT_EQ(breakOpportunities("x = 1"), std::vector<std::size_t>({4}));
  EXPECT_EQ(breakOpportunities("2(N-1)/N·S"), std::vector<std::size_t>());  // not lone: one word
  for (float w : {3.0f, 4.0f, 5.0f, 6.0f, 7.0f, 8.0f, 9.0f, 10.0f, 12.0f}) {
    checkLines(t, w);
    checkLines("All-reduce = Reduce-scatter + All-gather, cost α + β·S / N", w);
  }
}

// A lecture caption at every width from narrow to wide: no line of it
// starts with a lone operator.
TEST(LineBreak, ACaptionNeverStartsALineWithALoneOperator) {
  CaptionParams c;
  c.text = "All-reduce：每个 rank 得到同形状的结果 Σ = A + B + C + D，即 Σ₀ = A₀ + B₀ + C₀ + D₀。";
  c.measure = [](const std::string& t, TextStyle, float size) { return ems(t) * size; };
  int wrapped = 0;
  for (c.width = 200; c.width <= 1400; c.width += 13) {
    const std::vector<std::string> lines = captionLines(c);
    wrapped += lines.size() > 1;
    for (std::size_t i = 1; i < lines.size(); ++i) {
      const std::u32string cps = toCodePoints(lines[i]);
      EXPECT_FALSE(cps.size() > 1 && cps[1] == U' ' && std::u32string_view(U"+=").find(cps[0]) != std::u32string_view::npos)
          << "width " << c.width << ": line " << i << " starts with a lone operator: " << lines[i];
    }
  }
  EXPECT_GT(wrapped, 10);
}

TEST(LineBreak, NewlinesLimitsAndWidePieces) {
  EXPECT_EQ(wrap("一\n二", 10), std::vector<std::string>({"一", "二"}));
  EXPECT_EQ(wrap("a\n\nb", 10), std::vector<std::string>({"a", "", "b"}));
  EXPECT_TRUE(wrap("", 10).empty());
  WrapParams p;
  p.width = 0;  // no width: lines only at "\n"
  EXPECT_EQ(wrapText("每行一张 GPU", p), std::vector<std::string>({"每行一张 GPU"}));
  p.width = 2.0f;
  p.measure = ems;
  p.max_lines = 2;
  EXPECT_EQ(wrapText("一二三四五六", p), std::vector<std::string>({"一二", "三四…"}));
  // A word wider than the line: its own line, whole, unless cutting is asked for.
  p.max_lines = 0;
  EXPECT_EQ(wrapText("一 Reduce-scatter 二", p), std::vector<std::string>({"一", "Reduce-scatter", "二"}));
  p.cut_wide_pieces = true;
  for (const std::string& l : wrapText("一 Reduce-scatter 二", p)) EXPECT_LE(ems(l), 2.0f) << l;
}

}  // namespace
}  // namespace collviz::ui

namespace collviz::ui {
namespace {

// The status block under a file's figure: a long note wraps (it was cut with
// "…" at the width), and the line count used for sizing agrees.
TEST(LineBreak, StatusNotesWrapToTheWidth) {
  Snapshot s;
  s.backend = {"gloo", "0.5.0", "CPU", "", ""};
  s.backend.notes = "每个 rank 发送 16 MiB，8 ranks 共用一块 GPU（All-reduce 的环算法）。每行一张 GPU；颜色跟随数据块。";
  s.verified = true;
  StatusLineParams p;
  p.shown = &s;
  p.max_width = 300;
  p.measure = [](const std::string& t, TextStyle, float size) { return size * ems(t); };
  const std::vector<TextItem> items = statusLineTexts(p, makeTheme(ThemeKind::light));
  std::vector<std::string> notes;  // the note's lines, in order
  for (const TextItem& t : items) {
    EXPECT_LE(p.measure(t.text, t.style, t.size), 300.5f) << t.text;
    if (t.anchor.y > items.front().anchor.y) notes.push_back(t.text);
  }
  ASSERT_GE(notes.size(), 2u);
  EXPECT_EQ(statusLineCount(p), int(1 + notes.size()));
  std::string joined;
  for (const std::string& l : notes) {
    joined += l;
    EXPECT_EQ(std::u32string_view(U"，。；）").find(toCodePoints(l).front()), std::u32string_view::npos) << l;
  }
  EXPECT_EQ(withoutSpaces(joined), withoutSpaces(s.backend.notes));
}

}  // namespace
}  // namespace collviz::ui
