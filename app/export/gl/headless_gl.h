// An OpenGL 3.3 core context with no window on screen (a hidden GLFW
// window), for `collviz export`. Without a display, the command re-runs
// itself under `xvfb-run -a` when that is installed.
#pragma once

#include <string>

#include "engine/status.h"

struct GLFWwindow;

namespace collviz {

class HeadlessGl {
 public:
  HeadlessGl() = default;
  ~HeadlessGl();
  HeadlessGl(const HeadlessGl&) = delete;
  HeadlessGl& operator=(const HeadlessGl&) = delete;
  Status open();  // makes the context current
  std::string renderer() const;  // "llvmpipe (LLVM 15.0.6, 256 bits) | 4.5 (Core Profile) Mesa ..."

 private:
  GLFWwindow* window_ = nullptr;
};

// DISPLAY or WAYLAND_DISPLAY is set.
bool haveDisplay();
// Replace this process by the same command under `xvfb-run -a`; says so on
// stderr. Returns only on failure, with what to install or use instead.
Status rerunUnderXvfb(const std::string& who);

}  // namespace collviz
