#include "app/view/text.h"

#include <cstdint>

namespace collviz::ui {

namespace {
// Decode one code point; advances i. Invalid bytes decode as U+FFFD.
uint32_t next(std::string_view s, size_t& i) {
  unsigned char c = s[i++];
  if (c < 0x80) return c;
  int extra = (c >= 0xf0) ? 3 : (c >= 0xe0) ? 2 : (c >= 0xc0) ? 1 : -1;
  if (extra < 0) return 0xfffd;
  uint32_t cp = c & (0x3f >> extra);
  for (int k = 0; k < extra; ++k) {
    if (i >= s.size() || (static_cast<unsigned char>(s[i]) & 0xc0) != 0x80) return 0xfffd;
    cp = (cp << 6) | (static_cast<unsigned char>(s[i++]) & 0x3f);
  }
  return cp;
}
}  // namespace

std::string asciiFallback(std::string_view s) {
  std::string out;
  bool in_sub = false;  // consecutive subscript digits share one "_"
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = next(s, i);
    bool sub = (cp >= 0x2080 && cp <= 0x2089) || cp == 0x1d62;
    if (sub) {
      if (!in_sub) out += '_';
      out += cp == 0x1d62 ? 'i' : char('0' + (cp - 0x2080));
      in_sub = true;
      continue;
    }
    in_sub = false;
    if (cp < 0x80) { out += char(cp); continue; }
    switch (cp) {
      case 0x03a3: out += "S"; break;        // Σ
      case 0x03a0: out += "P"; break;        // Π
      case 0x2014: case 0x2013: out += "-"; break;
      case 0x00b7: case 0x2022: out += "*"; break;
      case 0x2192: out += "->"; break;
      case 0x2190: out += "<-"; break;
      case 0x2191: out += "^"; break;
      case 0x2193: out += "v"; break;
      case 0x2713: out += "ok"; break;
      case 0x2717: out += "x"; break;
      case 0x00d7: out += "x"; break;
      case 0x2260: out += "!="; break;
      case 0x2026: out += "..."; break;
      case 0x2212: out += "-"; break;
      case 0x00b5: case 0x03bc: out += "u"; break;   // µ (micro)
      case 0x21bb: case 0x21ba: out += "(r)"; break;  // ↻ (run again)
      case 0x2248: out += "~"; break;
      case 0x2264: out += "<="; break;
      case 0x2265: out += ">="; break;
      case 0x2211: out += "S"; break;                // ∑
      case 0x00f7: out += "/"; break;                // ÷
      case 0x03b1: out += "a"; break;                // α (latency)
      case 0x03b2: out += "b"; break;                // β (time per byte)
      case 0x00b1: out += "+/-"; break;              // ± (a fit's standard error)
      case 0x00a0: out += " "; break;                // no-break space
      default: out += '?';
    }
  }
  return out;
}

std::u32string toCodePoints(std::string_view s) {
  std::u32string out;
  for (size_t i = 0; i < s.size();) out += char32_t(next(s, i));
  return out;
}

int codePoints(std::string_view s) {
  int n = 0;
  for (size_t i = 0; i < s.size();) {
    next(s, i);
    ++n;
  }
  return n;
}

bool isCjk(char32_t c) { return c >= 0x2e80 && c <= 0xffff; }

float approxWidth(std::string_view utf8, float size) {
  float w = 0;
  for (char32_t c : toCodePoints(utf8)) w += isCjk(c) ? size : (c >= U'A' && c <= U'Z' ? 0.72f : 0.62f) * size;
  return w;
}

std::vector<TextRun> cjkRuns(std::string_view s) {
  std::vector<TextRun> runs;
  for (size_t i = 0; i < s.size();) {
    const size_t from = i;
    const bool cjk = isCjk(next(s, i));
    if (runs.empty() || runs.back().cjk != cjk) runs.push_back({"", cjk});
    runs.back().text.append(s.substr(from, i - from));
  }
  return runs;
}

}  // namespace collviz::ui
