// collviz: with a subcommand, the command line (app/cli/cli.h); without one,
// the window. This file is the window and the loop only; what it draws lives
// in app/panels/ (the panels), app/gl/ (the diagram) and, for the presenter's
// second window, presenter_window.cpp.
#include <epoxy/gl.h>  // before GLFW, so GLFW does not pull in another GL header

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "app/cli/cli.h"
#include "app/cli/cli_watch.h"
#include "app/lang/lang.h"
#include "app/panels/app_ui.h"
#include "app/presenter_window.h"
#include "engine/engine.h"

namespace {

std::string g_glfw_error;  // GLFW reports errors through a C callback

void rememberGlfwError(int, const char* description) { g_glfw_error = description; }

bool envSet(const char* name) {
  const char* v = std::getenv(name);
  return v && *v;
}

// Named lecture keys go to the app through a queue (see AppUi::queueKey).
// ImGui's GLFW backend installs its own callback and chains to this one.
void onKey(GLFWwindow* window, int key, int, int action, int) {
  if (action == GLFW_RELEASE) return;
  auto* ui = static_cast<collviz::ui::AppUi*>(glfwGetWindowUserPointer(window));
  using collviz::ui::LectureKey;
  switch (key) {
    case GLFW_KEY_LEFT: ui->queueKey(LectureKey::prev_op); break;
    case GLFW_KEY_RIGHT: ui->queueKey(LectureKey::next_op); break;
    case GLFW_KEY_UP: case GLFW_KEY_PAGE_UP: ui->queueKey(LectureKey::step_back); break;
    case GLFW_KEY_DOWN: case GLFW_KEY_PAGE_DOWN: ui->queueKey(LectureKey::step_forward); break;
    case GLFW_KEY_SPACE: ui->queueKey(LectureKey::rerun); break;
    case GLFW_KEY_HOME: ui->queueKey(LectureKey::first); break;
    case GLFW_KEY_END: ui->queueKey(LectureKey::last); break;
    case GLFW_KEY_ENTER: case GLFW_KEY_KP_ENTER: ui->queueKey(LectureKey::confirm); break;
    case GLFW_KEY_F12: ui->requestScreenshot(); break;
    case GLFW_KEY_ESCAPE: ui->queueKey(LectureKey::cancel); break;
    default: break;
  }
}

// A lecture script dropped on the window opens it.
// The monitor the window is on (most of its area), for full screen.
GLFWmonitor* currentMonitor(GLFWwindow* window) {
  int wx = 0, wy = 0, ww = 0, wh = 0, count = 0;
  glfwGetWindowPos(window, &wx, &wy);
  glfwGetWindowSize(window, &ww, &wh);
  GLFWmonitor** monitors = glfwGetMonitors(&count);
  GLFWmonitor* best = glfwGetPrimaryMonitor();
  long most = 0;
  for (int i = 0; i < count; ++i) {
    int mx = 0, my = 0;
    glfwGetMonitorPos(monitors[i], &mx, &my);
    const GLFWvidmode* m = glfwGetVideoMode(monitors[i]);
    if (!m) continue;
    const long w = std::max(0, std::min(wx + ww, mx + m->width) - std::max(wx, mx));
    const long h = std::max(0, std::min(wy + wh, my + m->height) - std::max(wy, my));
    if (w * h > most) most = w * h, best = monitors[i];
  }
  return best;
}

void onDrop(GLFWwindow* window, int count, const char** paths) {
  auto* ui = static_cast<collviz::ui::AppUi*>(glfwGetWindowUserPointer(window));
  if (count > 0) ui->openLecture(paths[0]);
}

int noWindow(const collviz::Text& why) {
  std::fprintf(stderr, "collviz: %s\n",
               collviz::render(collviz::say("{0}; use `collviz run ...` for the command line, "
                                            "`collviz export ...` for images, or run the window under xvfb-run -a",
                                            why))
                   .c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  // A subcommand runs and exits; no subcommand (or `collviz lecture FILE`)
  // opens the window.
  collviz::WindowRequest request;
  const int rc = collviz::runCli(argc, argv, &request);
  if (!request.open) return rc;

  if (!envSet("DISPLAY") && !envSet("WAYLAND_DISPLAY"))
    return noWindow(collviz::say("no display (DISPLAY/WAYLAND_DISPLAY unset)"));
  glfwSetErrorCallback(rememberGlfwError);
  if (!glfwInit()) return noWindow(collviz::say("cannot open the display ({0})", g_glfw_error));
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_SAMPLES, 0);
  GLFWwindow* window = glfwCreateWindow(1600, 1000, "collviz", nullptr, nullptr);
  if (!window) {
    glfwTerminate();
    return noWindow(collviz::say("cannot create an OpenGL 3.3 core window ({0})", g_glfw_error));
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(1);

  // The engine wakes the loop when a snapshot is out: the loop sleeps until
  // input, a result, or an animation needs a frame (no periodic wake-up).
  collviz::EngineOptions engine_options;
  engine_options.wake = [] { glfwPostEmptyEvent(); };
  collviz::Engine engine(engine_options);
  collviz::ui::AppOptions options;
  options.prefetch = !envSet("COLLVIZ_NO_PREFETCH");
  options.diagram_cache = !envSet("COLLVIZ_NO_DIAGRAM_CACHE");
  collviz::ui::AppUi ui(engine, options);
  ui.setWake([] { glfwPostEmptyEvent(); });  // the watch window's poller: new calls to draw
  if (!request.hosts.empty()) ui.setHosts(request.hosts);
  // COLLVIZ_UI_SCALE=2: open at "lecture hall 2x" (0.75 to 3, as the slider).
  if (const char* v = std::getenv("COLLVIZ_UI_SCALE"); v && *v) {
    const float s = std::strtof(v, nullptr);
    if (s >= 0.75f && s <= 3.0f) ui.state().ui_scale = s;
    else
      std::fprintf(stderr, "collviz: %s\n",
                   collviz::render(collviz::say("COLLVIZ_UI_SCALE={0} ignored; allowed: {1} to {2}", v, "0.75", "3")).c_str());
  }

  glfwSetWindowUserPointer(window, &ui);
  glfwSetKeyCallback(window, onKey);
  glfwSetDropCallback(window, onDrop);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // the layout is fixed; nothing to save
  ui.loadFonts();
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 330");
  if (collviz::Status s = ui.initGl(); !s) {
    std::fprintf(stderr, "collviz: %s\n", collviz::render(s).c_str());
    return 1;
  }
  if (!request.lecture.empty()) ui.openLecture(request.lecture);  // checked by the command line
  if (!request.nccl_log.empty()) ui.openNcclLog(request.nccl_log);
  if (!request.job.empty()) ui.openJob(request.job);
  if (!request.capture.empty())
    if (collviz::Status st = ui.openCapture(request.capture); !st) std::fprintf(stderr, "collviz: %s\n", collviz::render(st).c_str());
  if (request.watch)
    if (collviz::Status st = ui.watch(*request.watch); !st) std::fprintf(stderr, "collviz watch: %s\n", collviz::render(st).c_str());
  ui.setPresenterWanted(request.presenter);
  if (request.fullscreen) {
    // A lecture is a presentation: full screen, the diagram and caption only
    // (H shows the panels, F leaves full screen).
    ui.state().fullscreen = true;
    ui.state().panels_hidden = true;
  }
  collviz::PresenterWindow presenter;

  std::string title;
  bool fullscreen = false;
  int saved[4] = {100, 100, 1600, 1000};  // window pos and size before full screen
  // COLLVIZ_FRAME_LOG: one line per frame drawn on stderr (the idle test
  // counts them), with the previous frame's smallest block label and text,
  // fold and UI scale (gui_scale compares 1x and 2x).
  const bool frame_log = envSet("COLLVIZ_FRAME_LOG");
  unsigned long long frames = 0;
  int settle = 0;  // ImGui settles hover and focus a frame or two after an event
  while (!glfwWindowShouldClose(window)) {
    // Idle: sleep until input or a wake-up (glfwPostEmptyEvent from the
    // engine). The shown run in flight or a sweep: keep drawing (spinner).
    if (ui.animating() || settle > 0) {
      glfwPollEvents();
      settle = std::max(0, settle - 1);
    } else {
      glfwWaitEvents();
      settle = 2;
    }
    if (glfwGetWindowAttrib(window, GLFW_ICONIFIED)) {
      settle = 0;
      if (!ui.animating()) continue;  // waits for the next event above
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    if (frame_log)
      std::fprintf(stderr, "collviz: frame %llu label %.1f px text %.1f px fold %d scale %.2f\n", ++frames,
                   double(ui.labelPx()), double(ui.textPx()), ui.fold(), double(ui.state().ui_scale));
    if (ui.fontsStale()) {
      ui.loadFonts();
      ImGui_ImplOpenGL3_DestroyFontsTexture();
      ImGui_ImplOpenGL3_CreateFontsTexture();
    }
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    ui.Draw();
    ImGui::Render();

    if (ui.state().fullscreen != fullscreen) {
      fullscreen = ui.state().fullscreen;
      GLFWmonitor* monitor = currentMonitor(window);
      if (fullscreen && monitor) {
        glfwGetWindowPos(window, &saved[0], &saved[1]);
        glfwGetWindowSize(window, &saved[2], &saved[3]);
        const GLFWvidmode* mode = glfwGetVideoMode(monitor);
        glfwSetWindowMonitor(window, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
      } else {
        glfwSetWindowMonitor(window, nullptr, saved[0], saved[1], saved[2], saved[3], 0);
      }
    }
    if (std::string t = ui.windowTitle(); t != title) {
      title = t;
      glfwSetWindowTitle(window, title.c_str());
    }
    int w = 0, h = 0;
    glfwGetFramebufferSize(window, &w, &h);
    glViewport(0, 0, w, h);
    ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
    glClearColor(bg.x, bg.y, bg.z, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    ui.afterRender();  // a requested screenshot, drawn offscreen
    glfwSwapBuffers(window);

    if (presenter.closeRequested()) ui.setPresenterWanted(false);
    if (ui.presenterWanted() && ui.player() && !presenter.isOpen() &&
        !presenter.open(window, ui, onKey))
      ui.setPresenterWanted(false);
    if (!(ui.presenterWanted() && ui.player())) presenter.close();
    presenter.frame();
  }
  presenter.close();

  ui.destroyGl();
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return 0;
}
