#include "app/panels/compare_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <tuple>
#include <vector>

#include "app/gl/style.h"
#include "app/lang/lang.h"
#include "app/panels/compare_plot.h"
#include "app/view/compare_model.h"
#include "app/view/link_view.h"
#include "app/gl/wrapped_text.h"

namespace collviz::ui {

namespace {

std::string usText(double us) {
  if (us < 0) return "—";
  char buf[32];
  if (us >= 1e4) std::snprintf(buf, sizeof buf, "%.1f ms", us / 1e3);
  else std::snprintf(buf, sizeof buf, "%.0f µs", us);
  return buf;
}

void algoCombo(const char* id, std::string& value, const std::vector<std::string>& choices) {
  if (ImGui::BeginCombo(id, value.c_str())) {
    for (const std::string& c : choices)
      if (ImGui::Selectable(c.c_str(), c == value)) value = c;
    ImGui::EndCombo();
  }
}

void cell(const Fonts& fonts, const std::string& text) {
  ImGui::TableNextColumn();
  WrappedText(fonts.display(text));
}

bool sameConfig(const CompareSweepConfig& c, const OpSpec& s, const std::string& a, const std::string& b,
                BackendKind backend, const std::string& fault) {
  return c.spec == s && c.a == a && c.b == b && c.backend == backend && c.fault == fault;
}

}  // namespace

void ComparePanel::Draw(AppState& s, Runs&, const Fonts& fonts) {
  waiting = false;
  const OpSpec spec = s.runSpec();
  const std::vector<std::string> choices = compareChoices(spec.op, spec.ranks);
  ImGui::SetNextWindowSize(ImVec2(820 * fonts.scale, 760 * fonts.scale), ImGuiCond_FirstUseEver);
  if (!ImGui::Begin(tr("Compare###compare"), &s.show_compare, ImGuiWindowFlags_NoSavedSettings)) {
    ImGui::End();
    return;
  }
  if (s.program() != Program::single || choices.size() < 2) {
    sweep.reset();
    WrappedText(tr("This op has fewer than two algorithms to compare."));
    ImGui::End();
    return;
  }
  const auto known = [&](const std::string& x) {
    return std::find(choices.begin(), choices.end(), x) != choices.end();
  };
  if (op != spec.op || !known(a) || !known(b)) {
    std::tie(a, b) = defaultComparePair(spec.op, s.view.algo, spec.ranks);
    op = spec.op;
  }
  ImGui::PushItemWidth(160 * fonts.scale);
  algoCombo("##compare_a", a, choices);
  ImGui::SameLine();
  ImGui::TextUnformatted(tr("against"));
  ImGui::SameLine();
  algoCombo("##compare_b", b, choices);
  ImGui::PopItemWidth();
  ImGui::SameLine();
  ImGui::TextDisabled("%s N=%d", std::string(name(spec.op)).c_str(), spec.ranks);
  if (!s.fault.empty())  // "Break it" reaches the sweep too: its runs fail on purpose
    ImGui::TextColored(ImVec4(0.85f, 0.15f, 0.2f, 1), "%s",
                       fonts.display(trf("Break it: every run of both injects {0}", {s.fault})).c_str());

  // The sweep for this pair and spec: started when the window opens or they change.
  if (!sweep || !sameConfig(sweep->config(), spec, a, b, s.backend, s.fault)) {
    CompareSweepConfig c;
    c.spec = spec;
    c.a = a;
    c.b = b;
    c.backend = s.backend;
    c.fault = s.fault;
    sweep = std::make_unique<CompareSweep>(c);
  }
  const CompareSweep::State st = sweep->state();
  waiting = !st.finished;
  if (waiting) {
    Spinner("compare_running");
    ImGui::SameLine();
    const std::string what = trf("measuring {0} sizes × {1} repetitions: {2}",
                                 {std::to_string(sweep->config().elems.size()),
                                  std::to_string(sweep->config().reps), st.current});
    ImGui::ProgressBar(st.total ? float(st.done) / float(st.total) : 0.f, ImVec2(-1, 0),
                       fonts.display(what).c_str());
  }
  const std::vector<ModelPoint> points = modelPoints(st.series);
  const AlphaBeta fit = fitAlphaBeta(points);
  const CompareRow rows[2] = {compareRow(spec, a), compareRow(spec, b)};
  auto atSpec = [&](int i) -> const SizePoint* {
    if (i >= int(st.series.size())) return nullptr;
    for (const SizePoint& p : st.series[std::size_t(i)].sizes)
      if (p.elems == spec.elems) return &p;
    return nullptr;
  };

  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp;
  if (ImGui::BeginTable("compare_table", 3, flags)) {
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch, 1.4f);
    ImGui::TableSetupColumn(a.c_str(), ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableSetupColumn((b + "##b").c_str(), ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableHeadersRow();
    ImGui::TableNextRow();
    cell(fonts, tr("message rounds (counted / formula)"));
    for (const CompareRow& r : rows)
      cell(fonts, r.error.empty() ? std::to_string(r.rounds) + " / " + std::to_string(r.formula_rounds) : "—");
    ImGui::TableNextRow();
    cell(fonts, tr("busiest rank sends (counted / formula)"));
    for (const CompareRow& r : rows)
      cell(fonts, r.error.empty() ? byteText(r.bytes) + " / " + byteText(r.formula_bytes) : "—");
    ImGui::TableNextRow();
    cell(fonts, trf("measured at this size (median of {0}, all rounds, slowest rank)",
                    {std::to_string(sweep->config().reps)}));
    for (int i = 0; i < 2; ++i) {
      const SizePoint* p = atSpec(i);
      cell(fonts, !p ? "—" : !p->error.empty() ? tr("failed") : p->median_us < 0 ? tr("not yet run") : usText(p->median_us));
    }
    ImGui::TableNextRow();
    cell(fonts, tr("α–β model at this size"));
    for (int i = 0; i < 2; ++i)
      cell(fonts, fit.alpha_ok && fit.beta_ok && rows[i].error.empty()
                      ? usText(modelUs(fit, rows[i].rounds, rows[i].model_bytes))
                      : tr("not determined"));
    ImGui::EndTable();
  }
  for (const CompareRow& r : rows) {
    if (!r.error.empty())
      ImGui::TextColored(ImVec4(0.85f, 0.15f, 0.2f, 1), "%s", fonts.display(trf("{0}: {1}", {r.algo, r.error})).c_str());
    else if (!r.formula_text.empty()) WrappedText(fonts.display(trf("{0}: {1}", {r.algo, r.formula_text})));
  }
  if (!st.error.empty()) ImGui::TextColored(ImVec4(0.85f, 0.15f, 0.2f, 1), "%s", fonts.display(st.error).c_str());

  ImGui::Separator();
  WrappedText(fonts.display(tr("Model: time ≈ α · message rounds + β · Σ over rounds of the busiest "
                                            "sender's bytes, fitted to every measured size of both algorithms "
                                            "(least squares on relative error).")));
  if (points.size() < 2) {
    WrappedText(tr("The fit appears once the sweep has measured two sizes."));
  } else {
    WrappedText(fonts.display(fitText(fit)));
    if (fit.fitted()) {
      char err[64];
      std::snprintf(err, sizeof err, "%.1f %%", fit.rms_rel_error * 100);
      WrappedText(fonts.display(trf("fit error: {0} (RMS of model vs measured) over {1} points",
                                                 {err, std::to_string(fit.points)})));
    }
    drawComparePlot(st.series, fit, fonts);
  }
  ImGui::End();
}

}  // namespace collviz::ui
