#include "app/lang/line_break.h"

#include <algorithm>
#include <cstdint>

namespace collviz {

namespace {

// Line-breaking classes, a subset of UAX #14's.
enum class Cls {
  al,  // letters, digits, symbols: glued to each other
  id,  // ideographs, kana, hangul, full-width forms: break on either side
  op,  // opening punctuation: no break after
  cl,  // closing punctuation and non-starters: no break before
  sp,  // space: break after
  gl,  // no-break space: no break on either side
};

struct CodePoint {
  char32_t cp;
  std::size_t begin, end;  // bytes in the text
  Cls cls;
};

bool in(char32_t c, std::u32string_view set) { return set.find(c) != std::u32string_view::npos; }

Cls classOf(char32_t c) {
  if (c == U' ' || c == U'\t') return Cls::sp;
  if (c == 0x00a0 || c == 0x202f || c == 0x2060 || c == 0xfeff) return Cls::gl;
  if (in(c, U"([{“‘（「『《〈【〔〖〘〚［｛｟")) return Cls::op;
  if (in(c, U")]}”’）」』》〉】〕〗〙〛］｝｠，。、；：？！．｡､,.;:!?%‰°℃…‥・～〜ー々〻ゝゞヽヾ"
            U"ぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶ‼⁇⁈⁉"))
    return Cls::cl;
  if ((c >= 0x2e80 && c <= 0x2fdf) || (c >= 0x3000 && c <= 0x33ff) || (c >= 0x3400 && c <= 0x4dbf) ||
      (c >= 0x4e00 && c <= 0x9fff) || (c >= 0xa000 && c <= 0xa4cf) || (c >= 0xac00 && c <= 0xd7af) ||
      (c >= 0xf900 && c <= 0xfaff) || (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xffef) ||
      (c >= 0x20000 && c <= 0x3fffd) || c == 0x2014)
    return Cls::id;
  return Cls::al;
}

// Wide (East Asian) punctuation breaks on its outer side even next to Latin
// text; ASCII punctuation stays glued to the word it touches ("f(x)", "a,b").
// Curly quotes count as ASCII: "it’s" stays one word.
bool wide(char32_t c) { return c >= 0x2e80 || c == U'…'; }

std::vector<CodePoint> decode(std::string_view s) {
  std::vector<CodePoint> out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t b = i;
    const unsigned char c = s[i++];
    char32_t cp = c;
    const int extra = c < 0x80 ? 0 : c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : -1;
    if (extra < 0) cp = 0xfffd;
    else if (extra > 0) {
      cp = c & (0x3f >> extra);
      for (int k = 0; k < extra && i < s.size() && (static_cast<unsigned char>(s[i]) & 0xc0) == 0x80; ++k)
        cp = (cp << 6) | (static_cast<unsigned char>(s[i++]) & 0x3f);
    }
    out.push_back({cp, b, i, cp == U'\n' ? Cls::sp : classOf(cp)});
  }
  return out;
}

bool isDigit(char32_t c) { return c >= U'0' && c <= U'9'; }
bool isLetter(char32_t c) {
  return (c >= U'a' && c <= U'z') || (c >= U'A' && c <= U'Z') || c == U'µ' || (c >= 0x0391 && c <= 0x03c9);
}

// Whether the word ending at cps[end-1] is a number ("16", "1.5", "4,096").
bool numberBefore(const std::vector<CodePoint>& cps, std::size_t end) {
  bool digit = false;
  std::size_t i = end;
  for (; i > 0; --i) {
    const char32_t c = cps[i - 1].cp;
    if (isDigit(c)) digit = true;
    else if (c == U'.' || c == U',') continue;
    else if (cps[i - 1].cls == Cls::al) return false;  // a letter: "R2", "x86"
    else break;                                        // the word's start: a space, "，", "（"
  }
  return digit;
}

// A binary operator standing alone between spaces ("A + B", "S = N", "a / b"):
// a line never starts with one, so it stays at the end of the line with the
// operand before it and the break comes before the next operand.
bool loneOperator(const std::vector<CodePoint>& cps, std::size_t i) {
  if (!in(cps[i].cp, U"+-−±×÷/*=≈≠≤≥<>·")) return false;
  return i + 1 == cps.size() || cps[i + 1].cls == Cls::sp;
}

// May a line break before cps[i] (i > 0)?
bool breakBefore(const std::vector<CodePoint>& cps, std::size_t i) {
  const CodePoint& b = cps[i];
  const CodePoint& a = cps[i - 1];
  if (a.cp == U'\n') return true;
  if (b.cls == Cls::sp || b.cls == Cls::cl || b.cls == Cls::gl) return false;
  if (a.cls == Cls::sp) {
    std::size_t k = i - 1;  // the last code point before the spaces
    while (k > 0 && cps[k].cls == Cls::sp && cps[k].cp != U'\n') --k;
    if (cps[k].cls == Cls::sp) return false;  // only spaces since the start or a "\n": nothing to end
    if (cps[k].cls == Cls::op || cps[k].cls == Cls::gl) return false;
    if (loneOperator(cps, i)) return false;  // "… C / + D": "… C + / D" instead
    // "16 MiB", "8 ranks", "8 个": a number keeps the word after it.
    if (numberBefore(cps, k + 1) && (isLetter(b.cp) || b.cls == Cls::id)) return false;
    return true;
  }
  if (a.cls == Cls::op || a.cls == Cls::gl) return false;
  if (a.cp == 0x2014 && b.cp == 0x2014) return false;  // "——" is one dash
  if (a.cls == Cls::id || b.cls == Cls::id) return true;
  if (a.cls == Cls::cl && wide(a.cp)) return true;  // "，GPU", "。Ri"
  if (b.cls == Cls::op && wide(b.cp)) return true;  // "GPU（"
  return false;
}

// A piece of text between two break opportunities: [begin, end) in bytes,
// `ink` its end without trailing spaces.
struct Piece {
  std::size_t begin, ink, end;
  bool ideograph;  // holds a CJK character (not punctuation)
};

bool isSpaceByte(char c) { return c == ' ' || c == '\t'; }

}  // namespace

std::vector<std::size_t> breakOpportunities(std::string_view s) {
  const std::vector<CodePoint> cps = decode(s);
  std::vector<std::size_t> out;
  for (std::size_t i = 1; i < cps.size(); ++i)
    if (breakBefore(cps, i)) out.push_back(cps[i].begin);
  return out;
}

float terminalColumns(const std::string& utf8) {
  float n = 0;
  for (const CodePoint& c : decode(utf8))
    n += (c.cp >= 0x1100 && c.cp <= 0x115f) || (c.cp >= 0x2e80 && c.cp <= 0xa4cf) || (c.cp >= 0xac00 && c.cp <= 0xd7a3) ||
                 (c.cp >= 0xf900 && c.cp <= 0xfaff) || (c.cp >= 0xfe30 && c.cp <= 0xfe4f) ||
                 (c.cp >= 0xff00 && c.cp <= 0xff60) || (c.cp >= 0xffe0 && c.cp <= 0xffe6) || (c.cp >= 0x20000 && c.cp <= 0x3fffd)
             ? 2
             : 1;
  return n;
}

namespace {

// The greedy wrapper over one paragraph's pieces.
class Wrapper {
 public:
  Wrapper(std::string_view text, const WrapParams& p) : text_(text), p_(p) {}

  float width(std::size_t begin, std::size_t end) const {
    // A piece far longer than any line is first measured by its head: when
    // that already overflows, so does the whole (linear work per line).
    constexpr std::size_t kHead = 1024;
    if (end - begin > kHead) {
      std::size_t cut = begin + kHead;
      while (cut < end && (static_cast<unsigned char>(text_[cut]) & 0xc0) == 0x80) ++cut;
      const float head = p_.measure(std::string(text_.substr(begin, cut - begin)));
      if (head > p_.width) return head;
    }
    return p_.measure(std::string(text_.substr(begin, end - begin)));
  }
  bool fits(std::size_t begin, std::size_t end) const { return width(begin, end) <= p_.width; }

  struct Line {
    std::size_t first, last;  // pieces, inclusive; cut lines have first == last
    std::size_t begin, end;   // bytes
    bool cut = false;
  };

  // Lines of pieces[...]; stops once `room` lines are made.
  void wrap(const std::vector<Piece>& pieces, std::vector<Line>& lines, std::size_t room) {
    std::size_t k = 0;
    while (k < pieces.size() && lines.size() < room) {
      const Piece& first = pieces[k];
      if (!fits(first.begin, first.ink) && p_.cut_wide_pieces) {
        cutPiece(first, k, lines, room);
        ++k;
        continue;
      }
      std::size_t last = k;
      while (last + 1 < pieces.size() && fits(first.begin, pieces[last + 1].ink)) ++last;
      lines.push_back({k, last, first.begin, pieces[last].ink});
      k = last + 1;
    }
    next_piece_ = k;
    keepWordsCompany(pieces, lines);
  }
  std::size_t nextPiece() const { return next_piece_; }
  std::size_t cutRest() const { return cut_rest_; }

 private:
  // A piece wider than a line, cut between code points into lines that fit.
  void cutPiece(const Piece& piece, std::size_t index, std::vector<Line>& lines, std::size_t room) {
    std::size_t begin = piece.begin;
    cut_rest_ = std::string::npos;
    while (begin < piece.ink) {
      if (lines.size() >= room) {
        cut_rest_ = begin;
        return;
      }
      std::vector<std::size_t> ends;  // code point ends after `begin` (the first 4096)
      for (std::size_t i = begin; i < piece.ink && ends.size() < 4096;) {
        ++i;
        while (i < piece.ink && (static_cast<unsigned char>(text_[i]) & 0xc0) == 0x80) ++i;
        ends.push_back(i);
      }
      // The most code points that fit (at least one): doubling, then
      // bisection, so the bytes measured stay near a line's length.
      std::size_t n = 1;
      while (n < ends.size() && fits(begin, ends[n])) n *= 2;
      std::size_t lo = n / 2, hi = std::min(n, ends.size() - 1);  // ends[lo] fits (or is the one forced)
      while (lo < hi) {
        const std::size_t mid = (lo + hi + 1) / 2;
        if (fits(begin, ends[mid])) lo = mid;
        else hi = mid - 1;
      }
      lines.push_back({index, index, begin, ends[lo], true});
      begin = ends[lo];
    }
  }

  bool loneWord(const std::vector<Piece>& pieces, const Line& l) const {
    return !l.cut && l.first == l.last && !pieces[l.first].ideograph;
  }

  // A line holding one Latin word takes the Chinese character before it
  // along when that fits and the line before keeps Chinese of its own.
  void keepWordsCompany(const std::vector<Piece>& pieces, std::vector<Line>& lines) const {
    for (std::size_t i = 1; i < lines.size(); ++i) {
      Line& prev = lines[i - 1];
      Line& cur = lines[i];
      if (!loneWord(pieces, cur) || prev.cut || prev.last != cur.first - 1 || prev.first == prev.last) continue;
      const Piece& moved = pieces[prev.last];
      if (!moved.ideograph) continue;
      const Line rest{prev.first, prev.last - 1, prev.begin, pieces[prev.last - 1].ink};
      if (loneWord(pieces, rest) || !fits(moved.begin, cur.end)) continue;
      prev = rest;
      cur.first = prev.last + 1;
      cur.begin = moved.begin;
    }
  }

  std::string_view text_;
  const WrapParams& p_;
  std::size_t next_piece_ = 0;
  std::size_t cut_rest_ = std::string::npos;
};

std::vector<Piece> piecesOf(std::string_view para) {
  std::vector<std::size_t> cuts = breakOpportunities(para);
  cuts.insert(cuts.begin(), 0);
  cuts.push_back(para.size());
  std::vector<Piece> out;
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
    Piece pc{cuts[i], cuts[i + 1], cuts[i + 1], false};
    while (pc.ink > pc.begin && isSpaceByte(para[pc.ink - 1])) --pc.ink;
    while (pc.begin < pc.ink && isSpaceByte(para[pc.begin])) ++pc.begin;  // spaces opening the paragraph
    if (pc.begin == pc.ink) continue;
    for (const CodePoint& c : decode(para.substr(pc.begin, pc.ink - pc.begin)))
      if (c.cls == Cls::id && c.cp != 0x2014 && !(c.cp >= 0x3000 && c.cp <= 0x303f) && !(c.cp >= 0xff00 && c.cp <= 0xff65))
        pc.ideograph = true;
    out.push_back(pc);
  }
  return out;
}

}  // namespace

std::vector<std::string> wrapText(std::string_view text, const WrapParams& p) {
  std::vector<std::string> lines;
  const std::size_t room = p.max_lines > 0 ? std::size_t(p.max_lines) : std::string::npos;
  bool more = false;  // text left over past the last line allowed
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view para = text.substr(start, nl - start);
    if (lines.size() >= room) {
      more = true;
      break;
    }
    if (p.width <= 0 || !p.measure) {
      std::size_t b = 0, e = para.size();
      while (b < e && isSpaceByte(para[b])) ++b;
      while (e > b && isSpaceByte(para[e - 1])) --e;
      lines.emplace_back(para.substr(b, e - b));
    } else {
      const std::vector<Piece> pieces = piecesOf(para);
      if (pieces.empty()) lines.emplace_back();
      Wrapper w(para, p);
      std::vector<Wrapper::Line> ls;
      w.wrap(pieces, ls, room - lines.size());
      for (const Wrapper::Line& l : ls) lines.emplace_back(para.substr(l.begin, l.end - l.begin));
      if (w.nextPiece() < pieces.size() || w.cutRest() != std::string::npos) {
        more = true;
        break;
      }
    }
    if (nl == text.size()) break;
    start = nl + 1;
  }
  // A text that ends in "\n" has no empty line after it; nor does "".
  if (!text.empty() && text.back() == '\n' && !more && !lines.empty() && lines.back().empty()) lines.pop_back();
  if (text.empty()) lines.clear();
  if (more && !lines.empty()) lines.back() += "…";
  return lines;
}

}  // namespace collviz
