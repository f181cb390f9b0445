// The watch window's top and its lanes: the command and the counts, a
// hang's verdict in red, each rank's place (a deadlock as a cycle of
// arrows), then one lane per communicator with only the tiles on screen
// drawn (from the model's ring, or read again from the files when scrolled
// back past it).
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "app/gl/wrapped_text.h"
#include "app/lang/lang.h"
#include "app/panels/watch_window.h"

namespace collviz::ui {

namespace {

// "MPI_Allreduce" -> "Allreduce": the lane says MPI once.
std::string shortName(const char* n) {
  std::string s = n ? n : "";
  if (s.rfind("MPI_", 0) == 0) s = s.substr(4);
  return s;
}

ImU32 funcColour(tap::Func f, bool dark) {
  static const ImU32 light[] = {IM_COL32(198, 219, 239, 255), IM_COL32(199, 233, 192, 255), IM_COL32(253, 208, 162, 255),
                                IM_COL32(218, 218, 235, 255), IM_COL32(252, 187, 161, 255), IM_COL32(204, 236, 230, 255),
                                IM_COL32(254, 230, 206, 255), IM_COL32(229, 216, 189, 255)};
  static const ImU32 darkc[] = {IM_COL32(41, 74, 112, 255), IM_COL32(38, 88, 52, 255), IM_COL32(110, 70, 30, 255),
                                IM_COL32(70, 60, 110, 255), IM_COL32(112, 48, 40, 255), IM_COL32(30, 88, 84, 255),
                                IM_COL32(100, 80, 40, 255), IM_COL32(80, 72, 60, 255)};
  const std::size_t i = std::size_t(f) % 8;
  return dark ? darkc[i] : light[i];
}

std::string seconds(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", s);
  return b;
}

}  // namespace

void WatchWindow::drawHeader(const job::LiveData& d, bool compact) {
  ImGui::TextUnformatted(title_.c_str());
  std::string state;
  if (opts_) state = jobRunning_ ? trf("running; capture in {0}", {opts_->out}) : trf("ended, exit status {0}; capture in {1}", {std::to_string(jobStatus_.load()), opts_->out});
  else state = tr("a capture read from its files (still read as it grows)");
  ImGui::TextUnformatted(state.c_str());
  ImGui::TextUnformatted(trf("{0} calls entered, {1} returned · {2} communicators · {3} files",
                             {std::to_string(d.entered), std::to_string(d.returned), std::to_string(d.lanes.size()),
                              std::to_string(d.files)}).c_str());
  ImGui::SameLine();
  if (ImGui::Checkbox(tr("follow the newest calls"), &follow_) && follow_) newest_.clear();
  if (!compact)
    WrappedText(tr("Click a call (or ←/→ along a lane, ↑/↓ between lanes) to see it; 0–9 trace a rank, A all; F or End follows the newest."));
  if (d.verdict.present) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.85f, 0.12f, 0.15f, 1.0f));
    WrappedText(trf("Hang: no call has returned for {0} s. {1}", {seconds(d.verdict.quietS), render(d.verdict.text)}));
    ImGui::PopStyleColor();
  }
}

void WatchWindow::drawRanks(const job::LiveData& d, float k) {
  if (d.ranks.empty()) return;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const float rowH = ImGui::GetTextLineHeightWithSpacing();
  const float graphW = d.verdict.cycles.empty() ? 0.0f : 260 * k;
  const std::size_t shownRanks = std::min<std::size_t>(d.ranks.size(), 32);
  // Each rank's line, then as many columns as the longest fits.
  std::vector<std::string> lines;
  float widest = 0;
  for (std::size_t i = 0; i < shownRanks; ++i) {
    const job::LiveRank& r = d.ranks[i];
    const double since = r.sinceNs && d.nowNs > r.sinceNs ? double(d.nowNs - r.sinceNs) / 1e9 : 0;
    std::string line = "R" + std::to_string(r.rank) + " " + r.host + ": ";
    std::string comm;
    for (const job::LiveLane& l : d.lanes)
      if (l.id == r.comm) comm = l.name;
    if (r.inCall) line += trf("in {0} #{1} of {2} for {3} s", {r.call, std::to_string(r.seq), comm, seconds(since)});
    else if (r.finalized) line += tr("finalized");
    else if (r.sinceNs)
      line += r.nccl ? trf("outside NCCL for {0} s", {seconds(since)}) : trf("outside MPI for {0} s", {seconds(since)});
    else line += tr("no call yet");
    widest = std::max(widest, ImGui::CalcTextSize(line.c_str()).x);
    lines.push_back(std::move(line));
  }
  const float colW = widest + 28 * k;
  const int cols = std::max(1, int((ImGui::GetContentRegionAvail().x - graphW) / colW));
  const int rows = int((shownRanks + std::size_t(cols) - 1) / std::size_t(cols));
  for (std::size_t i = 0; i < shownRanks; ++i) {
    const job::LiveRank& r = d.ranks[i];
    const ImVec2 p(o.x + 4 * k + float(int(i) / rows) * colW, o.y + float(int(i) % rows) * rowH);
    const std::string& line = lines[i];
    const bool red = named(r.rank);
    dl->AddText(p, red ? IM_COL32(220, 30, 40, 255) : ImGui::GetColorU32(ImGuiCol_Text), line.c_str());
    if (red || r.rank == trace_) {
      const ImVec2 sz = ImGui::CalcTextSize(line.c_str());
      dl->AddRect(ImVec2(p.x - 3 * k, p.y - 1 * k), ImVec2(p.x + sz.x + 3 * k, p.y + sz.y + 1 * k),
                  red ? IM_COL32(220, 30, 40, 255) : ImGui::GetColorU32(ImGuiCol_CheckMark), 3 * k, 0, 2 * k);
    }
  }
  float h = float(rows) * rowH;
  // A deadlock: its ranks on a circle, an arrow from each to the rank it waits for.
  if (!d.verdict.cycles.empty()) {
    std::set<int> nodes;
    for (const auto& c : d.verdict.cycles) nodes.insert(c.begin(), c.end());
    const float R = 60 * k;
    const ImVec2 c(o.x + ImGui::GetContentRegionAvail().x - graphW / 2, o.y + R + 16 * k);
    std::map<int, ImVec2> at;
    int i = 0;
    for (int r : nodes) {
      const float a = -1.5708f + 6.2832f * float(i++) / float(nodes.size());
      at[r] = ImVec2(c.x + R * std::cos(a), c.y + R * std::sin(a));
    }
    const ImU32 red = IM_COL32(220, 30, 40, 255);
    const float nr = 14 * k;
    for (const auto& [w, m] : d.verdict.edges) {
      if (!at.count(w) || !at.count(m)) continue;
      const ImVec2 a = at[w], b = at[m];
      const float dx = b.x - a.x, dy = b.y - a.y, len = std::max(1.0f, std::sqrt(dx * dx + dy * dy));
      const ImVec2 s(a.x + dx / len * nr, a.y + dy / len * nr), e(b.x - dx / len * nr, b.y - dy / len * nr);
      dl->AddLine(s, e, red, 2 * k);
      const ImVec2 l(e.x - dx / len * 9 * k - dy / len * 5 * k, e.y - dy / len * 9 * k + dx / len * 5 * k);
      const ImVec2 r2(e.x - dx / len * 9 * k + dy / len * 5 * k, e.y - dy / len * 9 * k - dx / len * 5 * k);
      dl->AddTriangleFilled(e, l, r2, red);
    }
    for (const auto& [r, p] : at) {
      dl->AddCircleFilled(p, nr, ImGui::GetColorU32(ImGuiCol_FrameBg));
      dl->AddCircle(p, nr, red, 0, 2 * k);
      const std::string t = "R" + std::to_string(r);
      const ImVec2 sz = ImGui::CalcTextSize(t.c_str());
      dl->AddText(ImVec2(p.x - sz.x / 2, p.y - sz.y / 2), ImGui::GetColorU32(ImGuiCol_Text), t.c_str());
    }
    const char* label = tr("deadlock: who waits for whom");
    const float lw = ImGui::CalcTextSize(label).x;
    dl->AddText(ImVec2(std::min(c.x - lw / 2, o.x + ImGui::GetContentRegionAvail().x - lw), c.y + R + 18 * k), red, label);
    h = std::max(h, 2 * R + 40 * k);
  }
  ImGui::Dummy(ImVec2(1, h + 4 * k));
}

void WatchWindow::drawLanes(const job::LiveData& d, float k, float height) {
  ImGui::BeginChild("lanes", ImVec2(0, std::max(80 * k, height)), true);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const bool dark = ImGui::GetStyle().Colors[ImGuiCol_WindowBg].x < 0.5f;
  const float labelW = 230 * k, W = 112 * k, H = 64 * k, gap = 6 * k, laneH = H + 16 * k;
  const float avail = ImGui::GetContentRegionAvail().x;
  const int n = std::max(1, int((avail - labelW) / (W + gap)));
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text), red = IM_COL32(220, 30, 40, 255);
  const ImU32 accent = ImGui::GetColorU32(ImGuiCol_CheckMark);
  shown_lanes_.clear();
  if (d.lanes.empty()) ImGui::TextUnformatted(tr("No collective captured yet."));
  for (const job::LiveLane& ln : d.lanes) {
    const ImVec2 o = ImGui::GetCursorScreenPos();
    // The label: its name, its members (the verdict's outlined), its hosts.
    dl->PushClipRect(o, ImVec2(o.x + labelW - 8 * k, o.y + laneH), true);
    dl->AddText(o, text, ln.name.c_str());
    float x = o.x;
    const float y = o.y + ImGui::GetTextLineHeight() + 2 * k;
    for (std::size_t m = 0; m < ln.ranks.size() && m < 12; ++m) {
      const std::string t = "R" + std::to_string(ln.ranks[m]);
      const ImVec2 sz = ImGui::CalcTextSize(t.c_str());
      if (ln.ranks[m] == trace_) dl->AddRectFilled(ImVec2(x - 2 * k, y), ImVec2(x + sz.x + 2 * k, y + sz.y), accent, 3 * k);
      dl->AddText(ImVec2(x, y), text, t.c_str());
      if (named(ln.ranks[m])) dl->AddRect(ImVec2(x - 3 * k, y - 1 * k), ImVec2(x + sz.x + 3 * k, y + sz.y + 1 * k), red, 3 * k, 0, 2.5f * k);
      x += sz.x + 8 * k;
    }
    std::set<std::string> hosts(ln.hosts.begin(), ln.hosts.end());
    std::string hs;
    for (const std::string& h : hosts) hs += (hs.empty() ? "" : ", ") + h;
    dl->AddText(ImVec2(o.x, y + ImGui::GetTextLineHeight() + 2 * k), ImGui::GetColorU32(ImGuiCol_TextDisabled),
                trf("{0} calls · {1}", {std::to_string(ln.calls), hs}).c_str());
    // Who arrived last most often (all members entered), the first two.
    std::vector<std::pair<std::uint64_t, int>> most;
    std::uint64_t all = 0;
    for (const auto& [r, n2] : ln.lastCount) most.emplace_back(n2, r), all += n2;
    std::sort(most.rbegin(), most.rend());
    if (!most.empty()) {
      std::string m;
      for (std::size_t i = 0; i < most.size() && i < 2; ++i)
        m += (i ? ", R" : "R") + std::to_string(most[i].second) + " " + std::to_string(most[i].first * 100 / std::max<std::uint64_t>(1, all)) + "%";
      dl->AddText(ImVec2(o.x, y + 2 * (ImGui::GetTextLineHeight() + 2 * k)), ImGui::GetColorU32(ImGuiCol_TextDisabled),
                  trf("last most often: {0}", {m}).c_str());
    }
    dl->PopClipRect();
    // The tiles on screen: the newest n, or n up to where the lane was scrolled.
    std::uint64_t newest = ln.calls ? ln.calls - 1 : 0;
    if (!follow_) {
      auto it = newest_.find(ln.id);
      if (it != newest_.end()) newest = std::min<std::uint64_t>(newest, it->second);
    }
    const std::uint32_t first = newest + 1 >= std::uint64_t(n) ? std::uint32_t(newest + 1 - std::uint64_t(n)) : 0;
    const std::uint32_t count = ln.calls ? std::uint32_t(std::min<std::uint64_t>(std::uint64_t(n), ln.calls - first)) : 0;
    Shown sh;
    sh.comm = ln.id, sh.first = first, sh.w = W + gap, sh.h = H;
    sh.x0 = o.x + labelW, sh.y0 = o.y;
    const std::uint32_t ringFirst = ln.ring.empty() ? std::uint32_t(ln.calls) : ln.ring.front().seq;
    if (count > 0 && first < ringFirst)  // scrolled back past the ring: read from the files
      sh.tiles = lanes_->readTiles(ln.id, first, std::min(count, ringFirst - first));
    for (std::uint32_t s = std::max(first, ringFirst); s < first + count && s - ringFirst < ln.ring.size(); ++s)
      sh.tiles.push_back(ln.ring[s - ringFirst]);
    const std::size_t members = ln.ranks.size();
    for (std::size_t i = 0; i < sh.tiles.size(); ++i) {
      const job::LaneTile& t = sh.tiles[i];
      const ImVec2 a(sh.x0 + float(i) * (W + gap), o.y), b(a.x + W, a.y + H);
      const bool done = members > 0 && t.returned >= members;
      ImU32 fill = funcColour(t.func, dark);
      if (!done) fill = (fill & 0x00ffffffu) | 0x90000000u;  // in flight: paler
      dl->AddRectFilled(a, b, fill, 4 * k);
      bool stuck = false;
      for (int r : verdictRanks_) stuck = stuck || (!done && std::find(ln.ranks.begin(), ln.ranks.end(), r) != ln.ranks.end());
      if (stuck) dl->AddRect(a, b, red, 4 * k, 0, 3 * k);
      else if (!done) dl->AddRect(a, b, IM_COL32(230, 140, 20, 255), 4 * k, 0, 1.5f * k);
      if (std::uint64_t(selComm_) == ln.id && selSeq_ == std::int64_t(t.seq))
        dl->AddRect(ImVec2(a.x - 3 * k, a.y - 3 * k), ImVec2(b.x + 3 * k, b.y + 3 * k), accent, 5 * k, 0, 3 * k);
      dl->PushClipRect(a, b, true);
      const float lh = ImGui::GetTextLineHeight() * 0.95f;
      const std::string l1 = shortName(tap::funcName(t.func, (t.flags & tap::kNonblocking) != 0)) + " #" + std::to_string(t.seq);
      const std::string l2 = std::to_string(t.count) + " " + shortName(tap::dtypeName(t.dtype));
      std::string l3 = shortName(tap::ropName(t.op));
      if (t.root >= 0) l3 += (l3.empty() ? "" : " ") + trf("root {0}", {std::to_string(t.root)});
      std::string l4 = done && t.lastRank >= 0 ? trf("last R{0}", {std::to_string(t.lastRank)})
                                               : trf("{0} of {1} entered", {std::to_string(t.entered), std::to_string(members)});
      const ImVec2 p(a.x + 4 * k, a.y + 2 * k);
      dl->AddText(p, text, l1.c_str());
      dl->AddText(ImVec2(p.x, p.y + lh), text, l2.c_str());
      dl->AddText(ImVec2(p.x, p.y + 2 * lh), text, l3.c_str());
      dl->AddText(ImVec2(p.x, p.y + 3 * lh), t.lastRank == trace_ ? accent : text, l4.c_str());
      dl->PopClipRect();
    }
    ImGui::InvisibleButton(("##lane" + std::to_string(ln.id)).c_str(), ImVec2(std::max(1.0f, avail), laneH));
    if (ImGui::IsItemHovered()) {
      const ImVec2 m = ImGui::GetMousePos();
      const float wheel = ImGui::GetIO().MouseWheel;
      if (wheel != 0 && ln.calls > 0) {  // older calls: this lane scrolls, the others stay
        if (follow_)
          for (const Shown& s2 : shown_lanes_) newest_.emplace(s2.comm, s2.first + std::uint32_t(s2.tiles.size()) - 1);
        follow_ = false;
        const std::int64_t step = std::int64_t(wheel * 3);
        newest_[ln.id] = std::uint32_t(std::clamp<std::int64_t>(std::int64_t(newest) - step, std::min<std::int64_t>(n - 1, std::int64_t(ln.calls) - 1), std::int64_t(ln.calls) - 1));
      }
      const int i = int(std::floor((m.x - sh.x0) / (W + gap)));
      if (m.x >= sh.x0 && i >= 0 && std::size_t(i) < sh.tiles.size() && m.y <= o.y + H) {
        ImGui::SetMouseCursor(ImGuiMouseCursor_Hand);
        if (ImGui::IsItemClicked()) select(ln.id, sh.tiles[std::size_t(i)].seq);
      }
    }
    shown_lanes_.push_back(std::move(sh));
  }
  ImGui::EndChild();
}

}  // namespace collviz::ui
