#include "app/lecture/deck.h"

#include <cstdio>

namespace collviz::lecture {

std::vector<Slide> slidesOf(const Lecture& lecture, Lang lang, const std::string& ext) {
  std::vector<Slide> out;
  for (size_t i = 0; i < lecture.steps.size(); ++i) {
    const Step& s = lecture.steps[i];
    ui::ViewSettings view;
    view.trace_rank = s.trace_rank;
    view.trace_mode = s.trace_mode;
    view.stage = s.program == Program::all_reduce_decomposed ? s.state : 2;
    view.algo = s.algo;
    view.round = s.round;
    char prefix[16];
    std::snprintf(prefix, sizeof prefix, "step%02d_", int(i + 1));
    ui::ExportItem it{s.program, s.spec, view,
                      prefix + ui::exportFileName(s.program, s.spec.op, view, ext), s.caption.in(lang)};
    out.push_back({it, s.backend, s.notes.in(lang)});
  }
  return out;
}

std::string deckIndex(const Lecture& lecture, const std::vector<Slide>& slides, Lang lang,
                      const std::string& settings, const std::string& deck) {
  const std::string title = lecture.title.in(lang).empty() ? lecture.path : lecture.title.in(lang);
  std::string md = "# " + title + "\n\n" + settings + "\n";
  for (size_t i = 0; i < slides.size(); ++i) {
    const Slide& s = slides[i];
    md += "\n## " + std::to_string(i + 1) + ". " + (s.item.caption.empty() ? s.item.file : s.item.caption) + "\n\n";
    if (deck.empty()) md += "![" + std::to_string(i + 1) + "](" + s.item.file + ")\n";
    else if (deck == "deck.pdf") md += "[" + deck + ", " + std::to_string(i + 2) + "](deck.pdf#page=" + std::to_string(i + 2) + ")\n";
    else md += "[" + deck + " #s" + std::to_string(i + 1) + "](" + deck + "#s" + std::to_string(i + 1) + ")\n";
    if (!s.notes.empty()) md += "\n> " + s.notes + "\n";
  }
  return md;
}

}  // namespace collviz::lecture
