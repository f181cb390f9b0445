#include "app/export/headless_gl.h"

#include <epoxy/egl.h>
#include <epoxy/gl.h>  // before GLFW

#include <GLFW/glfw3.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "engine/group/exit_cleanup.h"
#include "engine/group/memory_budget.h"

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

std::string eglError(const char* what) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%s failed (EGL error 0x%04x)", what, unsigned(eglGetError()));
  return buf;
}

// Xvfb's lock file and socket for display n (removed by Xvfb on SIGTERM;
// registered so an exit at once removes them too).
std::string xLock(int n) { return "/tmp/.X" + std::to_string(n) + "-lock"; }
std::string xSocket(int n) { return "/tmp/.X11-unix/X" + std::to_string(n); }

}  // namespace

bool haveDisplay() { return envSet("DISPLAY") || envSet("WAYLAND_DISPLAY"); }

Status checkRendererMemory(int width, int height) {
  const auto limit = memoryLimit();
  if (!limit) return Status::Ok();
  // What the renderer took beyond the process at its start, measured with
  // ulimit -v (it crashed with 650 MiB left, drew with 750), plus the image: its
  // framebuffer, the read-back and the encoded copies, 16 bytes a pixel.
  constexpr double kRendererBytes = 736.0 * 1024 * 1024;
  const double need = kRendererBytes + 16.0 * double(width) * double(height);
  if (double(limit->bytes) >= need) return Status::Ok();
  auto mib = [](double b) { return std::to_string(static_cast<long long>(b / (1024 * 1024))) + " MiB"; };
  return Error{"out of memory: drawing a " + std::to_string(width) + "x" + std::to_string(height) +
               " image needs about " + mib(need) + " but " + limit->what + " is " +
               mib(double(limit->bytes)) + "; allow more (ulimit -v), draw smaller (--size), or use "
               "--format svg, which needs no renderer"};
}

Status HeadlessGl::openEgl() {
  auto get_display = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(
      eglGetProcAddress("eglGetPlatformDisplayEXT"));
  if (!get_display) return Error{"EGL has no eglGetPlatformDisplayEXT (libegl1, libegl-mesa0)"};
  EGLDisplay d = get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
  if (d == EGL_NO_DISPLAY) return Error{eglError("the surfaceless platform")};
  EGLint major = 0, minor = 0;
  if (!eglInitialize(d, &major, &minor)) return Error{eglError("eglInitialize")};
  egl_display_ = d;
  if (!eglBindAPI(EGL_OPENGL_API)) return Error{eglError("eglBindAPI(OpenGL)")};
  const EGLint config_attrs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_SURFACE_TYPE, 0, EGL_NONE};
  EGLConfig config{};
  EGLint configs = 0;
  if (!eglChooseConfig(d, config_attrs, &config, 1, &configs) || configs < 1)
    return Error{eglError("eglChooseConfig")};
  const EGLint context_attrs[] = {EGL_CONTEXT_MAJOR_VERSION, 3,
                                  EGL_CONTEXT_MINOR_VERSION, 3,
                                  EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                  EGL_CONTEXT_OPENGL_FORWARD_COMPATIBLE, EGL_TRUE,
                                  EGL_NONE};
  EGLContext c = eglCreateContext(d, config, EGL_NO_CONTEXT, context_attrs);
  if (c == EGL_NO_CONTEXT) return Error{eglError("an OpenGL 3.3 core context")};
  egl_context_ = c;
  // Offscreen drawing goes to framebuffer objects: no surface at all.
  if (!eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, c)) return Error{eglError("eglMakeCurrent")};
  route_ = "EGL surfaceless";
  return Status::Ok();
}

Status HeadlessGl::startXvfb() {
  const std::string xvfb = findInPath("Xvfb");
  if (xvfb.empty()) return Error{"Xvfb not found (Debian: apt-get install xvfb)"};
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Error{std::string("pipe: ") + std::strerror(errno)};
  std::string fd_arg = std::to_string(fds[1]);
  std::vector<std::string> args = {xvfb, "-displayfd", fd_arg, "-nolisten", "tcp", "-noreset",
                                   "-screen", "0", "640x480x24"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) return Error{std::string("fork: ") + std::strerror(errno)};
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlives collviz
    if (::getppid() != parent) ::_exit(1);
    ::fcntl(fds[1], F_SETFD, 0);  // the one descriptor Xvfb inherits
    const int null = ::open("/dev/null", O_RDWR);
    if (null >= 0) ::dup2(null, 2);  // its start-up chatter
    ::execv(xvfb.c_str(), argv.data());
    ::_exit(127);
  }
  registerChild(pid);
  xvfb_ = pid;
  ::close(fds[1]);
  // Xvfb writes the display number it took when it is ready.
  std::string number;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < end && number.find('\n') == std::string::npos) {
    pollfd p{fds[0], POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    char buf[32];
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n <= 0) break;
    number.append(buf, std::size_t(n));
  }
  ::close(fds[0]);
  if (number.empty() || number.find('\n') == std::string::npos)
    return Error{"Xvfb did not start within 10 s"};
  xvfb_display_ = std::atoi(number.c_str());
  registerTempFile(xLock(xvfb_display_));
  registerTempFile(xSocket(xvfb_display_));
  ::setenv("DISPLAY", (":" + std::to_string(xvfb_display_)).c_str(), 1);
  route_ = "Xvfb :" + std::to_string(xvfb_display_) + " (a child of collviz)";
  return Status::Ok();
}

Status HeadlessGl::openGlfw() {
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
  if (route_.empty()) route_ = "display " + std::string(std::getenv("DISPLAY") ? std::getenv("DISPLAY") : "");
  return Status::Ok();
}

Status HeadlessGl::open() {
  if (haveDisplay()) return openGlfw();
  Status egl = openEgl();
  if (egl) return egl;
  const std::string why = egl.message();
  if (egl_display_) eglTerminate(static_cast<EGLDisplay>(egl_display_));
  egl_display_ = egl_context_ = nullptr;
  const std::string advice =
      "install libegl-mesa0 (EGL without a display) or xvfb, set DISPLAY, or use --format svg, "
      "which needs no display";
  if (Status x = startXvfb(); !x)
    return Error{"no display, no EGL context (" + why + ") and no Xvfb (" + x.message() + "); " + advice};
  std::fprintf(stderr, "collviz: no EGL context (%s); drawing on %s\n", why.c_str(), route_.c_str());
  return openGlfw();
}

std::string HeadlessGl::renderer() const {
  if (!window_ && !egl_context_) return "";
  return std::string(reinterpret_cast<const char*>(glGetString(GL_RENDERER))) + " | " +
         reinterpret_cast<const char*>(glGetString(GL_VERSION));
}

HeadlessGl::~HeadlessGl() {
  if (window_) {
    glfwDestroyWindow(window_);
    glfwTerminate();
  }
  if (egl_display_) {
    auto d = static_cast<EGLDisplay>(egl_display_);
    eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (egl_context_) eglDestroyContext(d, static_cast<EGLContext>(egl_context_));
    eglTerminate(d);
  }
  if (xvfb_ > 0) {
    ::kill(xvfb_, SIGTERM);  // it removes its lock and socket
    int status = 0;
    while (::waitpid(xvfb_, &status, 0) < 0 && errno == EINTR) {}
    forgetChild(xvfb_);
    if (xvfb_display_ >= 0) {
      forgetTempFile(xLock(xvfb_display_));
      forgetTempFile(xSocket(xvfb_display_));
    }
  }
}

}  // namespace collviz
