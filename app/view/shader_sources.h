// GLSL sources embedded at build time from shaders/ (app/embed_shaders.cmake).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace collviz::ui {

struct ShaderSource {
  const char* file;  // "shaders/tile.frag", used in error messages
  const char* text;
};

const std::vector<ShaderSource>& shaderSources();
// The source embedded for `file` ("shaders/tile.frag"), or null.
const ShaderSource* findShader(std::string_view file);

// Rewrite a driver's compile log so each message names the file and line:
// Mesa "0:12(5): error: ..." and NVIDIA "0(12) : error ..." both become
// "shaders/tile.frag:12: error: ...".
std::string annotateShaderLog(std::string_view file, std::string_view log);

}  // namespace collviz::ui
