// Draws a Scene's tiles, curves and arrowheads with our shaders (instanced
// quads and curve strips) into whatever framebuffer is bound: the window in
// the app, an offscreen framebuffer for export. Text is not drawn here.
#pragma once

#include <epoxy/gl.h>

#include "app/gl/gl_program.h"
#include "app/view/palette.h"
#include "app/view/scene.h"

namespace collviz::ui {

class DiagramRenderer {
 public:
  DiagramRenderer() = default;
  ~DiagramRenderer();
  DiagramRenderer(const DiagramRenderer&) = delete;
  DiagramRenderer& operator=(const DiagramRenderer&) = delete;

  // Compile the programs and create buffers; needs a current GL 3.3 context.
  Status init();
  bool ready() const { return tiles_.id() != 0; }
  // Copy a scene's instance data to the GPU. Call only when the scene
  // changed (new snapshot or view settings), not every frame.
  void upload(const Scene& scene);
  // Draw the uploaded scene with its origin at `offset` inside a target of
  // `target` scene pixels (the viewport must already cover the target):
  // everything below the overlay, or (`overlay`) the overlay's tiles, which
  // go over the scene's texts (Scene::overlay_tiles).
  void draw(Vec2 offset, Vec2 target, bool overlay = false) const;
  void destroy();
  int uploads() const { return uploads_; }  // for tests and benchmarks

 private:
  void bindTiles(std::size_t first) const;
  GlProgram tiles_, curves_, solid_;
  GLuint quad_vbo_ = 0;
  GLuint tile_vao_ = 0, tile_vbo_ = 0;
  GLuint curve_vao_ = 0, curve_vbo_ = 0;
  GLuint solid_vao_ = 0, solid_vbo_ = 0;
  GLsizei tile_count_ = 0, curve_count_ = 0, solid_vertices_ = 0;
  GLsizei overlay_first_ = 0;  // tiles from here on are the overlay
  int uploads_ = 0;
};

}  // namespace collviz::ui
