#include "app/panels/nccl_log_window.h"

#include <imgui.h>

#include "app/gl/wrapped_text.h"
#include "app/lang/lang.h"
#include "app/panels/figure_draw.h"

namespace collviz::ui {

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
