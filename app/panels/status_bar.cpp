#include "app/panels/status_bar.h"
#include "app/lang/backend_line.h"
#include "app/lang/lang.h"
#include "engine/verify/provenance.h"

#include <chrono>
#include <cstdio>

#include "app/view/status_text.h"
#include "app/gl/style.h"
#include "app/gl/wrapped_text.h"

namespace collviz::ui {

namespace {
// One line per note, cut at the panel's edge; hovering shows all of it, or
// `more` (every note, where the line keeps only some) when that is given.
void noteLine(const std::string& text, ImVec4 color, const std::string& more = "") {
  ImVec2 p = ImGui::GetCursorScreenPos();
  float w = ImGui::GetContentRegionAvail().x;
  float h = ImGui::GetTextLineHeight();
  ImU32 c = color.w > 0 ? ImGui::GetColorU32(color) : ImGui::GetColorU32(ImGuiCol_TextDisabled);
  ImGui::GetWindowDrawList()->PushClipRect(p, ImVec2(p.x + w, p.y + h), true);
  ImGui::GetWindowDrawList()->AddText(p, c, text.c_str());
  ImGui::GetWindowDrawList()->PopClipRect();
  ImGui::Dummy(ImVec2(w, h));
  const bool cut = ImGui::CalcTextSize(text.c_str()).x > w;
  if (ImGui::IsItemHovered() && (cut || (!more.empty() && more != text))) {
    ImGui::BeginTooltip();
    WrappedText(more.empty() ? text : more, ImGui::GetFontSize() * 40);
    ImGui::EndTooltip();
  }
}
}  // namespace

std::string viewNotes(const StatusInfo& in) {
  const Snapshot* s = in.shown.get();
  if (!s || s->backend.notes.empty()) return "";
  return notesForView(s->backend.notes, s->program, s->spec, s->algo != "native");
}

void StatusBar::Draw(const StatusInfo& in, const Fonts& fonts) {
  const ImVec4 ok(0.30f, 0.58f, 0.32f, 1), bad(0.85f, 0.15f, 0.2f, 1);
  // "·" between the parts of a line, which wraps before a part that would
  // run past the edge (at 2x in a narrow window) and starts it without one.
  auto sep = [](const std::string& next) {
    const float gap = ImGui::GetStyle().ItemSpacing.x;
    if (SameLineIfFits(ImGui::CalcTextSize("·").x + gap + ImGui::CalcTextSize(next.c_str()).x)) {
      ImGui::TextDisabled("·");
      ImGui::SameLine();
    }
  };
  cancel_clicked = false;
  const float top = ImGui::GetCursorPosY();
  if (in.busy) {
    Spinner("busy");
    ImGui::SameLine();
  }
  // A run of the shown op that takes a while: what it is doing, and Cancel.
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - in.progress.since).count();
  const bool long_run = in.busy && in.progress.request != 0 && elapsed > 0.3;
  if (long_run) {
    ImGui::TextUnformatted(fonts.display(progressText(in.progress, elapsed)).c_str());
    ImGui::SameLine();
    cancel_clicked = ImGui::SmallButton(tr("Cancel (Esc)"));
    ImGui::SameLine();
  }
  const Snapshot* s = in.shown.get();
  if (!s) {
    if (!long_run) ImGui::TextDisabled("%s", tr(in.busy ? "running…" : "not yet run"));
    else ImGui::NewLine();
  } else {
    const BackendLine b = backendLine(s->backend);  // as `collviz run` prints it
    ImGui::PushFont(fonts.bold);
    ImGui::TextUnformatted(b.head.c_str());
    ImGui::PopFont();
    for (const std::string& part : b.parts) {
      const std::string shown = fonts.display(part);
      sep(shown);
      ImGui::TextUnformatted(shown.c_str());
    }
    std::string t = s->cancelled ? trf("cancelled after {0}", {formatMicros(s->engine_us)})
                                 : trf("op {0}  (request {1})", {formatMicros(s->time_us), formatMicros(s->engine_us)});
    ImGui::TextUnformatted(fonts.display(t).c_str());
    if (allRight(*s, in.bad_blocks)) {
      const std::string mode = s->steps.empty() ? "" : render(patternText(s->steps[0].verify.mode));
      const std::string verified = fonts.display(tr("✓ verified against the oracle"));
      sep(verified);
      ImGui::TextColored(ok, "%s", verified.c_str());
      if (!mode.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", fonts.display(mode).c_str());
    } else if (s->error.empty()) {
      const std::string wrong = fonts.display(trf("✗ {0} wrong elements", {std::to_string(wrongCount(*s))}));
      sep(wrong);
      ImGui::TextColored(bad, "%s", wrong.c_str());
      std::string first = render(s->problem);
      for (const StepResult& st : s->steps)
        if (first.empty() && !st.verify.first_problem.empty()) first = render(st.verify.first_problem);
      if (!first.empty()) {
        first = fonts.display(first);
        sep(first);
        ImGui::TextColored(bad, "%s", first.c_str());
      }
    }
    if (in.bad_blocks > 0) {
      const std::string marked = trf("{0} block(s) marked !", {std::to_string(in.bad_blocks)});
      sep(marked);
      ImGui::TextColored(bad, "%s", marked.c_str());
    }
  }
  // Ranks on several hosts: where each ran ("R0–R1 on a · R2–R3 on b").
  if (const std::string hosts = hostsNote(s); !hosts.empty()) noteLine(fonts.display(hosts), ImVec4(0, 0, 0, 0));
  // Errors and notices get their own lines: they are the things to read.
  if (const std::string note = oracleLabelNote(s); !note.empty())
    noteLine(fonts.display(note), ImGui::GetStyleColorVec4(ImGuiCol_Text));
  const Snapshot* e = in.shown ? in.shown.get() : in.newest.get();
  if (const std::string note = cancelledNote(e); !note.empty())
    noteLine(fonts.display(note), ImVec4(0, 0, 0, 0));
  else if (e && !e->error.empty()) noteLine(fonts.display(tr("engine error: ") + render(e->error)), bad);
  if (e && !e->notice.empty()) noteLine(fonts.display(render(e->notice)), ImVec4(0, 0, 0, 0));
  // The notes of the op, dtype and reduce op on screen; all of them on hover
  // (and in `collviz devices`).
  if (const std::string notes = viewNotes(in); !notes.empty())
    noteLine(fonts.display(notes), ImVec4(0, 0, 0, 0), fonts.display(render(in.shown->backend.notes)));
  if (!in.font_notice.empty()) noteLine(in.font_notice, bad);
  if (!in.hosts_error.empty()) noteLine(fonts.display(in.hosts_error), bad);
  height = ImGui::GetCursorPosY() - top;
}

}  // namespace collviz::ui
