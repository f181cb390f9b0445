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
RunResult collviz(const std::string& args, const std::string& env = "");

// A fresh empty directory under the build tree.
std::string freshDir(const std::string& name);
std::vector<std::string> listDir(const std::string& dir);  // sorted names
std::string readFile(const std::string& path);
bool haveTool(const std::string& tool);

// DISPLAY set, or an Xvfb of our own started (and stopped at exit). False:
// `why` says what is missing.
bool ensureDisplay(std::string* why);

}  // namespace collviz::test
