#include "app/panels/compare_plot.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "app/lang/lang.h"
#include "app/view/link_view.h"
#include "app/view/palette.h"

namespace collviz::ui {

namespace {

std::string usLabel(double us) {
  char buf[32];
  if (us >= 1e6) std::snprintf(buf, sizeof buf, "%g s", us / 1e6);
  else if (us >= 1e3) std::snprintf(buf, sizeof buf, "%g ms", us / 1e3);
  else std::snprintf(buf, sizeof buf, "%g µs", us);
  return buf;
}

}  // namespace

void drawComparePlot(const std::vector<SweepSeries>& series, const AlphaBeta& fit, const Fonts& fonts) {
  const float u = fonts.scale > 0 ? fonts.scale : 1.0f;
  double x_lo = 1e300, x_hi = 0, y_lo = 1e300, y_hi = 0;
  for (const SweepSeries& s : series)
    for (const SizePoint& p : s.sizes) {
      x_lo = std::min(x_lo, p.block_bytes);
      x_hi = std::max(x_hi, p.block_bytes);
      for (double y : {p.median_us, fit.alpha_ok && fit.beta_ok ? modelUs(fit, s.messages, p.model_bytes) : -1.0})
        if (y > 0) y_lo = std::min(y_lo, y), y_hi = std::max(y_hi, y);
    }
  if (!(x_hi > x_lo) || !(y_hi > 0)) return;
  const double lx0 = std::log10(x_lo), lx1 = std::log10(x_hi);
  const double ly0 = std::floor(std::log10(y_lo)), ly1 = std::max(ly0 + 1, std::ceil(std::log10(y_hi)));

  const float left = 64 * u, bottom = 36 * u, w = std::max(200 * u, ImGui::GetContentRegionAvail().x);
  const float h = 250 * u;
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(w, h));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 axis = ImGui::GetColorU32(ImGuiCol_TextDisabled), text = ImGui::GetColorU32(ImGuiCol_Text);
  const ImVec2 p0{o.x + left, o.y + 26 * u}, p1{o.x + w - 150 * u, o.y + h - bottom};
  auto X = [&](double b) { return p0.x + float((std::log10(b) - lx0) / std::max(1e-9, lx1 - lx0)) * (p1.x - p0.x); };
  auto Y = [&](double us) { return p1.y - float((std::log10(us) - ly0) / (ly1 - ly0)) * (p1.y - p0.y); };
  dl->AddRect(p0, p1, axis);
  for (double e = ly0; e <= ly1 + 1e-9; e += 1) {  // a line per power of ten
    const float y = Y(std::pow(10.0, e));
    dl->AddLine({p0.x, y}, {p1.x, y}, (axis & 0x00FFFFFF) | 0x40000000);
    const std::string l = fonts.display(usLabel(std::pow(10.0, e)));
    const ImVec2 ts = ImGui::CalcTextSize(l.c_str());
    dl->AddText({p0.x - ts.x - 6 * u, y - ts.y / 2}, axis, l.c_str());
  }
  for (const SizePoint& p : series.front().sizes) {  // the sweep's sizes
    const float x = X(p.block_bytes);
    dl->AddLine({x, p1.y}, {x, p1.y + 4 * u}, axis);
    const std::string l = fonts.display(byteText(p.block_bytes));
    const ImVec2 ts = ImGui::CalcTextSize(l.c_str());
    dl->AddText({x - ts.x / 2, p1.y + 6 * u}, axis, l.c_str());
  }
  const std::string xl = fonts.display(tr("block size (log)")), yl = fonts.display(tr("time (log)"));
  dl->AddText({p1.x - ImGui::CalcTextSize(xl.c_str()).x, p1.y + 20 * u}, axis, xl.c_str());
  dl->AddText({o.x, o.y}, axis, yl.c_str());

  float ly = p0.y;  // the legend, right of the plot
  for (std::size_t i = 0; i < series.size(); ++i) {
    const SweepSeries& s = series[i];
    const ImU32 c = packAbgr(letterColor(int(i)));
    if (fit.alpha_ok && fit.beta_ok) {  // the model, a line through many sizes (a curve on log axes)
      const double per_byte = s.sizes.back().block_bytes > 0 ? s.sizes.back().model_bytes / s.sizes.back().block_bytes : 0;
      std::vector<ImVec2> line;
      for (int k = 0; k <= 40; ++k) {
        const double b = std::pow(10.0, lx0 + (lx1 - lx0) * k / 40.0);
        const double us = modelUs(fit, s.messages, per_byte * b);
        if (us > 0) line.push_back({X(b), std::clamp(Y(us), p0.y, p1.y)});
      }
      if (line.size() > 1) dl->AddPolyline(line.data(), int(line.size()), c, 0, 2 * u);
    }
    for (const SizePoint& p : s.sizes)
      if (p.median_us > 0) dl->AddCircleFilled({X(p.block_bytes), Y(p.median_us)}, 4 * u, c);
    // Legend: which colour, dot and line mean what.
    const float lx = p1.x + 12 * u;
    dl->AddCircleFilled({lx + 6 * u, ly + 7 * u}, 4 * u, c);
    dl->AddText({lx + 16 * u, ly}, text, fonts.display(s.algo + " " + tr("measured")).c_str());
    if (fit.alpha_ok && fit.beta_ok) {
      dl->AddLine({lx, ly + 25 * u}, {lx + 12 * u, ly + 25 * u}, c, 2 * u);
      dl->AddText({lx + 16 * u, ly + 18 * u}, text, fonts.display(s.algo + " " + tr("model")).c_str());
    }
    ly += 44 * u;
  }
}

}  // namespace collviz::ui
