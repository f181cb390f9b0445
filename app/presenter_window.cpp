#include "app/presenter_window.h"

#include <epoxy/gl.h>  // before GLFW, as in main.cpp

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include "app/gl/style.h"
#include "app/lang/lang.h"

namespace collviz {

namespace {
// ImGui's GLFW backend writes events into the current ImGui context; the
// presenter's scroll and clicks must reach its own context, not the main one.
struct Swap {
  ImGuiContext* prev;
  explicit Swap(ImGuiContext* to) : prev(ImGui::GetCurrentContext()) { ImGui::SetCurrentContext(to); }
  ~Swap() { ImGui::SetCurrentContext(prev); }
};
ImGuiContext* g_presenter_ctx = nullptr;

void onScroll(GLFWwindow* w, double x, double y) {
  Swap s(g_presenter_ctx);
  ImGui_ImplGlfw_ScrollCallback(w, x, y);
}
void onMouse(GLFWwindow* w, int button, int action, int mods) {
  Swap s(g_presenter_ctx);
  ImGui_ImplGlfw_MouseButtonCallback(w, button, action, mods);
}
// Typed keys (H, G 1 2, P, S, digits …) go to the app as the main window's do.
void onChar(GLFWwindow* w, unsigned c) {
  static_cast<ui::AppUi*>(glfwGetWindowUserPointer(w))->queueChar(c);
}
}  // namespace

bool PresenterWindow::open(GLFWwindow* main, ui::AppUi& ui, void (*keys)(GLFWwindow*, int, int, int, int)) {
  if (window_) return true;
  main_ = main;
  ui_ = &ui;
  glfwWindowHint(GLFW_VISIBLE, GLFW_TRUE);
  // Opening it leaves the keyboard with the main window (the projector's).
  glfwWindowHint(GLFW_FOCUS_ON_SHOW, GLFW_FALSE);
  glfwWindowHint(GLFW_FOCUSED, GLFW_FALSE);
  window_ = glfwCreateWindow(1100, 760, tr("collviz presenter"), nullptr, nullptr);
  glfwWindowHint(GLFW_FOCUS_ON_SHOW, GLFW_TRUE);
  glfwWindowHint(GLFW_FOCUSED, GLFW_TRUE);
  if (!window_) return false;
  // With a second monitor the presenter goes to the other one than the
  // projector's (the main window stays where it is).
  int count = 0;
  GLFWmonitor** monitors = glfwGetMonitors(&count);
  if (count > 1) {
    int x = 0, y = 0;
    glfwGetMonitorPos(monitors[1], &x, &y);
    glfwSetWindowPos(window_, x + 40, y + 40);
  }
  glfwSetWindowUserPointer(window_, &ui);
  glfwSetKeyCallback(window_, keys);
  glfwSetCharCallback(window_, onChar);
  glfwSetScrollCallback(window_, onScroll);
  glfwSetMouseButtonCallback(window_, onMouse);
  Swap s(nullptr);
  ctx_ = ImGui::CreateContext();
  g_presenter_ctx = ctx_;
  ImGui::SetCurrentContext(ctx_);
  ImGui::GetIO().IniFilename = nullptr;
  glfwMakeContextCurrent(window_);
  glfwSwapInterval(0);  // the main window keeps the pace
  ImGui_ImplGlfw_InitForOpenGL(window_, false);
  ImGui_ImplOpenGL3_Init("#version 330");
  glfwMakeContextCurrent(main_);
  return true;
}

void PresenterWindow::close() {
  if (!window_) return;
  {
    Swap s(ctx_);
    glfwMakeContextCurrent(window_);
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
  }
  ImGui::DestroyContext(ctx_);
  g_presenter_ctx = nullptr;
  ctx_ = nullptr;
  glfwDestroyWindow(window_);
  window_ = nullptr;
  fonts_ = ui::Fonts{};
  glfwMakeContextCurrent(main_);
}

bool PresenterWindow::closeRequested() const { return window_ && glfwWindowShouldClose(window_); }

void PresenterWindow::frame() {
  if (!window_ || !ui_->player()) return;
  Swap s(ctx_);
  glfwMakeContextCurrent(window_);
  if (fonts_.glyph_text != ui_->glyphText() || !fonts_.regular) {
    fonts_.load(1.0f, ui_->glyphText());
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
    ui::applyStyle(ui::makeTheme(ui::ThemeKind::dark), 1.0f);  // a dim screen in a dark room
  }
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
  view_.Draw(*ui_->player(), fonts_);
  ImGui::Render();
  int w = 0, h = 0;
  glfwGetFramebufferSize(window_, &w, &h);
  glViewport(0, 0, w, h);
  ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
  glClearColor(bg.x, bg.y, bg.z, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  glfwSwapBuffers(window_);
  glfwMakeContextCurrent(main_);
}

}  // namespace collviz
