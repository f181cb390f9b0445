#include "app/panels/watch_window.h"

#include <imgui.h>
#include <signal.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "app/cli/cli.h"
#include "app/cli/cli_input.h"
#include "app/gl/wrapped_text.h"
#include "app/lang/lang.h"

namespace collviz::ui {

namespace fs = std::filesystem;

namespace {

double steadyMs() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A command line as a shell splits it: words, '…' and "…" quoting, \ escapes.
std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> out;
  std::string w;
  bool in = false;
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == quote) quote = 0;
      else if (c == '\\' && quote == '"' && i + 1 < line.size()) w += line[++i];
      else w += c;
    } else if (c == '\'' || c == '"') {
      quote = c, in = true;
    } else if (c == '\\' && i + 1 < line.size()) {
      w += line[++i], in = true;
    } else if (c == ' ' || c == '\t') {
      if (in) out.push_back(w), w.clear(), in = false;
    } else {
      w += c, in = true;
    }
  }
  if (in) out.push_back(w);
  return out;
}

bool holdsCapture(const std::string& dir) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == tap::kFileSuffix) return true;
  return false;
}

}  // namespace

WatchWindow::~WatchWindow() { stop(); }

// The program this window runs is ended as Ctrl-C ends `collviz watch`'s:
// SIGTERM to its process group; runWatch then ends it in order.
void WatchWindow::stop() {
  if (job_.joinable()) {
    if (jobRunning_ && opts_ && opts_->launcherPid > 0) ::kill(-pid_t(opts_->launcherPid), SIGTERM);
    job_.join();
  }
  lanes_.reset();
}

Status WatchWindow::openCapture(const std::string& dir, double hangAfterS) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Error(say("{0} is not a folder (a capture is the folder collviz watch wrote)", dir));
  if (!holdsCapture(dir))
    return Error(say("{0} holds no capture file (tap-*.cvtap): give the folder collviz watch wrote", dir));
  stop();
  lanes_ = std::make_unique<job::LiveLanes>(dir, hangAfterS, wake_);
  title_ = dir;
  shown_ = true, follow_ = true, selSeq_ = -1, newest_.clear();
  return {};
}

Status WatchWindow::watch(const WatchOptions& given) {
  stop();
  opts_ = std::make_shared<WatchOptions>(given);
  std::error_code ec;
  if (opts_->out.empty()) {  // the name runWatch would choose, chosen here so the window knows it first
    char buf[64];
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    ::localtime_r(&now, &tm);
    std::strftime(buf, sizeof buf, "collviz-watch-%Y%m%d-%H%M%S", &tm);
    opts_->out = fs::absolute(buf, ec).string();
  }
  fs::create_directories(opts_->out, ec);
  if (ec) return Error(say("cannot make the capture folder {0}: {1}", opts_->out, ec.message()));
  title_.clear();
  for (const std::string& w : opts_->command) title_ += (title_.empty() ? "" : " ") + w;
  lanes_ = std::make_unique<job::LiveLanes>(opts_->out, opts_->hangAfterS, wake_);
  jobRunning_ = true;
  auto o = opts_;
  auto wake = wake_;
  job_ = std::thread([this, o, wake] {
    const int st = runWatch(*o);
    jobStatus_ = st;
    jobRunning_ = false;
    // runWatch took SIGINT and SIGTERM to end the job in order; once it has,
    // the signal ends the window too, as it would have without a job.
    if (st == 128 + SIGINT || st == 128 + SIGTERM) {
      ::signal(st - 128, SIG_DFL);
      ::raise(st - 128);
    }
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    if (wake) wake();
  });
  shown_ = true, follow_ = true, selSeq_ = -1, newest_.clear();
  return {};
}

void WatchWindow::Draw(AppState& s, const BackendCaps* caps, bool open_capture_now, bool watch_now) {
  caps_ = caps;
  captureDialog_.Draw("open_capture", tr("Open capture"),
                      tr("The folder collviz watch wrote (tap-*.cvtap files): a job that ended, hangs or still runs."),
                      open_capture_now, [this](const std::string& path) { return openCapture(path); });
  watchDialog_.Draw("watch_program", tr("Watch a program"),
                    tr("The command line with its launcher, as after collviz watch --: mpirun -n 4 lmp -in in.lj"),
                    watch_now, [this](const std::string& line) -> Status {
                      // The same path as `collviz watch --window -- …`: its options and checks.
                      std::vector<std::string> args{"collviz", "watch", "--window", "--lang",
                                                    language() == Lang::zh ? "zh" : "en", "--"};
                      const std::vector<std::string> w = words(line);
                      if (w.empty()) return Error(say("no command: give the launcher and the program, e.g. mpirun -n 4 ./app"));
                      args.insert(args.end(), w.begin(), w.end());
                      std::vector<char*> argv;
                      for (std::string& a : args) argv.push_back(a.data());
                      WindowRequest req;
                      const Lang was = language();
                      const int rc = runCli(int(argv.size()), argv.data(), &req);
                      setLanguage(was);
                      if (!req.watch) return rc == 0 ? Error(say("the command was not run")) : lastFailure();
                      return watch(*req.watch);
                    });
  focused_ = false;
  if (shown_ && lanes_) drawWindow(s);
}

bool WatchWindow::named(int rank) const {
  for (int r : verdictRanks_)
    if (r == rank) return true;
  return false;
}

void WatchWindow::drawWindow(AppState& s) {
  const double t0 = steadyMs();
  const ImVec2 screen = ImGui::GetIO().DisplaySize;
  // Most of the screen, again when the screen's size changes (a window made full screen).
  const ImGuiCond cond = screen.x != screen_.x || screen.y != screen_.y ? ImGuiCond_Always : ImGuiCond_FirstUseEver;
  screen_ = screen;
  ImGui::SetNextWindowPos(ImVec2(screen.x * 0.02f, screen.y * 0.04f), cond);
  ImGui::SetNextWindowSize(ImVec2(screen.x * 0.96f, screen.y * 0.93f), cond);
  if (fold_) ImGui::SetNextWindowCollapsed(true, ImGuiCond_Always), fold_ = false;  // the op R opened is in sight
  if (!ImGui::Begin((std::string(tr("Watch")) + "###watch").c_str(), &shown_)) {
    ImGui::End();
    return;
  }
  focused_ = ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows);
  const float k = std::max(0.5f, ImGui::GetFontSize() / 14.0f);
  lanes_->view([&](const job::LiveData& d) {
    verdictRanks_ = d.verdict.present ? d.verdict.ranks : std::vector<int>{};
    // A call shown and no hang: its grid takes the room of the help line and the ranks' rows.
    const bool compact = selSeq_ >= 0 && !d.verdict.present;
    drawHeader(d, compact);
    if (!compact) drawRanks(d, k);
    // The lanes take what they need, at most half the rest while a call is shown.
    const float need = float(std::max<std::size_t>(1, d.lanes.size())) * (80 * k + ImGui::GetStyle().ItemSpacing.y) +
                       2 * ImGui::GetStyle().WindowPadding.y;
    const float avail = ImGui::GetContentRegionAvail().y;
    drawLanes(d, k, selSeq_ >= 0 ? std::min(need, avail * 0.5f) : avail);
    if (focused_) keys(d);
    if (d.verdict.present && verdictDrawnNs_ == 0) verdictDrawnNs_ = d.nowNs;
    if (!d.verdict.present) verdictDrawnNs_ = 0;
    if (!stateFile_.empty() || std::getenv("COLLVIZ_WATCH_STATE")) dumpState(d);
  });
  if (runHere_) runHere(s), runHere_ = false;
  if (selSeq_ >= 0) drawCall(s, k);
  ImGui::End();
  if (!shown_) stop();
  // COLLVIZ_WATCH_STATS: the frame-time benchmark's figures, once a second.
  stats_ = std::getenv("COLLVIZ_WATCH_STATS") != nullptr;
  if (stats_) {
    const double t1 = steadyMs();
    statDrawMs_ += t1 - t0;
    statMaxMs_ = std::max(statMaxMs_, t1 - t0);
    if (statLast_ > 0) statFrameMs_ += t1 - statLast_;
    statLast_ = t1;
    ++statFrames_;
    if (statT0_ == 0) statT0_ = t1;
    if (t1 - statT0_ >= 1000) {
      rusage ru{};
      ::getrusage(RUSAGE_SELF, &ru);
      std::int64_t calls = 0;
      lanes_->view([&](const job::LiveData& d) { calls = d.entered; });
      long rss = 0;
      if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
        long pages = 0;
        if (std::fscanf(f, "%*ld %ld", &pages) == 1) rss = pages * 4;
        std::fclose(f);
      }
      std::fprintf(stderr, "collviz watch window: frames %d frame_ms %.3f draw_ms %.3f draw_max_ms %.3f rss_kb %ld calls %lld\n",
                   statFrames_, statFrames_ > 1 ? statFrameMs_ / (statFrames_ - 1) : 0.0, statDrawMs_ / statFrames_,
                   statMaxMs_, rss, static_cast<long long>(calls));
      statT0_ = t1, statDrawMs_ = statMaxMs_ = statFrameMs_ = 0, statFrames_ = 0, statLast_ = 0;
    }
  }
}

void WatchWindow::select(std::uint64_t comm, std::uint32_t seq) {
  selComm_ = comm, selSeq_ = seq, figOk_ = false, figSeq_ = -1;
  ranHere_.clear();
  call_ = lanes_->readCall(comm, seq);
}

void WatchWindow::keys(const job::LiveData& d) {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput) return;
  for (unsigned c : io.InputQueueCharacters) {
    if (c >= '0' && c <= '9') trace_ = int(c - '0');
    if (c == 'a' || c == 'A') trace_ = -1;
    if (c == 'f' || c == 'F') follow_ = true, newest_.clear();
    if ((c == 'r' || c == 'R') && selSeq_ >= 0) runHere_ = true;
  }
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_End))) follow_ = true, newest_.clear();
  if (d.lanes.empty()) return;
  std::size_t li = 0;
  for (std::size_t i = 0; i < d.lanes.size(); ++i)
    if (d.lanes[i].id == selComm_) li = i;
  const job::LiveLane& ln = d.lanes[li];
  auto pick = [&](const job::LiveLane& l, std::int64_t seq) {
    if (l.calls == 0) return;
    seq = std::max<std::int64_t>(0, std::min<std::int64_t>(seq, std::int64_t(l.calls) - 1));
    follow_ = false;
    for (const Shown& sh : shown_lanes_) newest_.emplace(sh.comm, sh.first + std::uint32_t(sh.tiles.size()) - 1);
    auto& nw = newest_[l.id];
    const std::uint32_t span = 1;
    if (std::uint32_t(seq) > nw) nw = std::uint32_t(seq);
    for (const Shown& sh : shown_lanes_)
      if (sh.comm == l.id && std::uint32_t(seq) < sh.first) nw = std::uint32_t(seq) + std::uint32_t(sh.tiles.size()) - span;
    select(l.id, std::uint32_t(seq));
  };
  const auto key = [](ImGuiKey k) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(k)); };
  if (key(ImGuiKey_LeftArrow)) pick(ln, selSeq_ < 0 ? std::int64_t(ln.calls) - 1 : selSeq_ - 1);
  if (key(ImGuiKey_RightArrow)) pick(ln, selSeq_ < 0 ? std::int64_t(ln.calls) - 1 : selSeq_ + 1);
  if (key(ImGuiKey_UpArrow) && li > 0) pick(d.lanes[li - 1], selSeq_ < 0 ? 0 : selSeq_);
  if (key(ImGuiKey_DownArrow) && li + 1 < d.lanes.size()) pick(d.lanes[li + 1], selSeq_ < 0 ? 0 : selSeq_);
}

// COLLVIZ_WATCH_STATE=FILE: what the window shows, as JSON, rewritten when
// it changes (the window tests read it: tiles and where they are, the
// selected call's bytes as held, the verdict and when it was first drawn).
void WatchWindow::dumpState(const job::LiveData& d) {
  using nlohmann::json;
  if (stateFile_.empty()) stateFile_ = std::getenv("COLLVIZ_WATCH_STATE");
  json j;
  j["running"] = jobRunning_.load();
  j["status"] = jobStatus_.load();
  j["entered"] = d.entered;
  j["returned"] = d.returned;
  j["follow"] = follow_;
  j["trace"] = trace_;
  json lanes = json::array();
  for (const job::LiveLane& l : d.lanes) lanes.push_back({{"comm", l.id}, {"name", l.name}, {"ranks", l.ranks}, {"calls", l.calls}});
  j["lanes"] = lanes;
  json tiles = json::array();
  for (const Shown& sh : shown_lanes_)
    for (std::size_t i = 0; i < sh.tiles.size(); ++i) {
      const job::LaneTile& t = sh.tiles[i];
      tiles.push_back({{"comm", sh.comm}, {"seq", t.seq}, {"func", tap::funcName(t.func, (t.flags & tap::kNonblocking) != 0)},
                       {"x", sh.x0 + float(i) * sh.w + sh.w / 2}, {"y", sh.y0 + sh.h / 2}, {"returned", t.returned}});
    }
  j["tiles"] = tiles;
  if (selSeq_ >= 0 && call_) {
    json ranks = json::array();
    auto hex = [](const std::vector<std::uint8_t>& b) {
      std::string s;
      char x[3];
      for (std::uint8_t v : b) std::snprintf(x, sizeof x, "%02x", v), s += x;
      return s;
    };
    for (const job::CapturedRank& r : call_->ranks)
      ranks.push_back({{"rank", r.worldRank}, {"in", hex(r.in)}, {"out", hex(r.out)}, {"returned", r.returned}});
    j["selected"] = {{"comm", selComm_}, {"seq", selSeq_}, {"func", tap::funcName(call_->func, call_->nonblocking)}, {"ranks", ranks}};
  }
  j["verdict"] = d.verdict.present ? render(d.verdict.text) : "";
  j["verdict_ranks"] = d.verdict.ranks;
  std::set<int> outlined;  // the verdict's ranks, outlined in each lane they are members of
  for (const job::LiveLane& l : d.lanes)
    for (int r : l.ranks)
      if (named(r)) outlined.insert(r);
  j["outlined"] = outlined;
  j["verdict_at_ns"] = d.verdict.atNs;
  j["verdict_drawn_ns"] = verdictDrawnNs_;
  j["cycles"] = d.verdict.cycles;
  const std::string text = j.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text == lastState_) return;
  lastState_ = text;
  const std::string tmp = stateFile_ + ".tmp";
  {
    std::ofstream f(tmp);
    f << text << "\n";
  }
  std::error_code ec;
  fs::rename(tmp, stateFile_, ec);
}

}  // namespace collviz::ui
