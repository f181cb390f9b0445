// Lecture mode in the main window: the bar above the diagram (title, step
// counter, ← →, the "go to" being typed), the caption under the diagram,
// the menu bar (File → Open lecture, Language, View) and the open dialog.
#pragma once

#include <string>
#include <vector>

#include "app/gl/fonts.h"
#include "app/lecture/player.h"
#include "app/view/app_state.h"

namespace collviz::ui {

struct MenuActions {
  std::string open_path;  // a lecture to open (the dialog's choice)
  bool close_lecture = false;
  bool toggle_presenter = false;
  bool open_algorithm = false;  // File → Open algorithm… (algo_file_dialog.h)
  bool open_nccl_log = false;   // File → Open NCCL log… (nccl_log_window.h)
  bool open_job = false;        // File → Open job traces… (job_window.h)
  bool open_capture = false;    // File → Open capture… (watch_window.h)
  bool watch_program = false;   // File → Watch a program… (watch_window.h)
};

struct LecturePanel {
  std::string error;  // the last script that did not open, and why
  bool dialog_open = false;
  bool presenter_shown = false;  // ticks the View menu's item
  // The caption's scale (pixels per layout unit): the UI scale, larger on a
  // big screen with the panels hidden (AppUi sets it each frame).
  float caption_scale = 1.0f;

  void DrawMenuBar(AppState& s, bool lecture_open, MenuActions& out);
  void DrawBar(lecture::Player& p, const Fonts& fonts);
  // The caption area under the diagram: its height, then drawing it at the
  // cursor (with the step counter at the right when panels are hidden, in
  // the caption's bold face at 0.8 of its size, so it reads from the back
  // of a room; the caption wraps short of it).
  float CaptionHeight(const std::string& caption, const std::string& counter, float width,
                      const Fonts& fonts) const;
  void DrawCaption(const std::string& caption, const std::string& counter, const Fonts& fonts,
                   const Theme& theme);
  void DrawOpenDialog(MenuActions& out);

 private:
  char path_[512] = "";
};

// The shipped scripts (assets/lectures/*.toml) and where they were found.
std::vector<std::string> shippedLectures();

}  // namespace collviz::ui
