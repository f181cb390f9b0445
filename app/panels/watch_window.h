// The watch window (issue 58): a capture folder drawn live as lanes, one per
// communicator, each call a tile; a click (or ←/→ along a lane, ↑/↓ between
// lanes) selects a call, read again from the files with its bytes; a hang's
// verdict on top in red, each rank's place, the named ranks outlined, a
// deadlock drawn as a cycle. Opened by `collviz watch --window -- mpirun …`
// and File → Watch a program… (the program run by runWatch, the same path
// as `collviz watch`, on a thread of its own), or File → Open capture… and
// `collviz job CAPTURE --window` for a capture that has ended or hangs.
// The model is job::LiveLanes (its own thread; bounded, docs/watch.md).
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <imgui.h>

#include "app/cli/cli_watch.h"
#include "app/panels/path_dialog.h"
#include "app/view/app_state.h"
#include "app/view/nccl_log_figure.h"
#include "engine/job/live_lanes.h"

namespace collviz::ui {

class WatchWindow {
 public:
  WatchWindow() = default;
  ~WatchWindow();
  WatchWindow(const WatchWindow&) = delete;
  WatchWindow& operator=(const WatchWindow&) = delete;

  void setWake(std::function<void()> wake) { wake_ = std::move(wake); }
  // `caps`: the local backend's, where probed (R runs the selected call here within them).
  void Draw(AppState& s, const BackendCaps* caps, bool open_capture_now, bool watch_now);
  // A capture folder (ended, hung or still growing).
  Status openCapture(const std::string& dir, double hangAfterS = kDefaultHangAfterS);
  // A program run under the tap (checked options: runWatch's own).
  Status watch(const WatchOptions& o);
  // Keys go to the window while it has the focus (the app's keys wait).
  bool focused() const { return focused_; }
  // Keep drawing frames (COLLVIZ_WATCH_STATS: the frame-time benchmark).
  bool animating() const { return lanes_ && stats_; }

 private:
  struct Shown {  // a lane's tiles on screen this frame
    std::uint64_t comm = 0;
    std::uint32_t first = 0;
    std::vector<job::LaneTile> tiles;
    float x0 = 0, y0 = 0, w = 0, h = 0;  // the first tile's box, screen pixels
  };
  void stop();
  void drawWindow(AppState& s);
  void drawHeader(const job::LiveData& d, bool compact);
  void drawRanks(const job::LiveData& d, float k);
  void drawLanes(const job::LiveData& d, float k, float height);
  void drawCall(AppState& s, float k);
  void runHere(AppState& s);  // R: the selected call as collviz's own op, run on the local backend
  void keys(const job::LiveData& d);
  void select(std::uint64_t comm, std::uint32_t seq);
  void dumpState(const job::LiveData& d);
  bool named(int rank) const;

  std::function<void()> wake_;
  std::unique_ptr<job::LiveLanes> lanes_;
  std::string title_;              // the command, or the folder
  // The program, where this window runs it (runWatch on a thread).
  std::shared_ptr<WatchOptions> opts_;
  std::thread job_;
  std::atomic<bool> jobRunning_{false};
  std::atomic<int> jobStatus_{0};
  PathDialog captureDialog_, watchDialog_;
  bool shown_ = false, focused_ = false;
  ImVec2 screen_{0, 0};                     // the display's size at the last frame
  bool follow_ = true;                      // the lanes show their newest calls
  std::map<std::uint64_t, std::uint32_t> newest_;  // not following: a lane's newest seq shown
  std::uint64_t selComm_ = 0;
  std::int64_t selSeq_ = -1;
  Result<job::CapturedCall> call_ = Error("");
  NcclFigure fig_;                          // its grid (app/view/call_figure)
  bool figOk_ = false;
  int figKey_ = -1, figTrace_ = -2;
  std::int64_t figSeq_ = -1;
  std::uint64_t figComm_ = 0;
  int trace_ = -1;                          // the traced rank (0–9), -1: all
  const BackendCaps* caps_ = nullptr;
  std::string ranHere_;                     // what R did
  bool fold_ = false;                       // R opened the call: fold to the title bar
  bool runHere_ = false;                    // R pressed: run it after the frame's reading
  std::vector<Shown> shown_lanes_;
  std::vector<int> verdictRanks_;
  std::uint64_t verdictDrawnNs_ = 0;        // when the verdict was first on screen
  std::string stateFile_, lastState_;       // COLLVIZ_WATCH_STATE
  bool stats_ = false;                      // COLLVIZ_WATCH_STATS
  double statDrawMs_ = 0, statMaxMs_ = 0, statFrameMs_ = 0;
  int statFrames_ = 0;
  double statT0_ = 0, statLast_ = 0;
};

}  // namespace collviz::ui
