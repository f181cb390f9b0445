// Colours of the diagram: one per block letter (A = R0's data, ...), plus the
// neutral tones and the two themes. Pure data, no GL, so tests can check the
// palette stays distinguishable (also for colour-blind viewers).
#pragma once

#include <cstdint>

namespace collviz::ui {

struct Rgba {
  float r = 0, g = 0, b = 0, a = 1;
  bool operator==(const Rgba&) const = default;
};

Rgba rgb(uint32_t hex, float alpha = 1.0f);  // 0xRRGGBB
Rgba mix(Rgba a, Rgba b, float t);           // a*(1-t) + b*t, alpha too
Rgba withAlpha(Rgba c, float alpha);         // c with alpha multiplied
uint32_t packAbgr(Rgba c);                   // ImGui's ImU32 layout

inline constexpr int kPaletteSize = 16;
// Block colour for letter index i (A = 0). The article's four come first
// (A blue, B sage, C ochre, D rose), then Okabe-Ito / Tol-style hues chosen
// to stay apart in lightness as well as hue. Beyond 16 it wraps.
Rgba letterColor(int letter);

enum class ThemeKind : uint8_t { light, dark };

struct Theme {
  ThemeKind kind = ThemeKind::light;
  Rgba background;     // diagram and window background
  Rgba text;           // labels
  Rgba muted_text;     // headers, captions
  Rgba root_text;      // the root's row label (the article's bold blue)
  Rgba row_box;        // buffer box fill
  Rgba row_border;     // buffer box border (also the dashed "—" box)
  Rgba neutral_fill;   // reduced block (Σ) fill
  Rgba neutral_border; // reduced block border, node border
  Rgba flow_neutral;   // flows that carry several letters
  Rgba bad;            // verification failure mark
  float tint = 0.8f;   // how far a tile's fill moves from its colour to background
  float faded = 0.16f; // alpha of what a trace fades
};

Theme makeTheme(ThemeKind kind);
// The tile fill for a letter: a light (or, dark theme, deep) tint of it.
Rgba tileFill(const Theme& t, int letter);

}  // namespace collviz::ui
