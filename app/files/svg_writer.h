// SVG from a Scene: the same tiles, flows, arrowheads and text that
// DiagramRenderer and ImGui draw, walked from the same scene model, written
// as vector shapes with text as text. Pure (no GL, no ImGui).
#pragma once

#include <string>
#include <vector>

#include "app/view/palette.h"
#include "app/view/scene.h"

namespace collviz::ui {

struct SvgParams {
  int width = 0, height = 0;  // pixels
  int view_x = 0, view_y = 0;  // the scene's point at the top-left (a cropped figure)
  Rgba background;
  // Baseline below the top of a line of text, as a fraction of the text
  // size, per TextStyle (ImGui places text by its top; SVG by its baseline).
  float ascent[3] = {0.8f, 0.8f, 0.8f};
  // ImGui sizes a font by its line height (ascent - descent); SVG and CSS
  // by its em. For DejaVu Sans: em 2048 units, ascent - descent 2384.
  float em_per_size = 2048.0f / 2384.0f;
  // CJK runs (text.h) are set in `cjk_family` at this many times the em of
  // the text around them, per TextStyle, so that the CJK font's own H is as
  // tall as DejaVu's H
  // (Fonts::cjk_scale, measured from the font files).
  float cjk_em[3] = {1.0f, 1.0f, 1.0f};
  std::string cjk_family;
  std::string title;  // <title>, for accessibility
};

// Numbers with at most two decimals and no trailing zeros; text with & < > " escaped
// and what XML forbids (bytes that are not UTF-8, control characters) as U+FFFD.
std::string svgNumber(float v);
std::string svgEscape(const std::string& t);

// `extra`: text outside the scene (the status line), in the same pixels.
std::string sceneToSvg(const Scene& scene, const std::vector<TextItem>& extra, const SvgParams& p);

}  // namespace collviz::ui
