// `collviz export --format html`: a figure's states drawn by the SVG export
// (each trace choice and direction, each round, the decomposition's three
// states), light and dark, gathered for app/files/html_writer.
#pragma once

#include <functional>
#include <string>

#include "app/files/html_writer.h"
#include "app/gl/diagram_image.h"

namespace collviz::ui {

// `v`: the view as the SVG export would draw it (its trace, round or stage
// is the state shown first); `follow_scheme`: draw each state dark too.
// `traced`: an op's trace states and controls (else the one view).
HtmlFigure htmlFigure(DiagramImage& image, ExportView v, const std::string& id, const std::string& caption,
                      bool follow_scheme, bool traced = true);

struct HtmlPageOptions {
  // export --all: a heading, the settings, each figure under its heading;
  // the trace controls under all-to-all only, as the article has them (the
  // page stays within its weight in two languages).
  bool article = false;
  bool both = false;       // English and 中文 with a switch (else the current language)
  std::string theme;       // "light", "dark"; empty: the reader's colour scheme
  std::function<std::string()> settings;  // the run's settings line in the current language (the introduction)
};

// The page for `views` (each drawn as htmlFigure does, in each language).
std::string htmlExportPage(DiagramImage& image, const std::vector<ExportView>& views, const HtmlPageOptions& o);

// The page's words in the current language.
HtmlWords htmlWords();

}  // namespace collviz::ui
