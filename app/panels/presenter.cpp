#include "app/panels/presenter.h"

#include <imgui.h>

#include <cstdio>

#include "app/lang/lang.h"
#include "app/view/heading.h"
#include "app/gl/wrapped_text.h"

namespace collviz::ui {

namespace {
// "07 All-reduce · N = 4 · trace R2": what a step shows, in one line.
std::string stepLine(const lecture::Step& s) {
  Heading h = headingFor(s.program, s.spec.op);
  std::string t = (s.program == Program::single ? h.number + " " : "") + h.title;
  t += " · N = " + std::to_string(s.spec.ranks);
  if (s.program == Program::all_reduce_decomposed) t += " · " + trf("state {0}: ", {std::to_string(s.state)});
  if (s.trace_rank >= 0) t += " · " + trf("trace: what reaches {0}", {"R" + std::to_string(s.trace_rank)});
  return t;
}

void stepBlock(const char* label, const lecture::Step* s, const Fonts& fonts) {
  ImGui::TextDisabled("%s", label);
  if (!s) {
    ImGui::TextDisabled("%s", tr("(the end)"));
    return;
  }
  ImGui::PushFont(fonts.bold);
  WrappedText(fonts.display(stepLine(*s)));
  ImGui::PopFont();
  WrappedText(fonts.display(s->caption.in(language())));
}
}  // namespace

std::string PresenterView::elapsed() const {
  const auto s = std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - started_).count();
  char buf[16];
  std::snprintf(buf, sizeof buf, "%02lld:%02lld", static_cast<long long>(s / 60), static_cast<long long>(s % 60));
  return buf;
}

void PresenterView::Draw(lecture::Player& p, const Fonts& fonts) {
  const ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(io.DisplaySize);
  ImGui::Begin("presenter", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoSavedSettings);
  ImGui::PushFont(fonts.heading);
  ImGui::Text("%s   %s", trf("step {0}", {lecture::stepCounter(p.index(), p.count())}).c_str(), elapsed().c_str());
  ImGui::PopFont();
  ImGui::SameLine();
  if (ImGui::Button(tr("reset timer"))) started_ = Clock::now();
  ImGui::SameLine();
  if (ImGui::ArrowButton("##prev", ImGuiDir_Left)) p.go(p.index() - 1);
  ImGui::SameLine();
  if (ImGui::ArrowButton("##next", ImGuiDir_Right)) p.go(p.index() + 1);
  ImGui::Separator();

  const float list_w = io.DisplaySize.x * 0.34f;
  ImGui::BeginChild("now", ImVec2(io.DisplaySize.x - list_w - ImGui::GetStyle().ItemSpacing.x * 3, 0));
  stepBlock(tr("Now"), &p.current(), fonts);
  ImGui::Spacing();
  ImGui::Separator();
  ImGui::TextDisabled("%s", tr("Notes"));
  const std::string& notes = p.current().notes.in(language());
  ImGui::PushFont(fonts.heading);  // read at a glance, from a step away
  WrappedText(notes.empty() ? std::string(tr("(no notes for this step)")) : fonts.display(notes));
  ImGui::PopFont();
  ImGui::Spacing();
  ImGui::Separator();
  stepBlock(tr("Next"), p.next(), fonts);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("steps", ImVec2(0, 0), true);
  ImGui::TextDisabled("%s", tr("Steps (click to go there)"));
  for (int i = 0; i < p.count(); ++i) {
    const lecture::Step& s = p.lecture().steps[i];
    const std::string caption = s.caption.in(language());
    const std::string label = std::to_string(i + 1) + ". " + (caption.empty() ? stepLine(s) : caption) +
                              "##step" + std::to_string(i);
    if (ImGui::Selectable(fonts.display(label).c_str(), i == p.index())) p.go(i);
    if (i == p.index() && shown_index_ != i) ImGui::SetScrollHereY(0.3f);
  }
  shown_index_ = p.index();
  ImGui::EndChild();
  ImGui::End();
}

}  // namespace collviz::ui
