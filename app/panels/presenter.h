// The presenter view: what the speaker sees on the laptop while the
// projector shows the main window. The current and next step, the speaker
// notes, a timer and the step list (click to go there). It moves the same
// Player as the main window, so each follows the other.
#pragma once

#include <chrono>

#include "app/gl/fonts.h"
#include "app/lecture/player.h"

namespace collviz::ui {

class PresenterView {
 public:
  // Fills the current ImGui context's display.
  void Draw(lecture::Player& p, const Fonts& fonts);
  // "mm:ss" since the timer started (or was reset).
  std::string elapsed() const;

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point started_ = Clock::now();
  int shown_index_ = -1;  // the list scrolls to a step once, when it changes
};

}  // namespace collviz::ui
