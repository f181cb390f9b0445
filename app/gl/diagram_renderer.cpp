#include "app/gl/diagram_renderer.h"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace collviz::ui {

namespace {

constexpr int kCurveSegments = 32;

// GPU-side instance layouts (see shaders/tile.vert, shaders/curve.vert).
struct TileGpu {
  float rect[4], fill[4], border[4], shape[2];
  uint32_t bits[2];
};
struct CurveGpu {
  float p01[4], p23[4], color[4], width, dash;
};
struct SolidGpu {
  float pos[2], color[4];
};

void put(float* dst, Rgba c) {
  dst[0] = c.r, dst[1] = c.g, dst[2] = c.b, dst[3] = c.a;
}

void floatAttrib(GLuint loc, int n, GLsizei stride, size_t offset, bool instanced) {
  glEnableVertexAttribArray(loc);
  glVertexAttribPointer(loc, n, GL_FLOAT, GL_FALSE, stride, reinterpret_cast<void*>(offset));
  glVertexAttribDivisor(loc, instanced ? 1 : 0);
}

}  // namespace

DiagramRenderer::~DiagramRenderer() { destroy(); }

// The tile instances' attributes, starting at instance `first` (the overlay
// is drawn from its own first instance; GL 3.3 has no base instance).
void DiagramRenderer::bindTiles(std::size_t first) const {
  glBindBuffer(GL_ARRAY_BUFFER, tile_vbo_);
  const GLsizei ts = sizeof(TileGpu);
  const std::size_t at = first * sizeof(TileGpu);
  floatAttrib(1, 4, ts, at + offsetof(TileGpu, rect), true);
  floatAttrib(2, 4, ts, at + offsetof(TileGpu, fill), true);
  floatAttrib(3, 4, ts, at + offsetof(TileGpu, border), true);
  floatAttrib(4, 2, ts, at + offsetof(TileGpu, shape), true);
  glEnableVertexAttribArray(5);
  glVertexAttribIPointer(5, 2, GL_UNSIGNED_INT, ts, reinterpret_cast<void*>(at + offsetof(TileGpu, bits)));
  glVertexAttribDivisor(5, 1);
}

Status DiagramRenderer::init() {
  if (Status s = tiles_.build("shaders/tile.vert", "shaders/tile.frag"); !s) return s;
  if (Status s = curves_.build("shaders/curve.vert", "shaders/curve.frag"); !s) return s;
  if (Status s = solid_.build("shaders/solid.vert", "shaders/solid.frag"); !s) return s;

  // The unit quad every tile instance stretches over its rect.
  const float quad[] = {0, 0, 1, 0, 0, 1, 1, 1};
  glGenBuffers(1, &quad_vbo_);
  glBindBuffer(GL_ARRAY_BUFFER, quad_vbo_);
  glBufferData(GL_ARRAY_BUFFER, sizeof quad, quad, GL_STATIC_DRAW);

  glGenVertexArrays(1, &tile_vao_);
  glGenBuffers(1, &tile_vbo_);
  glBindVertexArray(tile_vao_);
  glBindBuffer(GL_ARRAY_BUFFER, quad_vbo_);
  floatAttrib(0, 2, 0, 0, false);
  bindTiles(0);

  glGenVertexArrays(1, &curve_vao_);
  glGenBuffers(1, &curve_vbo_);
  glBindVertexArray(curve_vao_);
  glBindBuffer(GL_ARRAY_BUFFER, curve_vbo_);
  const GLsizei cs = sizeof(CurveGpu);
  floatAttrib(1, 4, cs, offsetof(CurveGpu, p01), true);
  floatAttrib(2, 4, cs, offsetof(CurveGpu, p23), true);
  floatAttrib(3, 4, cs, offsetof(CurveGpu, color), true);
  floatAttrib(4, 1, cs, offsetof(CurveGpu, width), true);
  floatAttrib(5, 1, cs, offsetof(CurveGpu, dash), true);

  glGenVertexArrays(1, &solid_vao_);
  glGenBuffers(1, &solid_vbo_);
  glBindVertexArray(solid_vao_);
  glBindBuffer(GL_ARRAY_BUFFER, solid_vbo_);
  floatAttrib(0, 2, sizeof(SolidGpu), offsetof(SolidGpu, pos), false);
  floatAttrib(1, 4, sizeof(SolidGpu), offsetof(SolidGpu, color), false);
  glBindVertexArray(0);

  // The stripe palette never changes: set it once.
  float palette[kPaletteSize * 4];
  for (int i = 0; i < kPaletteSize; ++i) put(palette + 4 * i, letterColor(i));
  glUseProgram(tiles_.id());
  glUniform4fv(tiles_.uniform("u_palette"), kPaletteSize, palette);
  glUseProgram(0);
  return Status::Ok();
}

void DiagramRenderer::upload(const Scene& scene) {
  if (!ready()) return;
  std::vector<TileGpu> tiles;
  tiles.reserve(scene.tiles.size());
  for (const TileInstance& t : scene.tiles) {
    TileGpu g{};
    g.rect[0] = t.rect.x, g.rect[1] = t.rect.y, g.rect[2] = t.rect.w, g.rect[3] = t.rect.h;
    put(g.fill, t.fill);
    put(g.border, t.border);
    g.shape[0] = t.radius, g.shape[1] = t.border_width;
    g.bits[0] = t.flags, g.bits[1] = t.stripes;
    tiles.push_back(g);
  }
  std::vector<CurveGpu> curves;
  curves.reserve(scene.curves.size());
  for (const CurveInstance& c : scene.curves) {
    CurveGpu g{{c.p0.x, c.p0.y, c.p1.x, c.p1.y}, {c.p2.x, c.p2.y, c.p3.x, c.p3.y}, {}, c.width, c.dash};
    put(g.color, c.color);
    curves.push_back(g);
  }
  std::vector<SolidGpu> solid;
  solid.reserve(scene.triangles.size() * 3);
  for (const Triangle& t : scene.triangles) {
    for (Vec2 p : {t.a, t.b, t.c}) {
      SolidGpu v{{p.x, p.y}, {}};
      put(v.color, t.color);
      solid.push_back(v);
    }
  }
  glBindBuffer(GL_ARRAY_BUFFER, tile_vbo_);
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(tiles.size() * sizeof(TileGpu)), tiles.data(), GL_DYNAMIC_DRAW);
  glBindBuffer(GL_ARRAY_BUFFER, curve_vbo_);
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(curves.size() * sizeof(CurveGpu)), curves.data(), GL_DYNAMIC_DRAW);
  glBindBuffer(GL_ARRAY_BUFFER, solid_vbo_);
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(solid.size() * sizeof(SolidGpu)), solid.data(), GL_DYNAMIC_DRAW);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  tile_count_ = GLsizei(tiles.size());
  curve_count_ = GLsizei(curves.size());
  solid_vertices_ = GLsizei(solid.size());
  overlay_first_ = GLsizei(std::min(scene.overlay_tiles, scene.tiles.size()));
  ++uploads_;
}

void DiagramRenderer::draw(Vec2 offset, Vec2 target, bool overlay) const {
  if (!ready()) return;
  glEnable(GL_BLEND);
  glBlendEquation(GL_FUNC_ADD);
  glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_CULL_FACE);
  auto begin = [&](const GlProgram& p) {
    glUseProgram(p.id());
    glUniform2f(p.uniform("u_target"), target.x, target.y);
    glUniform2f(p.uniform("u_offset"), offset.x, offset.y);
  };
  if (overlay) {
    if (tile_count_ > overlay_first_) {
      begin(tiles_);
      glBindVertexArray(tile_vao_);
      bindTiles(std::size_t(overlay_first_));
      glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, tile_count_ - overlay_first_);
      bindTiles(0);
    }
    glBindVertexArray(0);
    glUseProgram(0);
    return;
  }
  // Flows under the tiles, so boxes and nodes cover the curve ends.
  if (curve_count_ > 0) {
    begin(curves_);
    glUniform1i(curves_.uniform("u_segments"), kCurveSegments);
    glBindVertexArray(curve_vao_);
    glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 2 * (kCurveSegments + 1), curve_count_);
  }
  if (solid_vertices_ > 0) {
    begin(solid_);
    glBindVertexArray(solid_vao_);
    glDrawArrays(GL_TRIANGLES, 0, solid_vertices_);
  }
  if (tile_count_ > 0) {
    begin(tiles_);
    glBindVertexArray(tile_vao_);
    glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, overlay_first_);
  }
  glBindVertexArray(0);
  glUseProgram(0);
}

void DiagramRenderer::destroy() {
  GLuint vaos[] = {tile_vao_, curve_vao_, solid_vao_};
  GLuint vbos[] = {quad_vbo_, tile_vbo_, curve_vbo_, solid_vbo_};
  if (tile_vao_) {
    glDeleteVertexArrays(3, vaos);
    glDeleteBuffers(4, vbos);
  }
  tile_vao_ = curve_vao_ = solid_vao_ = quad_vbo_ = tile_vbo_ = curve_vbo_ = solid_vbo_ = 0;
  tiles_.destroy();
  curves_.destroy();
  solid_.destroy();
}

}  // namespace collviz::ui
