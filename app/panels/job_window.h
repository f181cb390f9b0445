// File → Open job traces…: a path field (ImGui 1.86 has no file dialog) for
// a real job's files (Flight Recorder dumps, NCCL RAS, Inspector, profiler,
// nccl-tests; a file or a folder), then a window with the figure of
// app/view/job_figure (the same shapes as export --job) and its verdict. A
// click on a collective's tile opens it as collviz's own op (job_call.h),
// run for real on the local backend; what differs, or why it cannot, is
// said under the figure. A path that does not read stays in the dialog with why.
#pragma once

#include <memory>
#include <string>

#include "app/panels/path_dialog.h"
#include "app/view/app_state.h"
#include "app/view/job_figure.h"

namespace collviz::ui {

struct JobWindow {
  bool shown = false;
  // `caps`: the local backend's, where probed (a click runs within them).
  void Draw(AppState& s, const BackendCaps* caps, bool open_now);
  Status open(const std::string& path);  // read and analysed; shown on success
  // Folded to its title bar by a click: the main view keeps a line free at
  // the bottom for it, so the bar is never drawn over the status text.
  bool folded() const { return shown && job_ && folded_; }
  // While the main view shows the op a click opened: where it came from
  // ("from the job: all_to_all #20537 … opened as …"); else empty.
  std::string origin(const AppState& s) const;

 private:
  void drawWindow(AppState& s, const BackendCaps* caps);
  PathDialog dialog_;
  std::shared_ptr<const job::Job> job_;
  job::Analysis analysis_;
  std::string opened_;  // what the last click did
  Said openedWhat_;     // the same, kept to be said again in the main view
  bool openedOk_ = false;
  OpSpec openedSpec_;   // the op it opened (the main view says so while it shows it)
  int clickedShape_ = -1;  // the tile clicked: marked in the figure
  bool fold_ = false;   // collapse the window next frame (a click opened a call)
  bool folded_ = false;  // collapsed by a click: its title bar sits at the bottom
  bool unfold_ = false;  // a job just opened: shown whole, wherever the last one was left
  NcclFigure fig_;      // laid out once per job, theme and language
  std::string figError_;  // why there is no figure (nothing to draw)
  int figKey_ = -1;
};

}  // namespace collviz::ui
