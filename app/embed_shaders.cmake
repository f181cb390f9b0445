# Turns shader files into one C++ source of string literals, so the binary
# needs no shaders/ directory at run time. Run with -P:
#   -DOUT=<file.cpp> -DSRC_DIR=<shaders dir> -DFILES="tile.vert;tile.frag;..."
set(body "// Generated from shaders/ by app/embed_shaders.cmake. Do not edit.\n")
string(APPEND body "#include \"app/view/shader_sources.h\"\n\nnamespace collviz::ui {\n\n")
string(APPEND body "const std::vector<ShaderSource>& shaderSources() {\n")
string(APPEND body "  static const std::vector<ShaderSource> kSources = {\n")
foreach(f IN LISTS FILES)
  file(READ "${SRC_DIR}/${f}" text)
  string(FIND "${text}" ")glsl\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${f} contains the raw-string delimiter )glsl\"")
  endif()
  string(APPEND body "      {\"shaders/${f}\", R\"glsl(${text})glsl\"},\n")
endforeach()
string(APPEND body "  };\n  return kSources;\n}\n\n}  // namespace collviz::ui\n")
# Only touch the file when it changes, so dependants do not rebuild.
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT "${old}" STREQUAL "${body}")
  file(WRITE "${OUT}" "${body}")
endif()
