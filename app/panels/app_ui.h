// AppUi: the whole window's contents. Owns the panels (each a struct with a
// Draw method), the viewer's choices (AppState), and the link to the engine
// (Runs). Once per frame: read keys, run the op again if the spec changed,
// take the newest snapshot, draw. It never waits on the engine.
#pragma once

#include <future>
#include <memory>
#include <string>

#include "app/view/app_state.h"
#include "app/panels/algo_panel.h"
#include "app/panels/bandwidth_panel.h"
#include "app/panels/compare_panel.h"
#include "app/panels/controls_panel.h"
#include "app/panels/fault_menu.h"
#include "app/panels/algo_file_dialog.h"
#include "app/panels/job_window.h"
#include "app/panels/watch_window.h"
#include "app/panels/nccl_log_window.h"
#include "app/panels/lecture_panel.h"
#include "app/lecture/player.h"
#include "app/gl/diagram_image.h"
#include "app/gl/diagram_view.h"
#include "app/gl/fonts.h"
#include "app/view/keys.h"
#include "app/panels/op_list_panel.h"
#include "app/view/runs.h"
#include "app/panels/status_bar.h"
#include "app/panels/trace_bar.h"
#include "engine/engine.h"

namespace collviz::ui {

// How large a laid-out diagram is where a person sees it: its tiles' side,
// its smallest block label, its smallest and largest text (pixels).
struct DiagramSize {
  float tile = 0, label = 0, text_min = 0, text_max = 0;
  bool atLeast(const DiagramSize& o) const;  // none of them smaller than o's
};
DiagramSize diagramSize(const Scene& s);

struct AppOptions {
  bool prefetch = true;  // run the other ops in the background when idle
  bool diagram_cache = true;  // draw the diagram into a texture once per change
};

class AppUi {
 public:
  AppUi(Engine& engine, AppOptions options = {});
  // After the ImGui context and before the renderer backend's first frame:
  // fonts, style. Then, with the GL context current, the shaders.
  void loadFonts();
  Status initGl();
  void destroyGl();

  void Draw();  // between ImGui::NewFrame() and ImGui::Render()
  // A named key (arrows, PgUp/PgDn, Space) from the window's key callback.
  // Queued, because ImGui 1.86 loses a press and release that arrive within
  // one frame (xdotool, clickers); typed characters come through ImGui.
  void queueKey(LectureKey key) { queued_keys_.push_back(key); }
  // A typed character from another window (the presenter's): handled like
  // the main window's own, so every key works from either window.
  void queueChar(unsigned c) { queued_chars_.push_back(c); }

  // Screenshot button and F12: save the current view as a PNG, drawn by the
  // export's offscreen path, after this frame (see afterRender).
  void requestScreenshot() { screenshot_requested_ = true; }
  // After the frame is rendered, with the GL context current: takes a
  // requested screenshot. Returns the path written ("" when none).
  std::string afterRender();
  const std::string& screenshotMessage() const { return shot_message_; }

  AppState& state() { return state_; }
  // The UI scale, the language or the lecture changed: call loadFonts()
  // outside a frame, then recreate the renderer backend's font texture.
  bool fontsStale() const { return fonts_.scale != state_.ui_scale || fonts_.glyph_text != glyphText(); }

  // Lecture mode: a script opened (File → Open lecture, a dropped file,
  // `collviz lecture FILE`). A script that does not load leaves the window as
  // it was and says why.
  Status openLecture(const std::string& path);
  // The ranks' hosts (collviz --hosts, a lecture's hosts): the Hosts field
  // shows them and the next run starts its ranks there.
  void setHosts(const HostSpec& hosts);
  Status openNcclLog(const std::string& path) { return nccl_log_window_.open(path); }
  Status openJob(const std::string& path) { return job_window_.open(path); }
  // The watch window (issue 58): a capture folder, or a program run under the tap.
  Status openCapture(const std::string& dir) { return watch_window_.openCapture(dir); }
  Status watch(const WatchOptions& o) { return watch_window_.watch(o); }
  void setWake(std::function<void()> wake) { watch_window_.setWake(std::move(wake)); }
  void closeLecture();
  lecture::Player* player() { return lecture_.get(); }
  // View → Presenter view (the window itself is opened by the caller).
  bool presenterWanted() const { return presenter_wanted_; }
  void setPresenterWanted(bool on) { presenter_wanted_ = on; }
  // Text beyond Latin that the fonts must hold: the string table's Chinese
  // when the language is Chinese, and the lecture's text.
  std::string glyphText() const;
  std::string windowTitle() const;
  // Keep drawing frames: the shown op's run is in flight (its spinner turns),
  // a sweep is running or rounds are playing. Background runs do not
  // animate: the engine wakes the loop when each one is published.
  bool animating() const {
    return runs_.waiting(requested_) || bandwidth_.running() || state_.playing ||
           (state_.show_compare && compare_.waiting) || relayout_ || watch_window_.animating();
  }
  // Is the diagram showing a backend result for the current selection?
  bool showingResult() const { return diagram_.model().ran() && shown_matches_; }
  // The last frame's diagram: its smallest block label and its fold (the
  // frame log prints them; tests compare 1x and 2x).
  float labelPx() const { return label_px_; }
  float textPx() const { return text_px_; }
  int fold() const { return fold_; }
  const DiagramView& diagram() const { return diagram_; }

 private:
  GpuSharing applied_sharing_ = GpuSharing::host_id;  // what the engine was told
  HostsField applied_hosts_;  // the Hosts field as last applied (issue 33)
  std::string hosts_error_;   // what is wrong with it, for the status line
  RunKey currentKey() const;
  std::vector<RunKey> prefetchKeys() const;
  void handleKeys();
  void updateRounds();
  void drawHelp();
  void drawMain(const Theme& theme, const RunKey& key, std::shared_ptr<const Snapshot> shown,
                MenuActions& actions);
  void applyMenu(const MenuActions& a);
  float sidebarWidth() const { return 310 * fonts_.scale; }
  // Above UI scale 1 the panels grow and would leave the diagram smaller
  // than at 1x: how far they fold (fold_) for this view, chosen by fitting
  // the diagram in the area each fold leaves (docs/presentation.md).
  // `drawn`: the diagram this frame drew (checks the last choice).
  void chooseFold(const DiagramInputs& in, ImVec2 avail, float status_full, float status_one, float status_lines,
                  float extra_h, const DiagramSize& drawn);

  Engine& engine_;
  AppOptions options_;
  EngineRunner runner_;
  Runs runs_;
  AppState state_;
  Fonts fonts_;
  OpListPanel op_list_;
  AlgoPanel algo_panel_;
  std::string round_bar_;  // the algorithm view's round bar, for the panel and title
  bool round_steps_ = false;  // the schedule has local steps: counted as "step k/n"
  // What round_bar_ and the round count were made for: the schedule is built
  // again only when these change, not every frame.
  struct RoundsKey {
    OpSpec spec;
    std::string algo;
    int round = -1;
    bool on = false;
    bool operator==(const RoundsKey&) const = default;
  };
  RoundsKey rounds_key_;
  int rounds_for_key_ = 0;
  ControlsPanel controls_;
  FaultMenu fault_menu_;
  TraceBar trace_bar_;
  StatusBar status_bar_;
  DiagramView diagram_;
  ValueFetcher values_{runner_};  // exact values in big blocks' tooltips
  BandwidthPanel bandwidth_;
  ComparePanel compare_;
  LecturePanel lecture_panel_;
  AlgoFileDialog algo_file_dialog_;
  NcclLogWindow nccl_log_window_;
  JobWindow job_window_;
  WatchWindow watch_window_;
  std::unique_ptr<lecture::Player> lecture_;
  int applied_revision_ = -1;  // the lecture step last applied to state_
  bool presenter_wanted_ = false;
  std::string lang_notice_;  // Chinese asked for without a CJK font

  RunKey requested_;        // the last selection sent to the engine
  bool requested_any_ = false;
  bool rerun_ = false;      // Space or the button
  ThemeKind styled_theme_ = ThemeKind::light;
  float styled_scale_ = 0;
  bool shown_matches_ = false;
  std::vector<LectureKey> queued_keys_;
  std::vector<unsigned> queued_chars_;
  bool screenshot_requested_ = false;
  // The panels' fold above UI scale 1: 0 as they are; 1 the sidebar folded
  // to a strip and the status on one line; 2 the trace bar gone too; 3 the
  // status too (the diagram takes the screen under the menu bar; the
  // title still says whether it verified).
  int fold_ = 0;
  bool fold_off_ = false;   // the strip's button: the panels shown whatever the fold
  std::string fold_key_;    // what fold_ was chosen for (view, window size, scale)
  float trace_h_ = 0;       // the trace bar's height when last drawn
  bool relayout_ = false;   // the fold changed: draw one more frame
  float label_px_ = 0;      // the drawn diagram's smallest block label (COLLVIZ_FRAME_LOG)
  float text_px_ = 0;       // and its smallest text
  float diagram_scale_ = 0;  // the diagram's text floor at this fold (0: the UI scale)
  DiagramSize at1x_;         // the diagram's size at 1x, for the fold chosen
  bool fold_checked_ = true;  // the frame drawn at the fold chosen showed it at least at1x_
  ExportView shown_view_;  // what the diagram panel shows, for the screenshot
  DiagramImage shot_;
  DiagramImage cache_;  // the diagram drawn once per change, shown as a texture
  bool cache_ok_ = true;
  std::string shot_message_;
  std::string shot_path_;
  bool shot_ok_ = false;
  std::future<Result<DeviceReport>> devices_future_;
  std::unique_ptr<DeviceReport> devices_;
};

}  // namespace collviz::ui
