// Playing a lecture: which step is on screen, the keys that move through it
// (→ PgDn Space ↓ forward, ← PgUp ↑ back, Home/End, G then a number and
// Enter), what the window shows for a step, and the runs to start ahead of
// time so every step appears with its real result. Pure: tested without a
// window.
#pragma once

#include <string>
#include <vector>

#include "app/lecture/lecture.h"
#include "app/view/app_state.h"
#include "app/view/keys.h"
#include "app/view/runs.h"

namespace collviz::lecture {

class Player {
 public:
  explicit Player(Lecture lecture) : lecture_(std::move(lecture)) {}

  const Lecture& lecture() const { return lecture_; }
  int index() const { return index_; }
  int count() const { return int(lecture_.steps.size()); }
  const Step& current() const { return lecture_.steps[index_]; }
  const Step* next() const { return index_ + 1 < count() ? &lecture_.steps[index_ + 1] : nullptr; }
  // Bumped whenever the step changes (so the window applies it once and the
  // viewer may still trace or zoom within a step).
  int revision() const { return revision_; }

  // Go to step i (0-based); false when out of range.
  bool go(int i);
  // A lecture key; false when it is not a lecture key (the window handles it).
  bool key(ui::LectureKey k);
  // A typed character while "go to" is being typed (digits, backspace);
  // false when not typing a jump.
  bool typed(unsigned c);
  bool jumping() const { return jumping_; }
  const std::string& jumpDigits() const { return jump_; }
  void cancelJump();

  // The window's selection for the current step.
  void apply(ui::AppState& s) const;
  // What each step runs, in the order to run them ahead: the next step
  // first, then the one before, then outwards.
  std::vector<ui::RunKey> aheadKeys() const;

 private:
  Lecture lecture_;
  int index_ = 0;
  int revision_ = 0;
  bool jumping_ = false;
  std::string jump_;
};

ui::RunKey runKeyOf(const Step& s);
// "3 / 20"
std::string stepCounter(int index, int count);

}  // namespace collviz::lecture
