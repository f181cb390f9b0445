// Line breaking for English and Chinese, one rule for every place that wraps
// a person's text (captions, presenter notes, legends, the status line, the
// window's wrapped paragraphs), whatever measures the width: ImGui, the
// diagram's text, SVG or PDF.
//
// A small rule set after UAX #14 (the Unicode line-breaking algorithm):
//  - a line may break after spaces, and between two CJK characters or a CJK
//    character and a Latin one (每行一张GPU: 张|G);
//  - never before closing punctuation (，。、；：？！）」』》…, and ASCII , . ; : ! ? ) ] %),
//    even after a space; never after opening punctuation (（「『《“, ( [ {);
//  - never inside a Latin word or number ("All-reduce", "2(N-1)", "42%"),
//    never at a no-break space, and never between a number and the word
//    after it ("16 MiB", "8 ranks", "8 个");
//  - never before a binary operator standing alone between spaces
//    ("A + B", "= 2", "a / b"): "… = A + B + C / + D." wraps as
//    "… = A + B + C + / D.", no line starting with a lone operator;
//  - "\n" always breaks.
// The greedy wrapper fills each line with as many pieces as fit; then a last
// line left holding one Latin word takes the Chinese character before it
// along when that fits ("…一张 / GPU" becomes "…一 / 张 GPU"), so no line is
// a lone word that Chinese could have kept company.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace collviz {

// Byte offsets in `utf8` where a new line may start (never 0, never the
// end). A break at offset i puts text[i..] on the next line; spaces before i
// are dropped from the line that ends there.
std::vector<std::size_t> breakOpportunities(std::string_view utf8);

using MeasureWidth = std::function<float(const std::string& text)>;

struct WrapParams {
  float width = 0;      // <= 0: no wrapping (lines only at "\n")
  MeasureWidth measure;  // required when width > 0
  int max_lines = 0;     // > 0: at most this many lines; when text is left over the last ends in "…"
  // A piece wider than the width alone (a 100-character word) is cut
  // between code points instead of overflowing. Off by default: a word is
  // never split.
  bool cut_wide_pieces = false;
};

// Columns a terminal gives `utf8`: CJK and full-width characters take two,
// others one (a measure for wrapText in the CLI).
float terminalColumns(const std::string& utf8);

// `text` in lines of at most `p.width` (a single unbreakable piece wider
// than that gets a line of its own, or is cut with `cut_wide_pieces`).
// Lines carry no leading or trailing spaces. Work is bounded by the lines
// returned, not by the length of `text`, when `max_lines` is set.
std::vector<std::string> wrapText(std::string_view text, const WrapParams& p);

}  // namespace collviz
