#include "app/panels/controls_panel.h"
#include "app/lang/lang.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>

namespace collviz::ui {

namespace {

template <typename Enum>
bool enumCombo(const char* label, Enum* value, int count) {
  bool changed = false;
  std::string current(name(*value));
  if (ImGui::BeginCombo(label, current.c_str())) {
    for (int i = 0; i < count; ++i) {
      Enum e = static_cast<Enum>(i);
      std::string n(name(e));
      if (ImGui::Selectable(n.c_str(), e == *value)) {
        *value = e;
        changed = true;
      }
    }
    ImGui::EndCombo();
  }
  return changed;
}

void backendCombo(AppState& s, const DeviceReport* devices) {
  const BackendKind kinds[] = {BackendKind::automatic, BackendKind::gloo, BackendKind::nccl,
                               BackendKind::mpi};
  std::string current(name(s.backend));
  if (ImGui::BeginCombo(tr("backend"), current.c_str())) {
    for (BackendKind k : kinds) {
      std::string label(name(k));
      const BackendStatus* st = devices ? devices->find(k) : nullptr;
      if (st && !st->available) label += std::string("  ") + tr("(unavailable)");
      if (ImGui::Selectable(label.c_str(), k == s.backend)) s.backend = k;
      if (st && !st->available && !st->reason.empty() && ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", st->reason.c_str());
    }
    ImGui::EndCombo();
  }
}

// NCCL with more ranks than GPUs: the host-id route or NCCL's own
// multi-rank route (2.30 and newer; older runtimes fall back, with a notice).
void gpuSharingCombo(AppState& s, const DeviceReport* devices) {
  const BackendStatus* nccl = devices ? devices->find(BackendKind::nccl) : nullptr;
  ImGui::BeginDisabled(s.backend == BackendKind::gloo || s.backend == BackendKind::mpi || !nccl ||
                       !nccl->available);
  const char* names[] = {"host-id", "multi-rank"};
  int current = static_cast<int>(s.gpu_sharing);
  if (ImGui::Combo(tr("sharing"), &current, names, 2))
    s.gpu_sharing = static_cast<GpuSharing>(current);
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("%s", tr("NCCL ranks sharing one GPU: host-id or multi-rank (NCCL 2.30+)"));
  ImGui::EndDisabled();
}

}  // namespace

void ControlsPanel::hostsFields(AppState& s) {
  if (!(s.hosts == synced_)) {
    std::snprintf(hosts_buf_, sizeof hosts_buf_, "%s", s.hosts.hosts.c_str());
    std::snprintf(agent_buf_, sizeof agent_buf_, "%s", s.hosts.agent.c_str());
    synced_ = s.hosts;
  }
  ImGui::InputTextWithHint(tr("hosts"), tr("this machine (e.g. a:2,b:2)"), hosts_buf_, sizeof hosts_buf_);
  if (ImGui::IsItemDeactivatedAfterEdit()) s.hosts.hosts = hosts_buf_;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", tr("Run the ranks on these hosts through mpirun: host:slots,... as collviz run --hosts "
                               "(empty: this machine). Enter applies."));
  ImGui::InputTextWithHint(tr("agent"), "ssh", agent_buf_, sizeof agent_buf_);
  if (ImGui::IsItemDeactivatedAfterEdit()) s.hosts.agent = agent_buf_;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", tr("With hosts: the command mpirun reaches them with instead of ssh (its plm_rsh_agent)"));
  synced_ = s.hosts;
}

void ControlsPanel::Draw(AppState& s, const DeviceReport* devices) {
  ImGui::TextDisabled("%s", tr("RUN   (any change runs again · Space)"));
  // The fields leave room for the widest label beside them, in the reader's
  // language (数据类型 and 界面缩放 ran into the scrollbar when only
  // "elements" was measured).
  float label_w = 0;
  for (const char* l : {"ranks", "elements", "dtype", "reduce", "root", "backend", "sharing", "hosts", "agent", "UI scale", "zoom"})
    label_w = std::max(label_w, ImGui::CalcTextSize(tr(l)).x);
  ImGui::PushItemWidth(-label_w - ImGui::GetStyle().ItemSpacing.x * 2);
  ImGui::SliderInt(tr("ranks"), &s.spec.ranks, kMinRanks, kMaxRanks, "%d", ImGuiSliderFlags_AlwaysClamp);
  int elems = int(s.spec.elems);
  if (ImGui::InputInt(tr("elements"), &elems, 1, 16, ImGuiInputTextFlags_EnterReturnsTrue))
    s.spec.elems = std::clamp(elems, 1, 1 << 24);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("elements per block (Enter to apply)"));
  enumCombo(tr("dtype"), &s.spec.dtype, kDTypeCount);
  bool reduce_op = s.entry == kDecompositionEntry || reduces(static_cast<Op>(s.entry));
  ImGui::BeginDisabled(!reduce_op);
  enumCombo(tr("reduce"), &s.spec.redop, kRedOpCount);
  ImGui::EndDisabled();
  bool root_op = s.entry != kDecompositionEntry && usesRoot(static_cast<Op>(s.entry));
  ImGui::BeginDisabled(!root_op);
  s.spec.root = std::min(s.spec.root, s.spec.ranks - 1);
  ImGui::SliderInt(tr("root"), &s.spec.root, 0, s.spec.ranks - 1, "R%d", ImGuiSliderFlags_AlwaysClamp);
  ImGui::EndDisabled();
  backendCombo(s, devices);
  gpuSharingCombo(s, devices);
  hostsFields(s);

  ImGui::Spacing();
  ImGui::Separator();
  ImGui::TextDisabled("%s", tr("VIEW"));
  float scale = s.ui_scale;
  ImGui::SliderFloat(tr("UI scale"), &scale, 0.75f, 3.0f, "%.2fx");
  // Apply on release: rebuilding the font atlas every drag step is wasteful.
  if (ImGui::IsItemDeactivatedAfterEdit()) s.ui_scale = scale;
  if (ImGui::Button("1x")) s.ui_scale = 1.0f;
  ImGui::SameLine();
  if (ImGui::Button("1.5x")) s.ui_scale = 1.5f;
  ImGui::SameLine();
  if (ImGui::Button(tr("lecture hall 2x"))) s.ui_scale = 2.0f;
  ImGui::SliderFloat(tr("zoom"), &s.view.zoom, 0.5f, 3.0f, "%.2fx");
  bool dark = s.view.theme == ThemeKind::dark;
  if (ImGui::Checkbox(tr("dark theme (T)"), &dark)) s.view.theme = dark ? ThemeKind::dark : ThemeKind::light;
  ImGui::PopItemWidth();
}

void ControlsPanel::DrawPrefetch(Runs& runs, const std::vector<RunKey>& keys, bool lecture) {
  // In a lecture the same switch runs its next steps ahead instead of other ops.
  bool on = runs.prefetch();
  const char* label = lecture ? tr("run the lecture's next steps in the background")
                              : tr("run other ops in the background");
  // The box, then its label wrapped within the sidebar (it was cut at the
  // edge: "run other ops in the background (al"); a click on either toggles.
  if (ImGui::Checkbox("##prefetch", &on)) runs.setPrefetch(on);
  bool hovered = ImGui::IsItemHovered();
  ImGui::SameLine();
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextUnformatted(label);
  ImGui::PopTextWrapPos();
  if (ImGui::IsItemClicked()) runs.setPrefetch(!on);
  hovered = hovered || ImGui::IsItemHovered();
  if (hovered)
    ImGui::SetTooltip("%s", lecture ? tr("so → shows the next step's real result at once; stops once every step is cached")
                                    : tr("so ← → shows a real result at once; stops once every op is cached"));
  if (on && runs.allCached(keys)) {
    const char* all = tr("(all cached)");
    ImGui::SetCursorPosX(ImGui::GetCursorPosX() + ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x);
    ImGui::TextDisabled("%s", all);
  }
}

}  // namespace collviz::ui
