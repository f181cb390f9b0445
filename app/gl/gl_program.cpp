#include "app/gl/gl_program.h"

#include <vector>

#include "app/view/shader_sources.h"

namespace collviz::ui {

Result<GLuint> compileShader(GLenum type, const std::string& file, const char* source) {
  GLuint s = glCreateShader(type);
  glShaderSource(s, 1, &source, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (ok) return s;
  GLint len = 0;
  glGetShaderiv(s, GL_INFO_LOG_LENGTH, &len);
  std::vector<char> log(std::max(len, 1));
  glGetShaderInfoLog(s, GLsizei(log.size()), nullptr, log.data());
  glDeleteShader(s);
  return Error{"shader compile failed:\n" + annotateShaderLog(file, log.data())};
}

GlProgram::~GlProgram() { destroy(); }

void GlProgram::destroy() {
  if (id_) glDeleteProgram(id_);
  id_ = 0;
}

Status GlProgram::build(const std::string& vert, const std::string& frag) {
  const ShaderSource* vs = findShader(vert);
  const ShaderSource* fs = findShader(frag);
  if (!vs || !fs) return Error{"shader not embedded: " + (vs ? frag : vert)};
  Result<GLuint> v = compileShader(GL_VERTEX_SHADER, vs->file, vs->text);
  if (!v) return v.error();
  Result<GLuint> f = compileShader(GL_FRAGMENT_SHADER, fs->file, fs->text);
  if (!f) {
    glDeleteShader(*v);
    return f.error();
  }
  GLuint p = glCreateProgram();
  glAttachShader(p, *v);
  glAttachShader(p, *f);
  glLinkProgram(p);
  glDeleteShader(*v);
  glDeleteShader(*f);
  GLint ok = 0;
  glGetProgramiv(p, GL_LINK_STATUS, &ok);
  if (!ok) {
    GLint len = 0;
    glGetProgramiv(p, GL_INFO_LOG_LENGTH, &len);
    std::vector<char> log(std::max(len, 1));
    glGetProgramInfoLog(p, GLsizei(log.size()), nullptr, log.data());
    glDeleteProgram(p);
    // Link errors span both stages; name the pair.
    return Error{"shader link failed (" + vert + " + " + frag + "):\n" +
                 annotateShaderLog(vert, log.data())};
  }
  destroy();
  id_ = p;
  return Status::Ok();
}

}  // namespace collviz::ui
