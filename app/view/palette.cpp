#include "app/view/palette.h"

#include <algorithm>

namespace collviz::ui {

Rgba rgb(uint32_t hex, float alpha) {
  return {float((hex >> 16) & 0xff) / 255.0f, float((hex >> 8) & 0xff) / 255.0f,
          float(hex & 0xff) / 255.0f, alpha};
}

Rgba mix(Rgba a, Rgba b, float t) {
  return {a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t,
          a.a + (b.a - a.a) * t};
}

Rgba withAlpha(Rgba c, float alpha) {
  c.a *= alpha;
  return c;
}

uint32_t packAbgr(Rgba c) {
  auto byte = [](float v) { return uint32_t(std::clamp(v, 0.0f, 1.0f) * 255.0f + 0.5f); };
  return byte(c.r) | (byte(c.g) << 8) | (byte(c.b) << 16) | (byte(c.a) << 24);
}

namespace {
// Order matters: after the article's four, each colour was picked (greedily,
// from Okabe-Ito, Tol and similar sets) to keep the smallest CIELAB distance
// to those before it large under normal vision and simulated protanopia and
// deuteranopia; greys are left out (grey means Σ). tests/app/view/ui_layout_test.cpp
// checks the distances.
constexpr uint32_t kLetters[kPaletteSize] = {
    0x3d6fb6,  // A blue (article)
    0x6e9f6a,  // B sage green (article)
    0xc8952b,  // C ochre (article)
    0xc65b7c,  // D rose (article)
    0x56b4e9,  // E sky blue (Okabe-Ito)
    0x332288,  // F indigo (Tol)
    0x117733,  // G dark green (Tol)
    0x800000,  // H maroon
    0x17becf,  // I cyan
    0xfb9a99,  // J light pink
    0x882255,  // K wine (Tol)
    0x469990,  // L teal
    0xbcbd22,  // M olive yellow
    0x2f4b7c,  // N navy
    0xd55e00,  // O vermillion (Okabe-Ito)
    0x6a3d9a,  // P purple
};
}  // namespace

Rgba letterColor(int letter) {
  if (letter < 0) return rgb(0x8a8a8a);
  return rgb(kLetters[letter % kPaletteSize]);
}

Theme makeTheme(ThemeKind kind) {
  Theme t;
  t.kind = kind;
  if (kind == ThemeKind::light) {
    t.background = rgb(0xfbfaf7);
    t.text = rgb(0x22252b);
    t.muted_text = rgb(0x6b6f78);
    t.root_text = rgb(0x2f5fa8);
    t.row_box = rgb(0xf1efea);
    t.row_border = rgb(0xc9c5bc);
    t.neutral_fill = rgb(0xe4e3e0);
    t.neutral_border = rgb(0x85868a);
    t.flow_neutral = rgb(0x7c7f87);
    t.bad = rgb(0xd1242f);
    t.tint = 0.80f;
    t.faded = 0.16f;
  } else {
    t.background = rgb(0x1d2026);
    t.text = rgb(0xe8e9ec);
    t.muted_text = rgb(0x9ea3ad);
    t.root_text = rgb(0x86aef0);
    t.row_box = rgb(0x262a31);
    t.row_border = rgb(0x4b505a);
    t.neutral_fill = rgb(0x3a3d44);
    t.neutral_border = rgb(0xa3a6ad);
    t.flow_neutral = rgb(0xa0a4ad);
    t.bad = rgb(0xff5a5f);
    t.tint = 0.62f;
    t.faded = 0.14f;
  }
  return t;
}

Rgba tileFill(const Theme& t, int letter) {
  return mix(letterColor(letter), t.background, t.tint);
}

}  // namespace collviz::ui
