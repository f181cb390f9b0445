// An OpenGL 3.3 core context with no window on screen, for `collviz export`
// and `collviz lecture --export`. Without a display: EGL on Mesa's
// surfaceless platform, in this process (no X server, no child, nothing to
// relay signals to: Ctrl-C and SIGTERM end the export like any command).
// Where EGL cannot give a context, an Xvfb that collviz starts as its own
// child, waits for, and ends (with its lock and socket) when done or
// interrupted. With a display: a hidden GLFW window.
#pragma once

#include <sys/types.h>

#include <string>

#include "engine/text.h"

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
  // "EGL surfaceless", "Xvfb :12 (a child of collviz)" or "display :0".
  const std::string& route() const { return route_; }

 private:
  Status openEgl();
  Status startXvfb();
  Status openGlfw();
  GLFWwindow* window_ = nullptr;
  void* egl_display_ = nullptr;
  void* egl_context_ = nullptr;
  pid_t xvfb_ = -1;
  int xvfb_display_ = -1;
  std::string route_;
};

// DISPLAY or WAYLAND_DISPLAY is set.
bool haveDisplay();

// The renderer (Mesa's llvmpipe: LLVM, a thread per core, its tiles) and an
// image of width x height take address space that a small `ulimit -v` does
// not leave; out of it, Mesa and ImGui abort or crash. Checked before the
// context is made: the same "out of memory" message as elsewhere, naming the
// need and the limit. Measured: an export draws at 800 MB of address space
// and crashes at 700 MB.
Status checkRendererMemory(int width, int height);

}  // namespace collviz
