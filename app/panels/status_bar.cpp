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
// Text in `color` (w == 0: the current text colour) that keeps to the
// panel: on the rest of the line where it fits there, else from the next
// line, wrapped where English and Chinese break when it is wider than the
// panel (a piece wider than a line is cut between characters), so nothing
// runs past the window's edge at 2x or in 中文.
void fitText(const std::string& text, ImVec4 color = ImVec4(0, 0, 0, 0)) {
  const float w = ImGui::CalcTextSize(text.c_str()).x;
  if (w > ImGui::GetContentRegionAvail().x && ImGui::GetCursorPosX() > ImGui::GetCursorStartPos().x + 0.5f)
    ImGui::NewLine();  // after SameLine: start a line of its own
  if (color.w > 0) ImGui::PushStyleColor(ImGuiCol_Text, color);
  if (w <= ImGui::GetContentRegionAvail().x) ImGui::TextUnformatted(text.c_str());
  else WrappedText(text, 0, true);
  if (color.w > 0) ImGui::PopStyleColor();
}

// A note on lines of its own, wrapped within the panel (in the disabled
// colour when `color.w` is 0); hovering shows `more` (every note, where the
// note keeps only some) when that is given.
void noteLine(const std::string& text, ImVec4 color, const std::string& more = "") {
  fitText(text, color.w > 0 ? color : ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  if (!more.empty() && more != text && ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    WrappedText(more, ImGui::GetFontSize() * 40);
    ImGui::EndTooltip();
  }
}
}  // namespace

std::string viewNotes(const StatusInfo& in) {
  const Snapshot* s = in.shown.get();
  if (!s || s->backend.notes.empty()) return "";
  return notesForView(s->backend.notes, s->program, s->spec, s->algo != "native");
}

// One line: what is shown and whether it checked out first (a verdict never
// falls off the end), then an error, the backend and the time; the line cut
// at the panel's edge, every line of the full status on hover.
void StatusBar::drawOneLine(const StatusInfo& in, const Fonts& fonts) {
  const ImVec4 ok(0.30f, 0.58f, 0.32f, 1), bad(0.85f, 0.15f, 0.2f, 1);
  std::vector<std::pair<std::string, ImVec4>> parts;  // w == 0: the disabled colour
  const ImVec4 plain = ImGui::GetStyleColorVec4(ImGuiCol_Text), muted(0, 0, 0, 0);
  const Snapshot* s = in.shown.get();
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - in.progress.since).count();
  const bool long_run = in.busy && in.progress.request != 0 && elapsed > 0.3;
  if (long_run) parts.push_back({fonts.display(progressText(in.progress, elapsed)), plain});
  if (!s) {
    if (!long_run) parts.push_back({tr(in.busy ? "running…" : "not yet run"), muted});
  } else {
    if (allRight(*s, in.bad_blocks)) parts.push_back({fonts.display(tr("✓ verified against the oracle")), ok});
    else if (s->error.empty()) parts.push_back({fonts.display(trf("✗ {0} wrong elements", {std::to_string(wrongCount(*s))})), bad});
  }
  const Snapshot* e = in.shown ? in.shown.get() : in.newest.get();
  if (const std::string note = cancelledNote(e); !note.empty()) parts.push_back({fonts.display(note), muted});
  else if (e && !e->error.empty()) parts.push_back({fonts.display(tr("engine error: ") + render(e->error)), bad});
  if (!in.hosts_error.empty()) parts.push_back({fonts.display(in.hosts_error), bad});
  if (!in.font_notice.empty()) parts.push_back({in.font_notice, bad});
  if (s) {
    const BackendLine b = backendLine(s->backend);
    parts.push_back({fonts.display(b.head), plain});
    parts.push_back({fonts.display(s->cancelled ? trf("cancelled after {0}", {formatMicros(s->engine_us)})
                                                : trf("op {0}  (request {1})", {formatMicros(s->time_us), formatMicros(s->engine_us)})),
                     muted});
    for (const std::string& p : b.parts) parts.push_back({fonts.display(p), muted});
  }
  if (e && !e->notice.empty()) parts.push_back({fonts.display(render(e->notice)), muted});
  if (const std::string notes = viewNotes(in); !notes.empty()) parts.push_back({fonts.display(notes), muted});
  ImGui::BeginChild("status_line", ImVec2(0, ImGui::GetFrameHeight()), false,
                    ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse | ImGuiWindowFlags_NoBackground);
  if (in.busy) {
    Spinner("busy");
    ImGui::SameLine();
  }
  if (long_run) {
    ImGui::TextUnformatted(parts.front().first.c_str());
    ImGui::SameLine();
    cancel_clicked = ImGui::SmallButton(tr("Cancel (Esc)"));
  }
  for (std::size_t i = long_run ? 1 : 0; i < parts.size(); ++i) {
    if (i > 0) ImGui::SameLine(), ImGui::TextDisabled("·"), ImGui::SameLine();
    const ImVec4 c = parts[i].second.w > 0 ? parts[i].second : ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled);
    ImGui::TextColored(c, "%s", parts[i].first.c_str());
  }
  ImGui::EndChild();
  if (ImGui::IsItemHovered() && !parts.empty()) {
    ImGui::BeginTooltip();
    for (const auto& [text, c] : parts)
      if (c.w > 0) ImGui::PushStyleColor(ImGuiCol_Text, c), WrappedText(text, ImGui::GetFontSize() * 40), ImGui::PopStyleColor();
      else WrappedText(text, ImGui::GetFontSize() * 40);
    ImGui::EndTooltip();
  }
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
  if (one_line) {
    drawOneLine(in, fonts);
    height = ImGui::GetCursorPosY() - top;
    return;
  }
  if (in.busy) {
    Spinner("busy");
    ImGui::SameLine();
  }
  // A run of the shown op that takes a while: what it is doing, and Cancel.
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - in.progress.since).count();
  const bool long_run = in.busy && in.progress.request != 0 && elapsed > 0.3;
  if (long_run) {
    fitText(fonts.display(progressText(in.progress, elapsed)));
    SameLineIfFits(ButtonWidth(tr("Cancel (Esc)")));
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
    fitText(b.head);
    ImGui::PopFont();
    for (const std::string& part : b.parts) {
      const std::string shown = fonts.display(part);
      sep(shown);
      fitText(shown);
    }
    std::string t = s->cancelled ? trf("cancelled after {0}", {formatMicros(s->engine_us)})
                                 : trf("op {0}  (request {1})", {formatMicros(s->time_us), formatMicros(s->engine_us)});
    fitText(fonts.display(t));
    if (allRight(*s, in.bad_blocks)) {
      const std::string mode = s->steps.empty() ? "" : render(patternText(s->steps[0].verify.mode));
      const std::string verified = fonts.display(tr("✓ verified against the oracle"));
      sep(verified);
      fitText(verified, ok);
      if (!mode.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", fonts.display(mode).c_str());
    } else if (s->error.empty()) {
      const std::string wrong = fonts.display(trf("✗ {0} wrong elements", {std::to_string(wrongCount(*s))}));
      sep(wrong);
      fitText(wrong, bad);
      std::string first = render(s->problem);
      for (const StepResult& st : s->steps)
        if (first.empty() && !st.verify.first_problem.empty()) first = render(st.verify.first_problem);
      if (!first.empty()) {
        first = fonts.display(first);
        sep(first);
        fitText(first, bad);
      }
    }
    if (in.bad_blocks > 0) {
      const std::string marked = trf("{0} block(s) marked !", {std::to_string(in.bad_blocks)});
      sep(marked);
      fitText(marked, bad);
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
