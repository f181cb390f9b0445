// Pure helpers for shader sources (no GL), unit-tested.
#include <cctype>

#include "app/view/shader_sources.h"

namespace collviz::ui {

const ShaderSource* findShader(std::string_view file) {
  for (const ShaderSource& s : shaderSources())
    if (file == s.file) return &s;
  return nullptr;
}

namespace {
// Parse "0:12(5):" / "0(12) :" / "ERROR: 0:12:" at the start of `line`.
// Returns the line number and where the message text starts, or -1.
int parseLine(std::string_view line, size_t& rest) {
  size_t i = 0;
  if (line.substr(0, 7) == "ERROR: ") i = 7;
  else if (line.substr(0, 9) == "WARNING: ") i = 9;
  size_t start = i;
  while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
  if (i == start || i >= line.size()) return -1;
  char sep = line[i++];
  if (sep != ':' && sep != '(') return -1;
  size_t num = i;
  while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
  if (i == num) return -1;
  int n = std::stoi(std::string(line.substr(num, i - num)));
  // Skip "(col)" or ")" then spaces and one ':'.
  if (i < line.size() && line[i] == '(') {
    while (i < line.size() && line[i] != ')') ++i;
  }
  if (i < line.size() && line[i] == ')') ++i;
  while (i < line.size() && line[i] == ' ') ++i;
  if (i < line.size() && line[i] == ':') ++i;
  while (i < line.size() && line[i] == ' ') ++i;
  rest = i;
  return n;
}
}  // namespace

std::string annotateShaderLog(std::string_view file, std::string_view log) {
  std::string out;
  size_t pos = 0;
  while (pos < log.size()) {
    size_t end = log.find('\n', pos);
    if (end == std::string_view::npos) end = log.size();
    std::string_view line = log.substr(pos, end - pos);
    pos = end + 1;
    if (line.empty()) continue;
    size_t rest = 0;
    int n = parseLine(line, rest);
    out += file;
    if (n >= 0) {
      out += ":" + std::to_string(n) + ": ";
      out += line.substr(rest);
    } else {
      out += ": ";
      out += line;
    }
    out += '\n';
  }
  return out;
}

}  // namespace collviz::ui
