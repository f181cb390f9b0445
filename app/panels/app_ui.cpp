#include "app/panels/app_ui.h"
#include "app/lang/lang.h"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>

#include "app/view/keys.h"
#include "app/view/status_text.h"
#include "app/view/round_layout.h"
#include "app/view/round_play.h"
#include "app/gl/style.h"
#include "app/gl/wrapped_text.h"

namespace collviz::ui {

AppUi::AppUi(Engine& engine, AppOptions options)
    : engine_(engine), options_(options), runner_(engine), runs_(runner_) {
  if (const char* f = std::getenv("COLLVIZ_FAULT")) state_.fault = f;
  // The device probe starts a worker process; keep it off the frame.
  devices_future_ = std::async(std::launch::async, [this] {
    Result<DeviceReport> r(engine_.devices());
    if (engine_.options().wake) engine_.options().wake();  // the window shows the backends
    return r;
  });
  runs_.setPrefetch(options_.prefetch);
  bandwidth_.wake = engine_.options().wake;
}

void AppUi::loadFonts() {
  fonts_.load(state_.ui_scale, glyphText());
  if (fonts_.cjk_missing && language() == Lang::zh) {
    // Without a CJK font Chinese would be boxes: say so and show English.
    lang_notice_ = cjkMissingNotice();
    setLanguage(Lang::en);
    fonts_.load(state_.ui_scale, glyphText());
  }
  styled_scale_ = 0;  // restyle at the new scale
}

std::string AppUi::glyphText() const {
  // The language menu always reads "Language / 语言" and offers "中文".
  std::string t = std::string("语言中文") + (language() == Lang::zh ? uiChineseText() : "");
  if (lecture_) {
    const lecture::Lecture& l = lecture_->lecture();
    t += l.title.in(language());
    for (const lecture::Step& s : l.steps) t += s.caption.in(language()) + s.notes.in(language());
  }
  return t;
}

void AppUi::setHosts(const HostSpec& hosts) {
  engine_.setHosts(hosts);
  state_.hosts = applied_hosts_ = fieldOf(hosts);
  hosts_error_.clear();
  runs_.clear();
  rerun_ = true;
}

Status AppUi::openLecture(const std::string& path) {
  Result<lecture::Lecture> r = lecture::loadLecture(path);
  if (!r) {
    lecture_panel_.error = render(r.error());
    return r.error();
  }
  // A script with hosts runs its steps there (iface and map_by too): the
  // Hosts field shows them; a script without leaves the field as it is.
  if (!r->hosts.empty()) setHosts(r->hosts);
  lecture_ = std::make_unique<lecture::Player>(std::move(*r));
  applied_revision_ = -1;
  lecture_panel_.error.clear();
  return Status::Ok();
}

void AppUi::closeLecture() {
  lecture_.reset();
  presenter_wanted_ = false;
}

void AppUi::applyMenu(const MenuActions& a) {
  if (!a.open_path.empty()) openLecture(a.open_path);
  if (a.close_lecture) closeLecture();
  if (a.toggle_presenter && lecture_) presenter_wanted_ = !presenter_wanted_;
}

Status AppUi::initGl() { return diagram_.init(); }

void AppUi::destroyGl() {
  shot_.destroy();
  cache_.destroy();
  diagram_.destroy();
}

RunKey AppUi::currentKey() const {
  RunKey k{state_.program(), state_.runSpec(), state_.backend, state_.fault, "native"};
  if (state_.rounds > 0) k.algo = state_.view.algo;
  return k;
}

std::vector<RunKey> AppUi::prefetchKeys() const {
  // Nearest entries first, the next one before the previous: that is where a
  // lecture goes.
  std::vector<RunKey> keys;
  AppState s = state_;
  for (int d = 1; d < kEntryCount; ++d) {
    for (int sign : {+1, -1}) {
      s.entry = ((state_.entry + sign * d) % kEntryCount + kEntryCount) % kEntryCount;
      RunKey k{s.program(), s.runSpec(), s.backend, s.fault, "native"};
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
    }
  }
  return keys;
}

std::string AppUi::windowTitle() const {
  Heading h = headingFor(state_.program(), state_.runSpec().op);
  std::string t = "collviz — " + h.number + " " + h.title;
  const OpSpec s = state_.runSpec();
  if (state_.rounds > 0)
    t += " · " + state_.view.algo + " · " +
         trf(round_steps_ ? "step {0}" : "round {0}",
             {std::to_string(state_.view.round) + "/" + std::to_string(state_.rounds)}) +
         (round_bar_.empty() ? "" : " · " + round_bar_);
  t += " (N=" + std::to_string(s.ranks) + ", " + std::string(name(s.dtype));
  if (state_.program() != Program::single || reduces(s.op)) t += ", " + std::string(name(s.redop));
  t += ")";
  // What is on screen, for the viewer and for tests that read the title.
  // Its last words in the reader's language (English: " · verified", which the GUI tests wait for).
  if (!showingResult()) {
    if (requested_any_ && runs_.waiting(requested_)) return t + " · " + tr("running");
    const auto last = requested_any_ ? runs_.find(requested_) : nullptr;
    return t + " · " + tr(last && last->cancelled ? "cancelled" : "not yet run");
  }
  const Snapshot& shown = *diagram_.model().snapshot;
  return t + " · " + tr(allRight(shown, 0) ? "verified" : "NOT VERIFIED");
}

void AppUi::updateRounds() {
  // The algorithm view: its rounds for this spec, the round kept in range,
  // and play moved on by this frame's time.
  const OpSpec spec = state_.runSpec();
  const bool on = isRoundView(state_.program(), spec.op, state_.view);
  RoundsKey key{spec, state_.view.algo, -1, on};
  const bool same_schedule = rounds_key_.spec == key.spec && rounds_key_.algo == key.algo &&
                             rounds_key_.on == key.on && rounds_key_.round >= 0;
  if (!same_schedule) rounds_for_key_ = on ? algoRounds(state_.view.algo, spec) : 0;
  const int rounds = rounds_for_key_;
  if (rounds != state_.rounds) {
    state_.rounds = rounds;
    state_.view.round = std::clamp(state_.view.round, 0, rounds);
    state_.view.tween = 0;
    state_.playing = false;
  }
  if (rounds == 0) {
    state_.view.round = 0;
    round_bar_.clear();
    rounds_key_ = {spec, state_.view.algo, 0, on};
    return;
  }
  advancePlay(state_, ImGui::GetIO().DeltaTime);
  key.round = state_.view.round;
  if (!(key == rounds_key_)) {
    const RoundModel rm = buildRoundModel(spec, state_.view.algo, state_.view.round, nullptr);
    round_bar_ = rm.bar;
    round_steps_ = rm.message_rounds != rm.rounds;
  }
  rounds_key_ = key;
}

void AppUi::handleKeys() {
  ImGuiIO& io = ImGui::GetIO();
  std::vector<LectureKey> keys;
  keys.swap(queued_keys_);
  std::vector<unsigned> chars;
  chars.swap(queued_chars_);
  if (io.WantTextInput || ImGui::IsAnyItemActive()) return;  // typing in a field
  if (watch_window_.focused()) return;  // the watch window's keys are its own (←/→ move along a lane)
  // A dialog or menu is open: its keys are its own (a path typed into File →
  // Open … must not switch the theme or open panels).
  if (ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId | ImGuiPopupFlags_AnyPopupLevel)) return;
  chars.insert(chars.begin(), io.InputQueueCharacters.begin(), io.InputQueueCharacters.end());
  for (unsigned c : chars) {
    if (lecture_ && lecture_->typed(c)) continue;
    if (c == 'c' || c == 'C') {
      state_.show_compare = !state_.show_compare;
      continue;
    }
    // S: the presenter view (P plays rounds, always).
    if (lecture_ && (c == 's' || c == 'S')) {
      presenter_wanted_ = !presenter_wanted_;
      continue;
    }
    LectureKey key;
    int rank = 0;
    if (c == ' ' || !keyForChar(c, &key, &rank)) continue;
    if (lecture_ && lecture_->key(key)) continue;
    applyLectureKey(state_, key, rank);
  }
  // A lecture takes the keys that move through it; the rest work as always.
  // After the typed characters: "G 1 2" then Enter may arrive in one frame.
  for (LectureKey k : keys) {
    if (k == LectureKey::cancel && requested_any_) runs_.cancel(requested_);  // if in flight
    if (lecture_ && lecture_->key(k)) continue;
    rerun_ = applyLectureKey(state_, k) || rerun_;
  }
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) {
    state_.show_help = false;
    if (lecture_) lecture_->cancelJump();
  }
}

void AppUi::Draw() {
  relayout_ = false;
  handleKeys();
  if (lecture_ && lecture_->revision() != applied_revision_) {
    lecture_->apply(state_);
    applied_revision_ = lecture_->revision();
  }
  state_.view.lang = language();
  const Theme theme = makeTheme(state_.view.theme);
  if (styled_theme_ != state_.view.theme || styled_scale_ != fonts_.scale) {
    applyStyle(theme, fonts_.scale);
    styled_theme_ = state_.view.theme;
    styled_scale_ = fonts_.scale;
  }
  state_.spec.root = std::clamp(state_.spec.root, 0, state_.spec.ranks - 1);
  updateRounds();
  if (state_.view.trace_rank >= state_.spec.ranks) state_.view.trace_rank = -1;

  // Any change of what to run runs it again (the engine never blocks us).
  RunKey key = currentKey();
  if (state_.gpu_sharing != applied_sharing_) {
    // A new route for NCCL ranks sharing a GPU: the engine replaces its group
    // at the next run, and results of the old route are not shown as current.
    engine_.setPlacement(PlacementOptions{state_.gpu_sharing});
    applied_sharing_ = state_.gpu_sharing;
    runs_.clear();
    rerun_ = true;
  }
  if (!(state_.hosts == applied_hosts_)) {
    // Another Hosts field: the engine's next run starts its ranks there (a
    // group elsewhere ends); a bad field changes nothing and says why.
    applied_hosts_ = state_.hosts;
    Result<HostSpec> hosts = hostsFromField(state_.hosts);
    hosts_error_ = hosts ? "" : render(hosts.error());
    if (hosts) {
      engine_.setHosts(*hosts);
      runs_.clear();
      rerun_ = true;
    }
  }
  if (!requested_any_ || !(key == requested_) || rerun_) {
    if (!(key.backend == requested_.backend)) runs_.clear();
    runs_.request(key);
    requested_ = key;
    requested_any_ = true;
    rerun_ = false;
  }
  // A lecture runs its next steps ahead, so each appears with its result.
  runs_.poll(lecture_ ? lecture_->aheadKeys() : prefetchKeys());
  if (!devices_ && devices_future_.valid() &&
      devices_future_.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
    Result<DeviceReport> r = devices_future_.get();
    if (r) devices_ = std::make_unique<DeviceReport>(*r);
  }
  std::shared_ptr<const Snapshot> shown = runs_.find(key);

  MenuActions actions;
  drawMain(theme, key, shown, actions);
  lecture_panel_.DrawOpenDialog(actions);
  algo_file_dialog_.Draw(state_, actions.open_algorithm);
  nccl_log_window_.Draw(state_.view.theme, actions.open_nccl_log);
  {  // the local backend's limits, where probed: a clicked collective runs within them
    const BackendStatus* local = nullptr;
    if (devices_)
      if (auto k = devices_->choose(state_.backend, static_cast<std::string*>(nullptr)); k.ok()) local = devices_->find(*k);
    job_window_.Draw(state_, local ? &local->caps : nullptr, actions.open_job);
  }
  {
    const BackendStatus* local = nullptr;
    if (devices_)
      if (auto k = devices_->choose(state_.backend, static_cast<std::string*>(nullptr)); k.ok()) local = devices_->find(*k);
    watch_window_.Draw(state_, local ? &local->caps : nullptr, actions.open_capture, actions.watch_program);
  }
  applyMenu(actions);
  if (state_.show_help) drawHelp();
  if (state_.show_compare) compare_.Draw(state_, runs_, fonts_);
  else compare_.sweep.reset();  // closed: the sweep stops, its workers end
  if (state_.show_bandwidth) bandwidth_.Draw(tr("Bandwidth###bandwidth"), &state_.show_bandwidth, state_);
}

void AppUi::drawMain(const Theme& theme, const RunKey& key, std::shared_ptr<const Snapshot> shown,
                     MenuActions& actions) {
  const bool hidden = state_.panels_hidden;  // H: the diagram (and caption) only
  const ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(io.DisplaySize);
  ImGui::Begin("collviz", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                   ImGuiWindowFlags_NoBringToFrontOnFocus | (hidden ? 0 : ImGuiWindowFlags_MenuBar));
  if (!hidden) lecture_panel_.DrawMenuBar(state_, lecture_ != nullptr, actions);
  // Above 1x the panels fold where they would make the diagram smaller than
  // at 1x (chooseFold); the strip's button shows them all the same.
  const bool sidebar = !state_.fullscreen && !hidden;
  const int fold = sidebar && !fold_off_ ? fold_ : 0;
  if (sidebar && fold > 0) {
    ImGui::BeginChild("sidebar_folded", ImVec2(ImGui::GetFrameHeight(), 0), false, ImGuiWindowFlags_NoBackground);
    if (ImGui::ArrowButton("##unfold", ImGuiDir_Right)) fold_off_ = true;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("Show the panels (the diagram gets smaller than at 1x)"));
    ImGui::EndChild();
    ImGui::SameLine();
  } else if (sidebar) {
    // Children draw no background of their own: the window already did, and on
    // a software rasterizer every full-size layer costs milliseconds.
    ImGui::BeginChild("sidebar", ImVec2(sidebarWidth(), 0), false, ImGuiWindowFlags_NoBackground);
    op_list_.Draw(state_, fonts_);
    ImGui::Spacing();
    algo_panel_.Draw(state_, round_bar_, fonts_);
    // The NCCL backend's native op: the rings and transports NCCL built for
    // this run's communicator, read from its ranks' log.
    if (shown && shown->nccl_log && state_.view.algo == "native" &&
        ImGui::Button(fonts_.display(tr("NCCL's rings and transports…")).c_str()))
      nccl_log_window_.show(shown->nccl_log);
    ImGui::Spacing();
    ImGui::Separator();
    controls_.Draw(state_, devices_.get());
    fault_menu_.Draw(state_);
    controls_.DrawPrefetch(runs_, lecture_ ? lecture_->aheadKeys() : prefetchKeys(), lecture_ != nullptr);
    if (ImGui::Button(fonts_.display(tr("Bandwidth sweep… (B)")).c_str())) state_.show_bandwidth = true;
    ImGui::Spacing();
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    WrappedText(fonts_.display(tr("keys: ← → op · ↑ ↓ step · Space run · 0-9 trace · A all · "
                                               "F full screen · H hide panels · + − zoom · T theme · "
                                               "B bandwidth · ? help")));
    ImGui::PopStyleColor();
    ImGui::EndChild();
    ImGui::SameLine();
  }
  ImGui::BeginChild("main", ImVec2(0, 0), false, ImGuiWindowFlags_NoBackground | ImGuiWindowFlags_NoScrollbar);
  if (!lecture_panel_.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.85f, 0.15f, 0.2f, 1));
    WrappedText(lecture_panel_.error);
    ImGui::PopStyleColor();
  }
  if (lecture_ && !hidden) lecture_panel_.DrawBar(*lecture_, fonts_);
  // The op a click in Job traces opened: said where it is shown.
  if (const std::string from = job_window_.origin(state_); !from.empty() && !hidden) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_CheckMark));
    WrappedText(fonts_.display(from));
    ImGui::PopStyleColor();
  }
  if (!hidden && fold < 2) {
    const float trace_top = ImGui::GetCursorPosY();
    trace_bar_.screenshot_note = shot_message_;
    trace_bar_.screenshot_ok = shot_ok_;
    trace_bar_.screenshot_path = shot_path_;
    if (trace_bar_.Draw(state_, fonts_, runs_.waiting(key))) rerun_ = true;
    if (trace_bar_.screenshot_clicked) requestScreenshot();
    trace_h_ = ImGui::GetCursorPosY() - trace_top;
  }

  const std::string notice = fonts_.notice.empty() ? lang_notice_ : fonts_.notice;
  StatusInfo info{shown, runs_.newest(), runs_.waiting(key), 0, notice, {}, hosts_error_};
  if (const uint64_t id = runs_.pendingId(key); id != 0) {
    const Progress p = runner_.progress();
    if (p.request == id) info.progress = p;
  }
  const Snapshot* e = shown ? shown.get() : info.newest.get();
  int lines = 2 + (e && !e->error.empty()) + (e && !e->notice.empty()) +
              !viewNotes(info).empty() + !notice.empty() + !hosts_error_.empty() +
              !oracleLabelNote(shown.get()).empty();
  const float status_full =
      std::max(float(lines) * ImGui::GetTextLineHeightWithSpacing(), status_bar_.one_line ? 0 : status_bar_.height) +
      ImGui::GetStyle().ItemSpacing.y * 2;
  const float status_one = ImGui::GetFrameHeightWithSpacing() + ImGui::GetStyle().ItemSpacing.y * 2;
  float status_h = hidden || fold >= 3 ? 0 : fold > 0 ? status_one : status_full;
  float extra_h = 0;  // under the status: the caption, the folded Job traces bar
  const std::string caption = lecture_ ? lecture_->current().caption.in(language()) : "";
  // A presentation (panels hidden): the caption grows with the screen, as
  // the diagram does (1.0 at about 1400x850).
  lecture_panel_.caption_scale =
      hidden ? std::max(fonts_.scale, std::min(io.DisplaySize.x / 1400.0f, io.DisplaySize.y / 850.0f)) : fonts_.scale;
  const std::string counter = lecture_ && hidden ? lecture::stepCounter(lecture_->index(), lecture_->count()) : "";
  if (lecture_) extra_h += lecture_panel_.CaptionHeight(caption, counter, ImGui::GetContentRegionAvail().x, fonts_);
  if (job_window_.folded()) extra_h += ImGui::GetFrameHeight();  // its title bar's line, under the status
  status_h += extra_h;

  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
  ImGui::BeginChild("diagram", ImVec2(0, -status_h), true,
                    ImGuiWindowFlags_HorizontalScrollbar | ImGuiWindowFlags_NoBackground);
  ImGui::PopStyleVar();  // the child's own padding only: a tooltip opened inside keeps the style's
  ImVec2 avail = ImGui::GetContentRegionAvail();
  // The diagram's own text floor: the UI scale, lowered toward 1x where the
  // panels at this scale would leave it smaller than at 1x (chooseFold).
  const float diagram_scale = sidebar && !fold_off_ && diagram_scale_ > 0 ? std::min(diagram_scale_, fonts_.scale) : fonts_.scale;
  DiagramInputs in{state_.program(), key.spec, shown, state_.view, theme,
                   diagram_scale, {std::floor(avail.x), std::floor(avail.y)}};
  in.values = &values_;
  // A live lecture's slide is projected: no key hints on it (the presenter
  // has the lecture's own), no tooltips where the mouse rests.
  if (lecture_) in.view.in_file = true, in.tooltips = false;
  // Compute once, draw every frame: the diagram is drawn into a texture when
  // it changes and shown as one image (DiagramView falls back to drawing it
  // directly when zoomed past the panel). COLLVIZ_NO_DIAGRAM_CACHE=1: off.
  // While blocks travel the picture changes every frame: drawing it into the
  // cache and then copying it out would only add a pass.
  const bool moving = state_.playing && state_.view.tween > 0;
  if (cache_ok_ && options_.diagram_cache && !moving && avail.x >= 1 && avail.y >= 1) {
    if (cache_.init(true)) {
      ExportView cv{in.program, in.spec, shown, in.view, state_.view.theme, int(avail.x),
                    int(avail.y), in.scale, 0, false, false, {}, {}};
      cv.notes = false;  // the window's status bar says it
      cv.glyphs = language() == Lang::zh ? uiChineseText() : "";
      if (const Offscreen* f = cache_.cached(cv)) in.cached_framebuffer = f->framebuffer();
    } else {
      cache_ok_ = false;
    }
  }
  const Scene& scene = diagram_.Draw(in, fonts_);
  // The screenshot: this panel's view at its size, as a file draws it (no
  // window hints, no measured times); the status block and the crop as the
  // View menu says.
  shown_view_ = ExportView{in.program, in.spec, shown, state_.view, state_.view.theme, int(avail.x),
                           int(avail.y), in.scale, 0, state_.shot_status, false, {}, {}};
  shown_view_.view.in_file = true;
  shown_view_.view.hide_times = true;
  shown_view_.crop = state_.shot_crop;
  shown_view_.glyphs = language() == Lang::zh ? uiChineseText() : "";
  shown_view_.height += int(std::ceil(exportStatusHeight(shown_view_, fonts_)));
  shown_matches_ = shown != nullptr;
  label_px_ = scene.label_px_min;
  text_px_ = diagramSize(scene).text_min;
  ImGui::EndChild();
  if (sidebar) {
    // The status block as its lines come, unwrapped (at 1x they do not wrap).
    const float status_lines = float(lines) * ImGui::GetTextLineHeightWithSpacing() + ImGui::GetStyle().ItemSpacing.y * 2;
    chooseFold(in, avail, status_full, status_one, status_lines, extra_h, diagramSize(scene));
  }
  info.bad_blocks = scene.bad_blocks;
  if (lecture_)
    lecture_panel_.DrawCaption(caption, counter, fonts_, theme);
  status_bar_.one_line = fold > 0;
  if (!hidden && fold < 3) status_bar_.Draw(info, fonts_);
  if (!hidden && fold < 3 && status_bar_.cancel_clicked) runs_.cancel(key);
  ImGui::EndChild();
  ImGui::End();
}

void AppUi::drawHelp() {
  const ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x / 2, io.DisplaySize.y / 2), ImGuiCond_Always,
                          ImVec2(0.5f, 0.5f));
  ImGui::Begin(tr("Keys"), &state_.show_help,
               ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings);
  const char* rows[][2] = {
      {"← →", "previous / next op"},      {"↑ ↓  PgUp PgDn", "step (decomposition, then ops)"},
      {"Home End", "first / last (op, round or lecture step)"},
      {"Space", "run again"},             {"0 – 9", "trace that rank"},
      {"A", "trace all"},                 {"D", "trace direction: what reaches the rank / where its data goes"},
      {"F", "full screen, no sidebar"},
      {"+ −", "zoom"},                    {"T", "light / dark theme"},
      {"B", "bandwidth sweep (busbw against size)"}, {"H", "hide the panels (diagram only)"},
      {"G 1 2 Enter", "a lecture: go to step 12"},  {"S", "a lecture: presenter view (notes, timer)"},
      {"?", "this help"},
      {"L", "next algorithm (native, ring, tree, …)"}, {"P", "play the rounds (algorithm view)"},
      {"C", "compare two algorithms"},                {"Esc", "cancel the run in flight"},
      {"F12", "save a screenshot (PNG)"},
  };
  for (auto& r : rows) {
    ImGui::PushFont(fonts_.bold);
    ImGui::TextUnformatted(fonts_.display(r[0]).c_str());
    ImGui::PopFont();
    ImGui::SameLine(fonts_.scale * 150);
    ImGui::TextUnformatted(tr(r[1]));
  }
  ImGui::End();
}

}  // namespace collviz::ui
