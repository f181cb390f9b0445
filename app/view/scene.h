// The drawable result of layout: flat lists of tiles, curves, triangles and
// text in diagram-local pixels (origin top-left). The GL renderer uploads the
// tiles/curves/triangles as instance data; text goes through ImGui's fonts.
// Pure data, so layout is testable and the same scene can later be drawn
// into an offscreen framebuffer (export).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "app/view/palette.h"

namespace collviz::ui {

struct Vec2 {
  float x = 0, y = 0;
  bool operator==(const Vec2&) const = default;
};

struct Rect {
  float x = 0, y = 0, w = 0, h = 0;
  bool contains(Vec2 p) const { return p.x >= x && p.x < x + w && p.y >= y && p.y < y + h; }
  Vec2 center() const { return {x + w / 2, y + h / 2}; }
};

enum TileFlags : uint32_t {
  kTileDashed = 1,        // dashed border ("no buffer")
  kTileStripes = 2,       // contributor stripes along the bottom edge
  kTileStripesFull = 4,   // contributor bands over the whole tile (concat node)
};

// One rounded rectangle (tile, row box, node). Layout matches the instance
// attributes in shaders/tile.vert; keep them in step.
struct TileInstance {
  Rect rect;
  Rgba fill;
  Rgba border;
  float radius = 0;
  float border_width = 1;
  uint32_t flags = 0;
  uint32_t stripes = 0;  // contributor bitmask, colours from letterColor
};

// A cubic Bézier stroke (shaders/curve.vert).
struct CurveInstance {
  Vec2 p0, p1, p2, p3;
  Rgba color;
  float width = 2;
  float dash = 0;  // dashed: dashes and gaps this long (pixels) along the curve; 0 solid
};

struct Triangle {
  Vec2 a, b, c;
  Rgba color;
};

enum class TextStyle : uint8_t { regular, bold, heading };

struct TextItem {
  Vec2 anchor;
  float align_x = 0;  // 0 left, 0.5 centre, 1 right of the anchor
  float align_y = 0;  // 0 top, 0.5 middle
  std::string text;   // UTF-8
  Rgba color;
  float size = 16;  // pixels
  TextStyle style = TextStyle::regular;
};

// Where a block sits, for hover tooltips.
struct HitBox {
  Rect rect;
  int column = 0, row = 0, block = 0;
};

// A part of the figure (heading and legend, grid, link view, bytes, times,
// footer) that must not overlap another: the fit and the layout test read them.
struct Region {
  Rect rect;
  std::string name;
};

struct Scene {
  std::vector<TileInstance> tiles;
  std::vector<CurveInstance> curves;
  std::vector<Triangle> triangles;
  std::vector<TextItem> texts;
  std::vector<HitBox> hits;
  float width = 0, height = 0;  // extent actually used
  int bad_blocks = 0;           // blocks whose bytes failed verification
  std::vector<Region> regions;
  // What the fit scores (app/view/fit.h): the smallest block label drawn
  // (pixels; 0 when none), the grid's tile size, the scale laid out at.
  float label_px_min = 0;
  float side_px_min = 0;  // the smallest text of the side parts (link view, bytes, times); 0: none
  float tile_w = 0, tile_h = 0;
  float scale = 0;
  // Drawn after everything else, texts included (blocks in flight over
  // the grid's labels): tiles and texts from these indices on.
  std::size_t overlay_tiles = SIZE_MAX, overlay_texts = SIZE_MAX;
};

}  // namespace collviz::ui
