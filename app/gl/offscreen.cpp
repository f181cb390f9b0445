#include "app/gl/offscreen.h"

#include <algorithm>
#include <cstring>

namespace collviz::ui {

int Offscreen::maxSize(std::string* which) {
  GLint rb = 0, tex = 0, vp[2] = {0, 0};
  glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &rb);
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &tex);
  glGetIntegerv(GL_MAX_VIEWPORT_DIMS, vp);
  int m = rb;
  std::string name = "GL_MAX_RENDERBUFFER_SIZE";
  if (tex < m) m = tex, name = "GL_MAX_TEXTURE_SIZE";
  if (std::min(vp[0], vp[1]) < m) m = std::min(vp[0], vp[1]), name = "GL_MAX_VIEWPORT_DIMS";
  if (which) *which = name;
  return m;
}

Status Offscreen::resize(int w, int h) {
  if (w == w_ && h == h_ && fbo_) return Status::Ok();
  std::string which;
  const int limit = maxSize(&which);
  if (w < 1 || h < 1 || w > limit || h > limit)
    return Error{"image size " + std::to_string(w) + "x" + std::to_string(h) +
                         " pixels is beyond what this OpenGL allows (" + which + " = " +
                         std::to_string(limit) + ")"};
  destroy();
  while (glGetError() != GL_NO_ERROR) {
  }
  glGenTextures(1, &texture_);
  glBindTexture(GL_TEXTURE_2D, texture_);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glBindTexture(GL_TEXTURE_2D, 0);
  GLenum err = glGetError();
  glGenFramebuffers(1, &fbo_);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture_, 0);
  GLenum fb = glCheckFramebufferStatus(GL_FRAMEBUFFER);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  if (err != GL_NO_ERROR || fb != GL_FRAMEBUFFER_COMPLETE) {
    destroy();
    return Error{"cannot create a " + std::to_string(w) + "x" + std::to_string(h) +
                         " offscreen framebuffer (GL error " + std::to_string(err) +
                         ", framebuffer status " + std::to_string(fb) + "; out of memory?)"};
  }
  w_ = w, h_ = h;
  return Status::Ok();
}

void Offscreen::bind() const {
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glViewport(0, 0, w_, h_);
}

std::vector<uint8_t> Offscreen::readRgb() const {
  std::vector<uint8_t> rgb(size_t(w_) * h_ * 3), row(size_t(w_) * 3);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo_);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, w_, h_, GL_RGB, GL_UNSIGNED_BYTE, rgb.data());
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  const size_t stride = size_t(w_) * 3;
  for (int y = 0; y < h_ / 2; ++y) {
    uint8_t* a = rgb.data() + size_t(y) * stride;
    uint8_t* b = rgb.data() + size_t(h_ - 1 - y) * stride;
    std::memcpy(row.data(), a, stride);
    std::memcpy(a, b, stride);
    std::memcpy(b, row.data(), stride);
  }
  return rgb;
}

void Offscreen::destroy() {
  if (fbo_) glDeleteFramebuffers(1, &fbo_);
  if (texture_) glDeleteTextures(1, &texture_);
  fbo_ = texture_ = 0;
  w_ = h_ = 0;
}

}  // namespace collviz::ui
