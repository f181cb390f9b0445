#include "app/files/nccl_log_svg.h"

#include <algorithm>
#include <cstdio>

#include "app/files/svg_writer.h"
#include "app/view/text.h"

namespace collviz::ui {

namespace {

std::string num(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", double(v));
  std::string s = buf;
  if (s.size() > 2 && s.substr(s.size() - 2) == ".0") s.resize(s.size() - 2);
  return s;
}

std::string hex(Rgba c) {
  auto byte = [](float v) { return int(std::clamp(v, 0.0f, 1.0f) * 255.0f + 0.5f); };
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", byte(c.r), byte(c.g), byte(c.b));
  return buf;
}

std::string esc(const std::string& t) { return svgEscape(t); }  // never a character XML forbids

}  // namespace

std::string figureToSvg(const NcclFigure& f, const FigureFonts& fonts) {
  std::string o = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(f.width) + "\" height=\"" + num(f.height) + "\" viewBox=\"0 0 " +
                  num(f.width) + " " + num(f.height) + "\">\n<title>" + esc(f.title) + "</title>\n<defs>\n";
  for (const auto& [k, c] : f.markers)
    o += "<marker id=\"arrow-" + k +
         "\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerUnits=\"userSpaceOnUse\" markerWidth=\"9\" markerHeight=\"9\" orient=\"auto\">"
         "<path d=\"M0 0 L10 5 L0 10 Z\" fill=\"" + hex(c) + "\"/></marker>\n";
  o += "</defs>\n<rect width=\"100%\" height=\"100%\" fill=\"" + hex(f.background) +
       "\"/>\n<g font-family=\"DejaVu Sans, Verdana, Noto Sans CJK SC, sans-serif\">\n";
  static const char* const kAnchor[] = {"start", "middle", "end"};
  for (const NcclShape& s : f.shapes) {
    switch (s.kind) {
      case NcclShape::Kind::rect:
        o += "<rect class=\"" + s.cls + "\"" + s.data + " x=\"" + num(s.x0) + "\" y=\"" + num(s.y0) + "\" width=\"" + num(s.x1) + "\" height=\"" +
             num(s.y1) + "\" rx=\"" + num(s.radius) + "\" fill=\"" + (s.filled ? hex(s.fill) : std::string("none")) + "\" stroke=\"" +
             hex(s.stroke) + "\"" + (s.dashed ? " stroke-dasharray=\"4 3\"" : "") + "/>\n";
        break;
      case NcclShape::Kind::arc:
        o += "<path class=\"" + s.cls + "\"" + s.data + " d=\"M" + num(s.x0) + " " + num(s.y0) + " C" + num(s.cx0) + " " + num(s.cy0) + " " +
             num(s.cx1) + " " + num(s.cy1) + " " + num(s.x1) + " " + num(s.y1) + "\" fill=\"none\" stroke=\"" + hex(s.stroke) +
             "\" stroke-width=\"" + num(s.width) + "\"" + (s.dashed ? " stroke-dasharray=\"6 3\"" : "") +
             (s.arrow ? " marker-end=\"url(#arrow-" + s.marker + ")\"" : "") + "/>\n";
        break;
      case NcclShape::Kind::line:
        o += "<line x1=\"" + num(s.x0) + "\" y1=\"" + num(s.y0) + "\" x2=\"" + num(s.x1) + "\" y2=\"" + num(s.y1) + "\" stroke=\"" +
             hex(s.stroke) + "\" stroke-width=\"" + num(s.width) + "\"" + (s.dashed ? " stroke-dasharray=\"6 3\"" : "") + "/>\n";
        break;
      case NcclShape::Kind::text:
        o += "<text x=\"" + num(s.x0) + "\" y=\"" + num(s.y0) + "\" font-size=\"" + num(s.size) + "\" fill=\"" + hex(s.fill) +
             "\" text-anchor=\"" + kAnchor[std::clamp(s.anchor, 0, 2)] + "\"" + (s.bold ? " font-weight=\"bold\"" : "") + ">";
        // CJK runs in their own font at its natural size, as in every figure.
        for (const TextRun& r : cjkRuns(s.text))
          o += r.cjk ? "<tspan font-size=\"" + num(s.size * fonts.em(s.bold)) + "\" font-family=\"" + esc(fonts.cjk) +
                           ", sans-serif\">" + esc(r.text) + "</tspan>"
                     : esc(r.text);
        o += "</text>\n";
        break;
    }
  }
  o += "</g>\n</svg>\n";
  return o;
}

Result<std::string> ncclLogSvg(const nccl_log::Log& log, const NcclFigureParams& p) {
  auto f = ncclLogFigure(log, p);
  if (!f.ok()) return f.error();
  return figureToSvg(*f);
}

}  // namespace collviz::ui
