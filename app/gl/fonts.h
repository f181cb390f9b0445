// Fonts: DejaVu Sans and DejaVu Sans Bold (fonts-dejavu-core), found at run
// time, with the glyphs the diagrams need (Σ, subscript digits and ᵢ, arrows,
// ·, —, ✓ ✗). Without them ImGui's built-in font is used and text goes
// through asciiFallback, and `notice` says which font was wanted.
#pragma once

#include <imgui.h>

#include <string>

#include "app/view/scene.h"

namespace collviz::ui {

struct Fonts {
  ImFont* regular = nullptr;
  ImFont* bold = nullptr;
  ImFont* heading = nullptr;  // bold, larger: rendered at size so it stays sharp
  bool unicode = false;       // DejaVu loaded: Σ and subscripts are real glyphs
  float scale = 0;            // the UI scale they were built for
  std::string notice;         // empty, or what was missing
  ImVector<ImWchar> ranges;   // must outlive the atlas build

  // (Re)build the atlas for `scale`. Call outside a frame; the caller then
  // recreates the renderer's font texture.
  void load(float scale);
  ImFont* font(TextStyle style) const;
  // The text as it should be drawn with the loaded fonts.
  std::string display(const std::string& utf8) const;
  float measure(const std::string& utf8, TextStyle style, float size) const;
};

// Where DejaVu Sans is looked for; COLLVIZ_FONT_DIR overrides.
std::string findFontDir();

}  // namespace collviz::ui
