#include "app/panels/figure_draw.h"

#include <cmath>

namespace collviz::ui {

namespace {

ImVec2 bez(const NcclShape& s, float t) {
  float u = 1 - t;
  float a = u * u * u, b = 3 * u * u * t, c = 3 * u * t * t, d = t * t * t;
  return ImVec2(a * s.x0 + b * s.cx0 + c * s.cx1 + d * s.x1, a * s.y0 + b * s.cy0 + c * s.cy1 + d * s.y1);
}

}  // namespace

void drawFigure(const NcclFigure& f, ImVec2 o, float k) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  auto P = [&](float x, float y) { return ImVec2(o.x + x * k, o.y + y * k); };
  dl->AddRectFilled(o, P(f.width, f.height), packAbgr(f.background));
  ImFont* font = ImGui::GetFont();
  for (const NcclShape& s : f.shapes) {
    switch (s.kind) {
      case NcclShape::Kind::rect:
        if (s.filled) dl->AddRectFilled(P(s.x0, s.y0), P(s.x0 + s.x1, s.y0 + s.y1), packAbgr(s.fill), s.radius * k);
        if (s.stroke.a > 0) dl->AddRect(P(s.x0, s.y0), P(s.x0 + s.x1, s.y0 + s.y1), packAbgr(s.stroke), s.radius * k, 0, s.width * k);
        break;
      case NcclShape::Kind::arc: {
        const ImU32 c = packAbgr(s.stroke);
        constexpr int kSeg = 32;
        for (int i = 0; i < kSeg; ++i) {
          if (s.dashed && i % 2) continue;
          ImVec2 a = bez(s, float(i) / kSeg), b = bez(s, float(i + 1) / kSeg);
          dl->AddLine(P(a.x, a.y), P(b.x, b.y), c, s.width * k);
        }
        if (s.arrow) {  // along the last control point's direction into the end
          float dx = s.x1 - s.cx1, dy = s.y1 - s.cy1, n = std::sqrt(dx * dx + dy * dy);
          if (n > 0) {
            dx /= n, dy /= n;
            const float L = 9, W = 4.5f;
            ImVec2 tip = P(s.x1, s.y1), base(tip.x - dx * L * k, tip.y - dy * L * k);
            dl->AddTriangleFilled(tip, ImVec2(base.x - dy * W * k, base.y + dx * W * k), ImVec2(base.x + dy * W * k, base.y - dx * W * k), c);
          }
        }
        break;
      }
      case NcclShape::Kind::line:
        dl->AddLine(P(s.x0, s.y0), P(s.x1, s.y1), packAbgr(s.stroke), s.width * k);
        break;
      case NcclShape::Kind::text: {
        const float size = s.size * k * 1.15f;  // the SVG's em to ImGui's line height
        ImVec2 ext = font->CalcTextSizeA(size, 1e9f, 0, s.text.c_str());
        float x = s.anchor == 1 ? s.x0 * k - ext.x / 2 : s.anchor == 2 ? s.x0 * k - ext.x : s.x0 * k;
        dl->AddText(font, size, ImVec2(o.x + x, o.y + s.y0 * k - size * 0.8f), packAbgr(s.fill), s.text.c_str());
        break;
      }
    }
  }
}

}  // namespace collviz::ui
