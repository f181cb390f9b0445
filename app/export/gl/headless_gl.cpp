#include "app/export/gl/headless_gl.h"

#include <epoxy/gl.h>  // before GLFW

#include <GLFW/glfw3.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <vector>

namespace collviz {

namespace {
std::string g_glfw_error;
void rememberError(int, const char* description) { g_glfw_error = description; }

bool envSet(const char* name) {
  const char* v = std::getenv(name);
  return v && *v;
}

std::string findInPath(const std::string& tool) {
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    std::string candidate = p.substr(start, end - start) + "/" + tool;
    if (end > start && access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

constexpr const char* kChildMark = "COLLVIZ_UNDER_XVFB";
}  // namespace

bool haveDisplay() { return envSet("DISPLAY") || envSet("WAYLAND_DISPLAY"); }

Status rerunUnderXvfb(const std::string& who) {
  const std::string advice =
      "install Xvfb (Debian: apt-get install xvfb, which provides xvfb-run), set DISPLAY, or "
      "use --format svg, which needs no display";
  if (envSet(kChildMark))
    return Error{"no display even under xvfb-run (Xvfb did not start?); " + advice};
  std::string xvfb_run = findInPath("xvfb-run");
  if (xvfb_run.empty()) return Error{"no display (DISPLAY unset) and xvfb-run not found; " + advice};
  // The same command line: argv from /proc, the binary by its real path.
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  for (size_t i = 0; i < raw.size();) {
    size_t end = raw.find('\0', i);
    if (end == std::string::npos) end = raw.size();
    args.push_back(raw.substr(i, end - i));
    i = end + 1;
  }
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0 || args.empty()) return Error{"cannot find this program to re-run it under xvfb-run"};
  exe[n] = '\0';
  std::vector<std::string> cmd = {"xvfb-run", "-a", "-s", "-screen 0 640x480x24 -nolisten tcp", exe};
  cmd.insert(cmd.end(), args.begin() + 1, args.end());
  std::vector<char*> argv;
  for (std::string& s : cmd) argv.push_back(s.data());
  argv.push_back(nullptr);
  std::fprintf(stderr, "%s: no display; running under xvfb-run -a (a virtual X server)\n", who.c_str());
  std::fflush(stderr);
  setenv(kChildMark, "1", 1);
  execv(xvfb_run.c_str(), argv.data());
  return Error{"cannot run " + xvfb_run + "; " + advice};
}

Status HeadlessGl::open() {
  glfwSetErrorCallback(rememberError);
  if (!glfwInit()) return Error{"cannot open the display (" + g_glfw_error + ")"};
  glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
  glfwWindowHint(GLFW_FOCUSED, GLFW_FALSE);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  window_ = glfwCreateWindow(16, 16, "collviz export", nullptr, nullptr);
  if (!window_) {
    glfwTerminate();
    return Error{"cannot create an OpenGL 3.3 core context (" + g_glfw_error + ")"};
  }
  glfwMakeContextCurrent(window_);
  return Status::Ok();
}

std::string HeadlessGl::renderer() const {
  if (!window_) return "";
  return std::string(reinterpret_cast<const char*>(glGetString(GL_RENDERER))) + " | " +
         reinterpret_cast<const char*>(glGetString(GL_VERSION));
}

HeadlessGl::~HeadlessGl() {
  if (!window_) return;
  glfwDestroyWindow(window_);
  glfwTerminate();
}

}  // namespace collviz
