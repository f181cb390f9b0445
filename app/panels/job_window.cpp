#include "app/panels/job_window.h"

#include <imgui.h>

#include "app/gl/wrapped_text.h"
#include "app/lang/lang.h"
#include "app/panels/figure_draw.h"
#include "app/view/job_call.h"

namespace collviz::ui {

Status JobWindow::open(const std::string& path) {
  auto r = job::read({path});
  if (!r.ok()) return r.error();
  job_ = std::make_shared<const job::Job>(std::move(*r));
  analysis_ = job::analyse(*job_);
  opened_.clear();
  openedOk_ = false;
  clickedShape_ = -1;
  figKey_ = -1;
  shown = true;
  unfold_ = true;
  return {};
}

std::string JobWindow::origin(const AppState& s) const {
  if (!job_ || !openedOk_ || s.program() != Program::single || !(s.runSpec() == openedSpec_)) return {};
  return render(say("from the job's traces: {0} (its tile is marked in Job traces)", openedWhat_));
}

void JobWindow::Draw(AppState& s, const BackendCaps* caps, bool open_now) {
  dialog_.Draw("open_job", tr("Open job traces"),
               tr("A real job's files: PyTorch Flight Recorder dumps, NCCL RAS, Inspector or profiler output, nccl-tests output; a file or a folder."),
               open_now, [this](const std::string& path) { return open(path); });
  if (shown && job_) drawWindow(s, caps);
}

void JobWindow::drawWindow(AppState& s, const BackendCaps* caps) {
  // Most of the screen: a job's figure is wide (a lane of tiles per group).
  const ImVec2 screen = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowPos(ImVec2(screen.x * 0.05f, screen.y * 0.06f), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(screen.x * 0.9f, screen.y * 0.85f), ImGuiCond_FirstUseEver);
  // A click that opened a call folds the window to its title bar at the
  // bottom, so the op view it opened is in sight; unfolded, it comes back up.
  if (fold_) ImGui::SetNextWindowCollapsed(true, ImGuiCond_Always), fold_ = false, folded_ = true;
  if (unfold_) ImGui::SetNextWindowCollapsed(false, ImGuiCond_Always), unfold_ = false;  // a job opened anew
  // Folded: in the line the main view leaves free at the bottom (folded()).
  if (folded_) ImGui::SetNextWindowPos(ImVec2(screen.x * 0.5f, screen.y - ImGui::GetFrameHeight()), ImGuiCond_Always);
  const bool open = ImGui::Begin((std::string(tr("Job traces")) + "###job").c_str(), &shown);
  if (folded_ && !ImGui::IsWindowCollapsed()) {
    folded_ = false;
    ImGui::SetWindowPos(ImVec2(screen.x * 0.05f, screen.y * 0.06f));
  }
  if (!open) {
    ImGui::End();
    return;
  }
  // The figure's texts wrap to the width in view (figure units, k a unit's
  // pixels), in steps of 32 units so that a resize rebuilds it rarely.
  const float k = std::max(0.5f, ImGui::GetFontSize() / 14.0f);
  const float view = (ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ScrollbarSize) / k;
  const int step = std::max(1, int(view / 32));
  const int key = (int(s.view.theme) * 2 + (language() == Lang::zh ? 1 : 0)) * 1000 + std::min(step, 999);
  if (key != figKey_) {
    JobFigureParams p;
    p.theme = s.view.theme;
    p.view_width = float(step) * 32;
    p.say = [](const Text& t) { return render(t); };
    auto fig = jobFigure(*job_, analysis_, p);
    fig_ = fig.ok() ? std::move(*fig) : NcclFigure{};
    figError_ = fig.ok() ? std::string() : render(fig.error());
    figKey_ = key;
  }
  if (!figError_.empty()) {  // the files read, but hold nothing to draw
    WrappedText(figError_);
    ImGui::End();
    return;
  }
  const NcclFigure& f = fig_;
  WrappedText(tr("Click a collective to open it as collviz's own op, run here."));
  if (!opened_.empty()) WrappedText(opened_);
  ImGui::BeginChild("figure", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  const ImVec2 o = ImGui::GetCursorScreenPos();
  drawFigure(f, o, k);
  if (clickedShape_ >= 0 && std::size_t(clickedShape_) < f.shapes.size()) {  // the tile the main view shows
    const NcclShape& t = f.shapes[std::size_t(clickedShape_)];
    const float pad = 3 * k;
    ImGui::GetWindowDrawList()->AddRect(ImVec2(o.x + t.x0 * k - pad, o.y + t.y0 * k - pad),
                                        ImVec2(o.x + (t.x0 + t.x1) * k + pad, o.y + (t.y0 + t.y1) * k + pad),
                                        ImGui::GetColorU32(ImGuiCol_CheckMark), 4 * k, 0, 2.5f * k);
  }
  ImGui::InvisibleButton("##job_figure", ImVec2(f.width * k, f.height * k));
  if (ImGui::IsItemHovered()) {  // the call under the mouse, looked up once a frame
    const ImVec2 m = ImGui::GetMousePos();
    const int call = jobFigureCallAt(f, (m.x - o.x) / k, (m.y - o.y) / k);
    if (call >= 0) ImGui::SetMouseCursor(ImGuiMouseCursor_Hand);
    if (call >= 0 && ImGui::IsItemClicked()) {
      const JobCallOpened r = openJobCall(s, *job_, call, caps);
      opened_ = render(r.what);
      fold_ = r.ok;
      for (const Said& c : r.changes) opened_ += " · " + render(c);
      openedWhat_ = r.what, openedOk_ = r.ok, openedSpec_ = s.runSpec();
      clickedShape_ = -1;
      const float fx = (m.x - o.x) / k, fy = (m.y - o.y) / k;
      for (std::size_t i = 0; i < f.shapes.size() && clickedShape_ < 0; ++i) {
        const NcclShape& t = f.shapes[i];
        if (t.call >= 0 && fx >= t.x0 && fx <= t.x0 + t.x1 && fy >= t.y0 && fy <= t.y0 + t.y1) clickedShape_ = int(i);
      }
    }
  }
  ImGui::EndChild();
  ImGui::End();
}

}  // namespace collviz::ui
