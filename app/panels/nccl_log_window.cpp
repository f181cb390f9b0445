#include "app/panels/nccl_log_window.h"

#include <imgui.h>

#include <cmath>

#include "app/gl/wrapped_text.h"
#include "app/lang/lang.h"

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

Status NcclLogWindow::open(const std::string& path) {
  auto r = nccl_log::read({path});
  if (!r.ok()) return r.error();
  show(std::make_shared<const nccl_log::Log>(std::move(*r)));
  return {};
}

void NcclLogWindow::show(std::shared_ptr<const nccl_log::Log> log) {
  if (!log) return;
  if (log != log_) channel_ = -1, comm_ = 0;
  log_ = std::move(log);
  shown = true;
}

void NcclLogWindow::Draw(ThemeKind theme, bool open_now) {
  dialog_.Draw("open_nccl_log", tr("Open NCCL log"),
               tr("NCCL's own log (run with NCCL_DEBUG=INFO): a file, or a folder of per-rank files."), open_now,
               [this](const std::string& path) { return open(path); });
  if (shown && log_) drawWindow(theme);
}

void NcclLogWindow::drawWindow(ThemeKind theme) {
  ImGui::SetNextWindowSize(ImVec2(ImGui::GetFontSize() * 60, ImGui::GetFontSize() * 40), ImGuiCond_FirstUseEver);
  if (!ImGui::Begin((std::string(tr("NCCL log")) + "###nccl_log").c_str(), &shown)) {
    ImGui::End();
    return;
  }
  const nccl_log::Log& log = *log_;
  if (log.comms.size() > 1) {
    int c = int(comm_);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
    if (ImGui::SliderInt(tr("communicator"), &c, 0, int(log.comms.size()) - 1)) comm_ = std::size_t(c), channel_ = -1;
    ImGui::SameLine();
  }
  if (comm_ < log.comms.size()) {
    const nccl_log::Comm& cm = log.comms[comm_];
    std::string now = channel_ < 0 ? std::string(tr("all")) : std::to_string(channel_);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
    if (ImGui::BeginCombo(tr("channel"), now.c_str())) {
      if (ImGui::Selectable(tr("all"), channel_ < 0)) channel_ = -1;
      for (const nccl_log::Ring& r : cm.rings)
        if (ImGui::Selectable(std::to_string(r.channel).c_str(), channel_ == r.channel)) channel_ = r.channel;
      ImGui::EndCombo();
    }
  }
  NcclFigureParams p;
  p.channel = channel_, p.comm = comm_, p.theme = theme;
  p.say = [](const Text& t) { return render(t); };
  auto f = ncclLogFigure(log, p);
  if (!f.ok()) {
    WrappedText(render(f.error()));
  } else {
    ImGui::BeginChild("figure", ImVec2(0, -ImGui::GetTextLineHeightWithSpacing() * float(std::min<std::size_t>(log.missing.size(), 4) + 1)), false,
                      ImGuiWindowFlags_HorizontalScrollbar);
    const float k = std::max(0.5f, ImGui::GetFontSize() / 14.0f);
    const ImVec2 o = ImGui::GetCursorScreenPos();
    drawFigure(*f, o, k);
    ImGui::Dummy(ImVec2(f->width * k, f->height * k));
    ImGui::EndChild();
  }
  for (const Said& m : log.missing) WrappedText("· " + render(m));
  ImGui::End();
}

}  // namespace collviz::ui
