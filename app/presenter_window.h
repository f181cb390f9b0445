// The presenter view's window: a second GLFW window in the same process,
// with its own GL context and ImGui context, on the second monitor when
// there is one (else a normal window). It draws PresenterView for the
// AppUi's lecture; its keys go to the same queue as the main window's.
#pragma once

#include "app/panels/app_ui.h"
#include "app/panels/presenter.h"

struct GLFWwindow;
struct ImGuiContext;

namespace collviz {

class PresenterWindow {
 public:
  ~PresenterWindow() { close(); }
  // `keys`: the main window's key callback (reads the AppUi from the user pointer).
  bool open(GLFWwindow* main, ui::AppUi& ui, void (*keys)(GLFWwindow*, int, int, int, int));
  void close();
  bool isOpen() const { return window_ != nullptr; }
  bool closeRequested() const;
  // One frame; the main window's GL and ImGui contexts are current again after.
  void frame();

 private:
  GLFWwindow* window_ = nullptr;
  GLFWwindow* main_ = nullptr;
  ImGuiContext* ctx_ = nullptr;
  ui::AppUi* ui_ = nullptr;
  ui::Fonts fonts_;
  ui::PresenterView view_;
};

}  // namespace collviz
