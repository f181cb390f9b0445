// Layout: turns a DiagramModel (+ trace, view settings, theme, size) into a
// Scene of tiles, curves and text. Pure; the only thing it needs from fonts
// is a width measure, passed in.
#pragma once

#include <functional>
#include "app/lang/lang.h"
#include <string>

#include "app/view/diagram_model.h"
#include "app/view/heading.h"
#include "app/view/palette.h"
#include "app/view/scene.h"
#include "app/view/trace.h"

namespace collviz::ui {

// What the viewer chose; part of the key that decides when to rebuild.
struct ViewSettings {
  int trace_rank = -1;  // -1: All
  TraceMode trace_mode = TraceMode::reaches;
  int stage = 2;        // decomposition: columns shown in full (0 input .. 2)
  float zoom = 1.0f;
  ThemeKind theme = ThemeKind::light;
  // The language drawn (text comes from tr()); here so a switch lays out again.
  Lang lang = Lang::en;
  // The algorithm view: an engine algorithm ("native": the op's own call and
  // the usual diagram), the round shown (0 the start) and, while playing,
  // how far the round's blocks have travelled (0 at rest, up to 1).
  std::string algo = "native";
  int round = 0;
  float tween = 0;
  bool hide_times = false;  // files: measured times vary run to run (left out unless asked)
  bool in_file = false;     // drawn into a file: the window's hints (keys) left out
  bool operator==(const ViewSettings&) const = default;
};

using MeasureText = std::function<float(const std::string& text, TextStyle style, float size)>;

// No text of a figure's side parts (the algorithm view's link view, bytes
// and times) is drawn smaller than this many pixels at UI scale 1: they keep
// this size when the figure shrinks, and take the room it needs. A text with
// Chinese in it is set large enough that its CJK glyphs' em reaches it too
// (LayoutParams::cjk_em_per_px): the thin strokes of 一 vanish below.
inline constexpr float kMinTextPx = 11.0f;

struct LayoutParams {
  Vec2 size;          // pixels available
  float scale = 1.0f; // UI scale times zoom: pixels per layout unit
  MeasureText measure;  // null: estimate 0.6 em per code point
  float ui_scale = 1.0f;  // the UI scale alone: the text floor is kMinTextPx times it
  // A CJK glyph's em per pixel of text size (the loaded fonts'; 0: no CJK font).
  float cjk_em_per_px = 0;
  // Keep the floor (layoutRounds drops it only when the figure cannot fit
  // with it, as the last resort, like block labels under 11 px).
  bool text_floor = true;
};

Scene layoutDiagram(const DiagramModel& m, const TraceSets& trace, const ViewSettings& view,
                    const Theme& theme, const LayoutParams& params);

}  // namespace collviz::ui
