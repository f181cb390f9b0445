// An offscreen framebuffer: a colour texture (RGBA8) attached to a
// framebuffer object. The export and the window's screenshot draw into it
// and read the pixels back; the window can also sample it as a texture.
#pragma once

#include <epoxy/gl.h>

#include <cstdint>
#include <string>
#include <vector>

#include "engine/text.h"

namespace collviz::ui {

class Offscreen {
 public:
  Offscreen() = default;
  ~Offscreen() { destroy(); }
  Offscreen(const Offscreen&) = delete;
  Offscreen& operator=(const Offscreen&) = delete;

  // The largest width or height this GL allows: the least of
  // GL_MAX_RENDERBUFFER_SIZE, GL_MAX_TEXTURE_SIZE and GL_MAX_VIEWPORT_DIMS.
  static int maxSize(std::string* which = nullptr);

  // (Re)create at w x h pixels; an error names the limit exceeded.
  Status resize(int w, int h);
  // Bind as the draw target with the viewport covering it.
  void bind() const;
  static void unbind() { glBindFramebuffer(GL_FRAMEBUFFER, 0); }
  // RGB bytes, top row first (GL's rows are bottom first).
  std::vector<uint8_t> readRgb() const;
  GLuint texture() const { return texture_; }
  GLuint framebuffer() const { return fbo_; }
  int width() const { return w_; }
  int height() const { return h_; }
  void destroy();

 private:
  GLuint fbo_ = 0, texture_ = 0;
  int w_ = 0, h_ = 0;
};

}  // namespace collviz::ui
