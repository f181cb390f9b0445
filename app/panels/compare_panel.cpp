#include "app/panels/compare_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <tuple>
#include <vector>

#include "app/gl/style.h"
#include "app/lang/lang.h"
#include "app/view/compare_model.h"
#include "app/view/link_view.h"

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
  ImGui::TextUnformatted(fonts.display(text).c_str());
}

}  // namespace

void ComparePanel::Draw(AppState& s, Runs& runs, const Fonts& fonts) {
  waiting = false;
  const OpSpec spec = s.runSpec();
  const std::vector<std::string> choices = compareChoices(spec.op);
  ImGui::SetNextWindowSize(ImVec2(780 * fonts.scale, 0), ImGuiCond_FirstUseEver);
  if (!ImGui::Begin(tr("Compare###compare"), &s.show_compare, ImGuiWindowFlags_NoSavedSettings)) {
    ImGui::End();
    return;
  }
  if (s.program() != Program::single || choices.size() < 2) {
    ImGui::TextWrapped("%s", tr("This op has fewer than two algorithms to compare."));
    ImGui::End();
    return;
  }
  const auto known = [&](const std::string& x) {
    return std::find(choices.begin(), choices.end(), x) != choices.end();
  };
  if (op != spec.op || !known(a) || !known(b)) {
    std::tie(a, b) = defaultComparePair(spec.op, s.view.algo);
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

  // Both runs through the shared cache, one request at a time (a newer
  // request replaces a queued one in the engine).
  const RunKey keys[2] = {{s.program(), spec, s.backend, s.fault, a}, {s.program(), spec, s.backend, s.fault, b}};
  std::shared_ptr<const Snapshot> snaps[2];
  const bool sent = runs.waiting(keys[0]) || runs.waiting(keys[1]);
  bool asked = false;
  for (int i = 0; i < 2; ++i) {
    snaps[i] = runs.find(keys[i]);
    if (snaps[i]) continue;
    waiting = true;
    if (!sent && !asked) {
      runs.request(keys[i]);
      asked = true;
    }
  }
  const Comparison c = buildComparison(spec, a, snaps[0], b, snaps[1]);
  if (waiting) {
    Spinner("compare_running");
    ImGui::SameLine();
    ImGui::TextDisabled("%s", tr("running…"));
  }

  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp;
  if (ImGui::BeginTable("compare_table", 3, flags)) {
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch, 1.4f);
    ImGui::TableSetupColumn(a.c_str(), ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableSetupColumn((b + "##b").c_str(), ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableHeadersRow();
    ImGui::TableNextRow();
    cell(fonts, tr("rounds (counted / formula)"));
    for (const CompareRow& r : c.rows)
      cell(fonts, r.error.empty() ? std::to_string(r.rounds) + " / " + std::to_string(r.formula_rounds) : "—");
    ImGui::TableNextRow();
    cell(fonts, tr("busiest rank sends (counted / formula)"));
    for (const CompareRow& r : c.rows)
      cell(fonts, r.error.empty() ? byteText(r.bytes) + " / " + byteText(r.formula_bytes) : "—");
    ImGui::TableNextRow();
    cell(fonts, tr("measured time (Σ rounds, slowest rank)"));
    for (const CompareRow& r : c.rows)
      cell(fonts, r.ran ? usText(r.measured_us) : !r.run_error.empty() ? tr("failed") : tr("not yet run"));
    ImGui::TableNextRow();
    cell(fonts, tr("α–β estimate"));
    for (const CompareRow& r : c.rows) cell(fonts, usText(r.estimate_us));
    ImGui::EndTable();
  }
  for (const CompareRow& r : c.rows) {
    const std::string why = !r.error.empty() ? r.error : r.run_error;
    if (!why.empty()) ImGui::TextColored(ImVec4(0.85f, 0.15f, 0.2f, 1), "%s: %s", r.algo.c_str(), why.c_str());
    else if (!r.formula_text.empty())
      ImGui::TextWrapped("%s", fonts.display(r.algo + ": " + r.formula_text).c_str());
  }

  if (c.fit.fitted) {
    char fit[160];
    std::snprintf(fit, sizeof fit, "α = %.1f µs, β = %.3f µs/KiB", c.fit.alpha_us,
                  c.fit.beta_us_per_byte * 1024);
    ImGui::TextWrapped("%s", fonts.display(trf("{0}, fitted to the {1} measured rounds of both (time ≈ α + β·bytes "
                                               "of the round's busiest sender)",
                                               {fit, std::to_string(c.fit.points)}))
                                 .c_str());
    // Two bars per algorithm on one scale: measured, then the estimate.
    double top = 0;
    for (const CompareRow& r : c.rows) top = std::max({top, r.measured_us, r.estimate_us});
    const float w = 220 * fonts.scale;
    for (const CompareRow& r : c.rows) {
      ImGui::TextUnformatted(r.algo.c_str());
      const double vals[2] = {r.ran ? r.measured_us : 0, std::max(0.0, r.estimate_us)};
      const char* what[2] = {tr("measured"), tr("estimate")};
      for (int k = 0; k < 2; ++k) {
        ImGui::SameLine(120 * fonts.scale + float(k) * (w + 20 * fonts.scale));
        const std::string label = std::string(what[k]) + " " + usText(vals[k]);
        ImGui::ProgressBar(top > 0 ? float(vals[k] / top) : 0.f, ImVec2(w, 0), fonts.display(label).c_str());
      }
    }
  } else {
    ImGui::TextWrapped("%s", tr("The α–β estimate appears once a run has measured its rounds."));
  }
  ImGui::End();
}

}  // namespace collviz::ui
