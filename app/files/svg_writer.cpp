#include "app/files/svg_writer.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>

#include "app/view/text.h"

namespace collviz::ui {

// Numbers with at most two decimals and no trailing zeros: small, stable.
std::string svgNumber(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", double(v));
  std::string s = buf;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

std::string svgEscape(const std::string& t) {
  std::string out;
  out.reserve(t.size());
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(t[k]); };
  for (std::size_t i = 0; i < t.size();) {
    const unsigned c = b(i);
    // The character's length where XML allows it (valid UTF-8; not a C0
    // control but tab, newline and return; not a surrogate, U+FFFE or
    // U+FFFF), else 0: U+FFFD in its place, so the file always parses.
    std::size_t n = c < 0x80 ? (c >= 0x20 || c == '\t' || c == '\n' || c == '\r' ? 1 : 0)
                    : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (n > 1) {
      if (i + n > t.size()) n = 0;
      for (std::size_t k = 1; n && k < n; ++k)
        if ((b(i + k) & 0xC0) != 0x80) n = 0;
      if (n && ((c == 0xE0 && b(i + 1) < 0xA0) || (c == 0xED && b(i + 1) >= 0xA0) || (c == 0xF0 && b(i + 1) < 0x90) ||
                (c == 0xF4 && b(i + 1) >= 0x90) || (c == 0xEF && b(i + 1) == 0xBF && b(i + 2) >= 0xBE)))
        n = 0;
    }
    if (n == 0) {
      out += "\xef\xbf\xbd";
      ++i;
      continue;
    }
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out.append(t, i, n);
    }
    i += n;
  }
  return out;
}

namespace {

std::string num(float v) { return svgNumber(v); }
std::string escape(const std::string& t) { return svgEscape(t); }

std::string hex(Rgba c) {
  auto byte = [](float v) { return int(std::clamp(v, 0.0f, 1.0f) * 255.0f + 0.5f); };
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", byte(c.r), byte(c.g), byte(c.b));
  return buf;
}

// fill="#..." (and fill-opacity when translucent); attr is "fill" or "stroke".
std::string paint(const char* attr, Rgba c) {
  std::string s = std::string(attr) + "=\"" + hex(c) + "\"";
  if (c.a < 0.999f) s += std::string(" ") + attr + "-opacity=\"" + num(c.a) + "\"";
  return s;
}



// A closed rounded-rectangle path (clockwise).
std::string roundedRect(float x, float y, float w, float h, float r) {
  r = std::max(0.0f, std::min({r, w / 2, h / 2}));
  if (w <= 0 || h <= 0) return "";
  std::string a = " A" + num(r) + " " + num(r) + " 0 0 1 ";
  return "M" + num(x + r) + " " + num(y) + " H" + num(x + w - r) + a + num(x + w) + " " +
         num(y + r) + " V" + num(y + h - r) + a + num(x + w - r) + " " + num(y + h) + " H" +
         num(x + r) + a + num(x) + " " + num(y + h - r) + " V" + num(y + r) + a + num(x + r) + " " +
         num(y) + " Z";
}

// The k-th set bit's letter (the tile shader's stripeColor).
int kthContributor(uint32_t mask, int k) {
  for (int bit = 0, seen = 0; bit < 32; ++bit)
    if (mask & (1u << bit)) {
      if (seen == k) return bit;
      ++seen;
    }
  return -1;
}

// One tile as shaders/tile.frag draws it: a border ring of border_width
// inside the rect, the fill within, dashes, contributor stripes.
void tile(std::string& out, const TileInstance& t, int id) {
  const Rect& r = t.rect;
  const float radius = std::min({t.radius, r.w / 2, r.h / 2}), bw = t.border_width;
  const std::string outer = roundedRect(r.x, r.y, r.w, r.h, radius);
  const std::string inner = roundedRect(r.x + bw, r.y + bw, r.w - 2 * bw, r.h - 2 * bw, radius - bw);
  if (t.flags & kTileDashed) {
    // The shader: 5 pixels on, 4 off, along the edge; the fill is empty.
    if (t.fill.a > 0.001f) out += "<path d=\"" + inner + "\" " + paint("fill", t.fill) + "/>\n";
    out += "<path d=\"" + roundedRect(r.x + bw / 2, r.y + bw / 2, r.w - bw, r.h - bw, radius - bw / 2) +
           "\" fill=\"none\" " + paint("stroke", t.border) + " stroke-width=\"" + num(bw) +
           "\" stroke-dasharray=\"5 4\"/>\n";
    return;
  }
  out += "<path d=\"" + outer + " " + inner + "\" fill-rule=\"evenodd\" " + paint("fill", t.border) + "/>\n";
  const int n = std::popcount(t.stripes);
  if (!(t.flags & (kTileStripes | kTileStripesFull)) || n == 0) {
    out += "<path d=\"" + inner + "\" " + paint("fill", t.fill) + "/>\n";
    return;
  }
  // Stripes replace the fill in a band along the bottom (or everywhere).
  const float band = (t.flags & kTileStripesFull) ? r.h : std::max(3.0f, 0.17f * r.h);
  const float top = r.y + r.h - bw - band, x0 = r.x + bw, w = r.w - 2 * bw;
  const float seg = w / float(n), gap = (n > 1 && seg > 4.0f) ? 0.6f : 0.0f;
  std::string clip = "c" + std::to_string(id);
  out += "<clipPath id=\"" + clip + "\"><path d=\"" + inner + "\"/></clipPath>\n<g clip-path=\"url(#" +
         clip + ")\">\n";
  auto rect = [&](float x, float y, float rw, float rh, Rgba c) {
    if (rw <= 0 || rh <= 0) return;
    out += "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(rw) + "\" height=\"" +
           num(rh) + "\" " + paint("fill", c) + "/>\n";
  };
  rect(r.x, r.y, r.w, top - r.y, t.fill);
  for (int k = 0; k < n; ++k) {
    Rgba c = letterColor(kthContributor(t.stripes, k));
    c.a = t.fill.a;
    float xk = x0 + k * seg;
    rect(xk, top, gap, r.y + r.h - top, t.fill);
    rect(xk + gap, top, seg - 2 * gap, r.y + r.h - top, c);
    rect(xk + seg - gap, top, gap, r.y + r.h - top, t.fill);
  }
  out += "</g>\n";
}

void text(std::string& out, const TextItem& t, const SvgParams& p) {
  const char* anchor = t.align_x < 0.25f ? "start" : t.align_x < 0.75f ? "middle" : "end";
  const float top = t.anchor.y - t.size * t.align_y;
  const float base = top + p.ascent[int(t.style)] * t.size;
  out += "<text x=\"" + num(t.anchor.x) + "\" y=\"" + num(base) + "\" font-size=\"" + num(t.size * p.em_per_size) + "\"";
  if (t.style != TextStyle::regular) out += " font-weight=\"bold\"";
  if (anchor[0] != 's') out += std::string(" text-anchor=\"") + anchor + "\"";
  out += " " + paint("fill", t.color) + ">";
  // CJK runs in their own font, sized so that an ideograph is as tall as H.
  const std::string cjk_size = num(t.size * p.em_per_size * p.cjk_em[int(t.style)]);
  const std::string cjk_font = p.cjk_family.empty() ? "" : " font-family=\"" + escape(p.cjk_family) + ", sans-serif\"";
  for (const TextRun& r : cjkRuns(t.text))
    out += r.cjk ? "<tspan font-size=\"" + cjk_size + "\"" + cjk_font + ">" + escape(r.text) + "</tspan>" : escape(r.text);
  out += "</text>\n";
}

}  // namespace

std::string sceneToSvg(const Scene& s, const std::vector<TextItem>& extra, const SvgParams& p) {
  std::string out;
  out.reserve(64 * 1024);
  const std::string w = std::to_string(p.width), h = std::to_string(p.height);
  const std::string x = std::to_string(p.view_x), y = std::to_string(p.view_y);
  out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + w + "\" height=\"" + h +
         "\" viewBox=\"" + x + " " + y + " " + w + " " + h + "\">\n";
  if (!p.title.empty()) out += "<title>" + escape(p.title) + "</title>\n";
  const std::string at = p.view_x || p.view_y ? "x=\"" + x + "\" y=\"" + y + "\" " : "";
  out += "<rect " + at + "width=\"" + w + "\" height=\"" + h + "\" " + paint("fill", p.background) + "/>\n";
  // The renderer's order: flows, arrowheads, tiles, then text on top.
  out += "<g fill=\"none\" stroke-linecap=\"butt\">\n";
  for (const CurveInstance& c : s.curves)
    out += "<path d=\"M" + num(c.p0.x) + " " + num(c.p0.y) + " C" + num(c.p1.x) + " " + num(c.p1.y) +
           " " + num(c.p2.x) + " " + num(c.p2.y) + " " + num(c.p3.x) + " " + num(c.p3.y) + "\" " +
           paint("stroke", c.color) + " stroke-width=\"" + num(c.width) + "\"" +
           (c.dash > 0 ? " stroke-dasharray=\"" + num(c.dash) + " " + num(c.dash) + "\"" : "") + "/>\n";
  out += "</g>\n";
  for (const Triangle& t : s.triangles)
    out += "<path d=\"M" + num(t.a.x) + " " + num(t.a.y) + " L" + num(t.b.x) + " " + num(t.b.y) + " L" +
           num(t.c.x) + " " + num(t.c.y) + " Z\" " + paint("fill", t.color) + "/>\n";
  // Then the overlay (blocks in flight) over all of that, texts included.
  int id = 0;
  const std::size_t ot = std::min(s.overlay_tiles, s.tiles.size()), ox = std::min(s.overlay_texts, s.texts.size());
  for (std::size_t i = 0; i < ot; ++i) tile(out, s.tiles[i], id++);
  const std::string font = "<g font-family=\"DejaVu Sans, Verdana, sans-serif\">\n";
  out += font;
  for (std::size_t i = 0; i < ox; ++i) text(out, s.texts[i], p);
  for (const TextItem& t : extra) text(out, t, p);
  out += "</g>\n";
  if (ot < s.tiles.size() || ox < s.texts.size()) {
    for (std::size_t i = ot; i < s.tiles.size(); ++i) tile(out, s.tiles[i], id++);
    out += font;
    for (std::size_t i = ox; i < s.texts.size(); ++i) text(out, s.texts[i], p);
    out += "</g>\n";
  }
  out += "</svg>\n";
  return out;
}

}  // namespace collviz::ui
