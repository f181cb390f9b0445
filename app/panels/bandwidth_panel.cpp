#include "app/panels/bandwidth_panel.h"
#include "app/lang/lang.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/view/axis_ticks.h"
#include "app/view/palette.h"
#include "app/gl/wrapped_text.h"
#include "engine/bench/bench.h"

namespace collviz::ui {

BenchConfig benchConfigFor(const AppState& app, int min_exp, int max_exp, int factor, int iters,
                           int warmup, int check) {
  BenchConfig c;
  const OpSpec s = app.runSpec();
  c.ops = {s.op};
  c.ranks = s.ranks;
  c.dtype = s.dtype;
  c.redop = s.redop;
  c.root = s.root;
  c.backend = app.backend;
  c.min_bytes = std::size_t(1) << std::clamp(min_exp, 0, 40);
  c.max_bytes = std::size_t(1) << std::clamp(max_exp, 0, 40);
  c.factor = factor;
  c.iters = iters;
  c.warmup = warmup;
  c.check = check;
  return c;
}

void BandwidthPanel::start(const AppState& app) {
  const BenchConfig c = benchConfigFor(app, min_exp, max_exp, factor, iters, warmup, check);
  refusal.clear();
  if (Status st = validate(c); !st) {
    refusal = render(st);
    return;
  }
  job.reset();  // a finished job only: Run is disabled while one runs
  EngineOptions eo;
  eo.wake = wake;
  job = std::make_unique<BenchJob>(c, eo);
  shown = {};
  shown_version = 0;
}

void BandwidthPanel::Draw(const char* title, bool* p_open, const AppState& app) {
  ImGui::SetNextWindowSize(ImVec2(820, 560), ImGuiCond_FirstUseEver);
  if (!ImGui::Begin(title, p_open)) {
    ImGui::End();
    return;
  }
  if (job && job->version() != shown_version) {
    shown = job->state();
    shown_version = shown.version;
  }
  const OpSpec s = app.runSpec();
  ImGui::Text("%s · N = %d · %s · %s", std::string(name(s.op)).c_str(), s.ranks,
              std::string(name(s.dtype)).c_str(), std::string(name(app.backend)).c_str());
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  char factor_text[16];
  std::snprintf(factor_text, sizeof factor_text, "%.2f", busBandwidthFactor(s.op, s.ranks));
  WrappedText(trf("busbw = algbw × {0} for this op and N (nccl-tests' factor): the bytes each "
                               "link carried per second, comparable across ops and N with the link's peak.",
                               {factor_text}));
  ImGui::PopStyleColor();
  ImGui::PushItemWidth(ImGui::GetFontSize() * 7);
  ImGui::SliderInt(tr("from 2^"), &min_exp, 3, 30);
  ImGui::SameLine();
  ImGui::SliderInt(tr("to 2^"), &max_exp, 3, 30);
  ImGui::SameLine();
  ImGui::SliderInt(tr("factor"), &factor, 2, 16);
  ImGui::SliderInt(tr("iters"), &iters, 1, 100);
  ImGui::SameLine();
  ImGui::SliderInt(tr("warm-up"), &warmup, 0, 20);
  ImGui::SameLine();
  ImGui::SliderInt(tr("checked"), &check, 0, 10);
  ImGui::PopItemWidth();
  if (running()) {
    if (ImGui::Button(tr("Cancel"))) job->cancel();
    ImGui::SameLine();
    char label[96];
    std::snprintf(label, sizeof label, "%d / %d  %s", shown.done, shown.total,
                  shown.current.c_str());
    ImGui::ProgressBar(shown.total ? float(shown.done) / float(shown.total) : 0.f,
                       ImVec2(-1, 0), label);
  } else {
    if (ImGui::Button(tr("Run sweep"))) start(app);
    if (shown.cancelled) ImGui::SameLine(), ImGui::TextDisabled("%s", tr("cancelled"));
  }
  const std::string err = !refusal.empty() ? refusal : render(Said(shown.error));
  if (!err.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.85f, 0.15f, 0.2f, 1));
    WrappedText(err);
    ImGui::PopStyleColor();
  }
  if (!shown.notice.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    WrappedText(render(Said(shown.notice)));
    ImGui::PopStyleColor();
  }
  const float avail = ImGui::GetContentRegionAvail().x;
  ImGui::BeginChild("chart", ImVec2(avail * 0.55f, 0), true);
  drawChart(ImGui::GetContentRegionAvail().y);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("rows", ImVec2(0, 0), true);
  drawTable();
  ImGui::EndChild();
  ImGui::End();
}

void BandwidthPanel::drawChart(float height) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const float w = ImGui::GetContentRegionAvail().x;
  const float pad_l = ImGui::CalcTextSize("0.000").x + 8, pad_b = ImGui::GetTextLineHeight() * 2;
  const ImVec2 a(p0.x + pad_l, p0.y + ImGui::GetTextLineHeight() / 2 + 4), b(p0.x + w - 8, p0.y + height - pad_b);
  const ImU32 axis = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  dl->AddLine(ImVec2(a.x, b.y), b, axis);
  dl->AddLine(a, ImVec2(a.x, b.y), axis);
  ImGui::Dummy(ImVec2(w, height));
  if (shown.rows.empty()) {
    dl->AddText(ImVec2(a.x + 10, a.y + 10), axis, tr("busbw (GB/s) against size: run a sweep"));
    return;
  }
  double lo = 1e300, hi = 0, top = 0;
  for (const auto& r : shown.rows) {
    lo = std::min(lo, std::log2(double(std::max<std::size_t>(r.size, 1))));
    hi = std::max(hi, std::log2(double(std::max<std::size_t>(r.size, 1))));
    top = std::max(top, r.busbw);
  }
  if (hi <= lo) hi = lo + 1;
  if (top <= 0) top = 1;
  auto X = [&](std::size_t size) {
    return a.x + float((std::log2(double(std::max<std::size_t>(size, 1))) - lo) / (hi - lo)) *
                     (b.x - a.x);
  };
  // Round ticks (0, 0.02, 0.04 …); the axis ends at the last one.
  const std::vector<double> ticks = roundTicks(top, 4);
  const double axis_top = ticks.back(), step = ticks[1] - ticks[0];
  auto Y = [&](double v) { return b.y - float(v / axis_top) * (b.y - a.y); };
  for (double v : ticks) {  // y ticks
    const std::string t = tickLabel(v, step);
    dl->AddText(ImVec2(a.x - 4 - ImGui::CalcTextSize(t.c_str()).x, Y(v) - ImGui::GetTextLineHeight() / 2), axis, t.c_str());
    dl->AddLine(ImVec2(a.x, Y(v)), ImVec2(b.x, Y(v)), ImGui::GetColorU32(ImGuiCol_Border));
  }
  const ImU32 line = packAbgr(letterColor(0));
  ImVec2 prev;
  for (std::size_t i = 0; i < shown.rows.size(); ++i) {
    const auto& r = shown.rows[i];
    const ImVec2 pt(X(r.size), Y(r.busbw));
    if (i) dl->AddLine(prev, pt, line, 2.0f);
    dl->AddCircleFilled(pt, 3.5f, line);
    const std::string lbl = formatSize(r.size);
    if (i == 0 || i + 1 == shown.rows.size() || i % 2 == 0)
      dl->AddText(ImVec2(pt.x - ImGui::CalcTextSize(lbl.c_str()).x / 2, b.y + 4), text,
                  lbl.c_str());
    prev = pt;
  }
  dl->AddText(ImVec2(a.x + 6, a.y), axis, "busbw GB/s");
  const char* size_axis = tr("size (log2)");
  dl->AddText(ImVec2(b.x - ImGui::CalcTextSize(size_axis).x, b.y + ImGui::GetTextLineHeight() + 4),
              axis, size_axis);
}

void BandwidthPanel::drawTable() {
  if (!ImGui::BeginTable("bw", 5, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp))
    return;
  for (const char* h : kBandwidthColumns)
    ImGui::TableSetupColumn(tr(h));
  ImGui::TableHeadersRow();
  for (const auto& r : shown.rows) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(formatSize(r.size).c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%.1f", r.time_us);
    ImGui::TableNextColumn();
    ImGui::Text("%.3f", r.algbw);
    ImGui::TableNextColumn();
    ImGui::Text("%.3f", r.busbw);
    ImGui::TableNextColumn();
    if (r.wrong < 0) ImGui::TextDisabled("N/A");
    else ImGui::Text("%lld", static_cast<long long>(r.wrong));
  }
  ImGui::EndTable();
}

}  // namespace collviz::ui
