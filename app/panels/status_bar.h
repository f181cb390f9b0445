// The status line: backend and devices as the engine describes them, the
// op's time, verified or not (with the first problem), the engine's notice,
// and errors.
#pragma once

#include <memory>
#include <string>

#include "app/gl/fonts.h"
#include "engine/engine.h"
#include "engine/snapshot.h"

namespace collviz::ui {

struct StatusInfo {
  std::shared_ptr<const Snapshot> shown;   // the result on screen, may be null
  std::shared_ptr<const Snapshot> newest;  // the engine's newest (errors)
  bool busy = false;
  int bad_blocks = 0;
  std::string font_notice;
  // The shown op's run in flight (request 0: none, or not the engine's current).
  Progress progress;
  std::string hosts_error;  // the Hosts field's (issue 33): the runs stay where they were
};

// The backend notes the status line shows for `info.shown`: those of the op,
// dtype and reduce op on screen and the machine's (notesForView; an
// algorithm's rounds use no op call of the backend); "" when none.
std::string viewNotes(const StatusInfo& info);

struct StatusBar {
  void Draw(const StatusInfo& info, const Fonts& fonts);
  bool cancel_clicked = false;  // the last Draw's Cancel button
  // One line only (above 1x where the panels fold): the backend, the time
  // and the verdict, then the first error or note cut at the edge; every
  // line on hover.
  bool one_line = false;
  // How tall the last Draw was (its lines wrap at 2x in a narrow window):
  // the diagram above leaves this much room the next frame.
  float height = 0;

 private:
  void drawOneLine(const StatusInfo& in, const Fonts& fonts);
};


}  // namespace collviz::ui
