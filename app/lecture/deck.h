// A lecture as a slide deck: one figure per step (the window's view with the
// step's caption under the grid) and an index page. Pure: the plan and the
// index; export/lecture_command.cpp draws it.
#pragma once

#include <string>
#include <vector>

#include "app/files/export_set.h"
#include "app/lecture/lecture.h"

namespace collviz::lecture {

struct Slide {
  ui::ExportItem item;  // file: "step03_03_gather.png"; caption: the step's, in the language
  BackendKind backend = BackendKind::automatic;
  std::string notes;
};

std::vector<Slide> slidesOf(const Lecture& lecture, Lang lang, const std::string& ext);
// index.md: the title, then each step's figure, caption and notes. The
// figure links what the deck wrote: each slide's image (`deck` ""), or the
// slide's page of deck.pdf ("deck.pdf#page=N", the title slide being page 1)
// or its place in index.html ("index.html#sN").
std::string deckIndex(const Lecture& lecture, const std::vector<Slide>& slides, Lang lang,
                      const std::string& settings, const std::string& deck = "");

}  // namespace collviz::lecture
