// `collviz export --format html`: a figure's states drawn by the SVG export
// (each trace choice and direction, each round, the decomposition's three
// states), light and dark, gathered for app/files/html_writer.
#pragma once

#include <string>

#include "app/files/html_writer.h"
#include "app/gl/diagram_image.h"

namespace collviz::ui {

// `v`: the view as the SVG export would draw it (its trace, round or stage
// is the state shown first); `follow_scheme`: draw each state dark too.
HtmlFigure htmlFigure(DiagramImage& image, ExportView v, const std::string& id, const std::string& caption,
                      bool follow_scheme);

// The page's words in the current language.
HtmlWords htmlWords();
HtmlLang htmlLang(const std::string& title);

}  // namespace collviz::ui
