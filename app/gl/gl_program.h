// A linked GLSL program built from two embedded shader files. Compile and
// link errors come back as a Status naming the file and line.
#pragma once

#include <epoxy/gl.h>

#include <string>

#include "engine/text.h"

namespace collviz::ui {

class GlProgram {
 public:
  GlProgram() = default;
  ~GlProgram();
  GlProgram(const GlProgram&) = delete;
  GlProgram& operator=(const GlProgram&) = delete;

  // vert/frag: embedded file names, e.g. "shaders/tile.vert".
  Status build(const std::string& vert, const std::string& frag);
  void destroy();
  GLuint id() const { return id_; }
  GLint uniform(const char* name) const { return glGetUniformLocation(id_, name); }

 private:
  GLuint id_ = 0;
};

// Compile one shader from source; on failure the Status message is the
// annotated log ("shaders/tile.frag:12: error: ...").
Result<GLuint> compileShader(GLenum type, const std::string& file, const char* source);

}  // namespace collviz::ui
