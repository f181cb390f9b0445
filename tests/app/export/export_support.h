// Helpers for the export tests: run `collviz export`, temporary directories,
// PNG files, and an X server of our own when none is present.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace collviz::test {

struct Png {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;
  bool ok() const { return width > 0; }
  const uint8_t* at(int x, int y) const { return rgb.data() + (size_t(y) * width + x) * 3; }
};
Png loadPng(const std::string& path);

struct RunResult {
  int rc = -1;
  std::string out;  // stdout and stderr together
};
// Runs `collviz <args>` through the shell; `env` is prepended (e.g. "env -u DISPLAY").
// COLLVIZ_TEST_CLI names another collviz to run instead of this build's.
RunResult collviz(const std::string& args, const std::string& env = "");

// A fresh empty directory under the build tree.
std::string freshDir(const std::string& name);
std::vector<std::string> listDir(const std::string& dir);  // sorted names
std::string readFile(const std::string& path);
bool haveTool(const std::string& tool);
void writeFile(const std::string& path, const std::string& text);

// The SVG with its <tspan> tags taken out (CJK runs are tspans of their own
// size inside a <text>), so a <text>'s content reads as one string.
std::string withoutTspans(const std::string& svg);
// The <text> elements of an SVG in reading order: one line per row (texts
// within 8 px of the row's first y), left to right, separated by " | ".
std::string svgTextRows(const std::string& svg);
// The same rows, each a list of its texts.
std::vector<std::vector<std::string>> svgRows(const std::string& svg);

// DISPLAY set, or an Xvfb of our own started (and stopped at exit). False:
// `why` says what is missing.
bool ensureDisplay(std::string* why);

}  // namespace collviz::test
