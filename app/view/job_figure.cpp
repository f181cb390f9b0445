#include "app/view/job_figure.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "app/lang/line_break.h"
#include "app/view/job_figure_parts.h"
#include "app/view/text.h"

namespace collviz::ui {
namespace job_figure_parts {

using namespace collviz::job;

struct Lane {
  int group = -1;
  std::vector<int> ranks;            // drawn, grouped by host
  std::vector<std::int64_t> seqs;    // columns
  std::int64_t earlier = 0, later = 0;  // collectives not drawn before and after
  std::map<std::pair<int, std::int64_t>, const Call*> calls;  // (rank, seq)
  const Finding* hang = nullptr;
  std::vector<const Finding*> mismatches;
  bool nccl = false;                 // some tile has NCCL's figures
  const GroupProgress* progress = nullptr;  // where each rank stands (the analysis)
};

// The Job::calls index of rank `r`'s call `seq` in the lane; r < 0: any
// rank's (a tile of a rank that never entered opens the others' call).
int Draw::callOf(const Lane& l, std::int64_t seq, int r) const {
  for (int rank : l.ranks) {
    if (r >= 0 && rank != r) continue;
    if (auto it = l.calls.find({rank, seq}); it != l.calls.end()) return int(it->second - job.calls.data());
  }
  return -1;
}

}  // namespace job_figure_parts

namespace {

using namespace collviz::job;
using namespace job_figure_parts;

std::string sizeText(const Job& job, const Call& c) {
  std::int64_t bytes = c.bytes;
  if (bytes < 0 && c.inElems >= 0)
    if (auto t = dtypeOf(job.str(c.dtype))) bytes = c.inElems * std::int64_t(dtypeSize(*t));
  char buf[64];
  if (bytes >= (1 << 20)) std::snprintf(buf, sizeof buf, "%.2f MiB", double(bytes) / double(1 << 20));
  else if (bytes >= 1024) std::snprintf(buf, sizeof buf, "%.1f KiB", double(bytes) / 1024.0);
  else if (bytes >= 0) std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(bytes));
  else if (c.inElems >= 0) std::snprintf(buf, sizeof buf, "%lld el", static_cast<long long>(c.inElems));
  else buf[0] = 0;
  std::string s = buf;
  const std::string_view dt = job.str(c.dtype);
  if (!dt.empty()) s += (s.empty() ? "" : " ") + std::string(dt);
  return s;
}

// NCCL's own figures of a call (Inspector, profiler), where a source gave them.
std::string ncclText(const Job& job, const Call& c) {
  std::string s(job.str(c.algo));
  if (!job.str(c.proto).empty()) s += (s.empty() ? "" : "/") + std::string(job.str(c.proto));
  char buf[48];
  if (c.channels > 0) std::snprintf(buf, sizeof buf, " %dch", int(c.channels)), s += buf;
  if (c.busbw >= 0) std::snprintf(buf, sizeof buf, " %.1f GB/s", double(c.busbw)), s += buf;
  if (c.durationMs >= 0) std::snprintf(buf, sizeof buf, " %.3g ms", double(c.durationMs)), s += buf;
  return s.size() && s[0] == ' ' ? s.substr(1) : s;
}

// How far a rank got with a collective: the analysis' count (Flight
// Recorder's pg_status: a dump's entries may all say "scheduled" where
// timing was off), else the call's own state.
State stateOf(const Lane& l, const Call& c) {
  if (l.progress)
    for (const Progress& pr : l.progress->ranks)
      if (pr.rank == c.rank && pr.dumped) {
        if (c.seq <= pr.lastCompleted) return State::completed;
        if (c.seq <= pr.lastStarted) return State::started;
        return c.state == State::completed ? State::completed : c.state == State::started ? State::started : State::scheduled;
      }
  return c.state;
}

Rgba waitColour() { return rgb(0xd9962b); }
Rgba mismatchColour() { return rgb(0x8e5bb5); }

std::vector<Lane> lanes(const Job& job, const Analysis& a, const JobFigureParams& p) {
  std::vector<int> order;
  auto add = [&](int g) {
    if (g >= 0 && std::find(order.begin(), order.end(), g) == order.end() && int(order.size()) < p.lanes) order.push_back(g);
  };
  for (const Finding& f : a.findings)
    if (f.kind == FindingKind::hang || f.kind == FindingKind::mismatch) add(f.group);
  std::vector<int> busiest;
  for (std::size_t g = 0; g < job.groups.size(); ++g)
    if (job.groups[g].calls > 0) busiest.push_back(int(g));
  std::stable_sort(busiest.begin(), busiest.end(), [&](int x, int y) { return job.groups[x].calls > job.groups[y].calls; });
  for (int g : busiest) add(g);
  std::vector<Lane> out(order.size());
  std::map<int, std::size_t> at;
  for (std::size_t i = 0; i < order.size(); ++i) out[i].group = order[i], at[order[i]] = i;
  std::vector<std::set<std::int64_t>> seqs(order.size());
  for (const Call& c : job.calls) {
    auto it = at.find(c.group);
    if (it == at.end() || c.p2p || c.seq < 0) continue;
    Lane& l = out[it->second];
    l.calls.emplace(std::make_pair(c.rank, c.seq), &c);
    seqs[it->second].insert(c.seq);
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    Lane& l = out[i];
    for (const GroupProgress& gp : a.groups)
      if (gp.group == l.group) l.progress = &gp;
    for (const Finding& f : a.findings) {
      if (f.group != l.group) continue;
      if (f.kind == FindingKind::hang && !l.hang) l.hang = &f;
      if (f.kind == FindingKind::mismatch) l.mismatches.push_back(&f);
    }
    const std::vector<std::int64_t> all(seqs[i].begin(), seqs[i].end());
    // The window: up to the stuck collective and one after it, else the last.
    const std::int64_t focus = l.hang ? l.hang->seq : !l.mismatches.empty() ? l.mismatches.front()->seq : -1;
    std::size_t end = all.size();
    if (focus >= 0) end = std::min(all.size(), std::size_t(std::upper_bound(all.begin(), all.end(), focus) - all.begin()) + 1);
    const std::size_t begin = end > std::size_t(p.columns) ? end - std::size_t(p.columns) : 0;
    l.seqs.assign(all.begin() + std::ptrdiff_t(begin), all.begin() + std::ptrdiff_t(end));
    l.earlier = std::int64_t(begin), l.later = std::int64_t(all.size() - end);
    const Group& g = job.groups[std::size_t(l.group)];
    std::vector<int> ranks = g.ranks;
    if (ranks.empty())
      for (const auto& [k, c] : l.calls)
        if (ranks.empty() || ranks.back() != k.first) ranks.push_back(k.first);
    auto hostOf = [&](int r) {
      const Rank* rk = job.rank(r);
      const std::string h = rk ? rk->host : std::string();
      const auto hit = std::find(job.hosts.begin(), job.hosts.end(), h);
      return hit - job.hosts.begin();
    };
    std::stable_sort(ranks.begin(), ranks.end(), [&](int x, int y) { return hostOf(x) < hostOf(y); });
    if (int(ranks.size()) > p.rows) ranks.resize(std::size_t(p.rows));
    l.ranks = ranks;
    for (const auto& [k, c] : l.calls) l.nccl = l.nccl || c->algo || c->busbw >= 0 || c->channels > 0;
  }
  return out;
}

void drawLane(Draw& d, const Lane& l) {
  const Job& job = d.job;
  const Group& g = job.groups[std::size_t(l.group)];
  const float rowH = l.nccl ? 50 : 38;
  d.text(kMargin, d.y + 14, groupName(job, l.group), 13, d.theme.text, 0, true);
  d.text(kMargin, d.y + 30,
         d.said(g.ranks.empty() ? say("{0} collectives recorded", g.calls) : say("{0} · {1} collectives recorded", rankList(g.ranks), g.calls)),
         11, d.theme.muted_text);
  d.y += 40;
  // Column heads: each collective's sequence number, what is not drawn said.
  for (std::size_t k = 0; k < l.seqs.size(); ++k) {
    const bool focus = l.hang && l.seqs[k] == l.hang->seq;
    d.text(kTilesX + float(k) * (kTileW + kTileGap) + kTileW / 2, d.y + 10, "#" + std::to_string(l.seqs[k]), 11,
           focus ? d.theme.bad : d.theme.muted_text, 1, focus);
  }
  if (l.earlier > 0) d.text(kTilesX - 8, d.y + 10, d.said(say("{0} earlier", l.earlier)), 10, d.theme.muted_text, 2);
  if (l.later > 0) {
    const std::string s = d.said(say("{0} later", l.later));
    const float x = kTilesX + float(l.seqs.size()) * (kTileW + kTileGap);
    d.text(x, d.y + 10, s, 10, d.theme.muted_text);
    d.right = std::max(d.right, x + approxWidth(s, 10) + kMargin);
  }
  d.y += 16;
  // Where each rank stands (the analysis), and how far back the named
  // ranks' completions are: a rank whose completions stop as far back, where
  // others completed more, is flagged too (gpu_error_1st: rank 14, like the
  // named rank 12, completed nothing after #20529; ranks 13 and 15 did to
  // #20536).
  auto progressOf = [&](int r) -> const Progress* {
    if (l.progress)
      for (const Progress& pr : l.progress->ranks)
        if (pr.rank == r && pr.dumped) return &pr;
    return nullptr;
  };
  std::int64_t namedBehind = -2, furthest = -1;  // the named ranks' last completed (-2: none known); anyone's
  if (l.hang)
    for (int r : l.hang->ranks)
      if (const Progress* pr = progressOf(r)) namedBehind = std::max(namedBehind, pr->lastCompleted);
  if (l.progress)
    for (const Progress& pr : l.progress->ranks)
      if (pr.dumped) furthest = std::max(furthest, pr.lastCompleted);
  std::map<int, std::int64_t> firstRecorded;  // each rank's first collective in the recording
  for (const auto& [k, c] : l.calls)
    if (!firstRecorded.count(k.first)) firstRecorded[k.first] = k.second;
  std::string host = "\x01";
  for (int r : l.ranks) {
    const Rank* rk = job.rank(r);
    const std::string h = rk ? rk->host : std::string();
    if (h != host) {
      host = h;
      if (!h.empty()) {
        d.text(kMargin, d.y + 11, h, 10, d.theme.muted_text);
        d.y += 15;
      }
    }
    const bool culprit = l.hang && std::find(l.hang->ranks.begin(), l.hang->ranks.end(), r) != l.hang->ranks.end();
    const Progress* pr = progressOf(r);
    const bool lags = !culprit && l.hang && pr && namedBehind > -2 && pr->lastCompleted <= namedBehind && pr->lastCompleted < furthest;
    const bool noDump = !rk || rk->dump < 0;
    const Rgba fill = tileFill(d.theme, 0);
    const float h0 = rowH - 6;
    if (culprit) {  // outlined and named, as the trace highlights one rank
      d.box(kMargin - 3, d.y - 3, kLabelW + 6, h0 + 6, d.theme.bad, nullptr, "culprit", " data-rank=\"" + std::to_string(r) + "\"");
      d.box(kMargin - 2, d.y - 2, kLabelW + 4, h0 + 4, d.theme.bad, nullptr, "culprit-ring");
    }
    if (lags) {  // not named, as far behind: a dashed ring
      d.box(kMargin - 3, d.y - 3, kLabelW + 6, h0 + 6, d.theme.bad, nullptr, "lags", " data-rank=\"" + std::to_string(r) + "\"");
      d.fig.shapes.back().dashed = true;
    }
    d.box(kMargin, d.y, kLabelW, h0, d.theme.row_border, &fill, "rank", " data-rank=\"" + std::to_string(r) + "\"");
    d.text(kMargin + kLabelW / 2, d.y + h0 / 2 + 4, "R" + std::to_string(r), 12, culprit || lags ? d.theme.bad : d.theme.text, 1,
           culprit || lags);
    float x = kMargin + kLabelW + 8;
    if (lags) d.text(x, d.y + h0 / 2 + 4, d.said(say("as far behind")), 10, d.theme.bad, 0, true);
    else if (noDump) d.text(x, d.y + h0 / 2 + 4, d.said(say("no dump")), 10, d.theme.muted_text);
    else if (rk->health != Health::unknown && rk->health != Health::ok)
      d.text(x, d.y + h0 / 2 + 4, healthWord(rk->health), 10, d.theme.bad, 0, true);
    for (std::size_t k = 0; k < l.seqs.size(); ++k) {
      const std::int64_t seq = l.seqs[k];
      const float tx = kTilesX + float(k) * (kTileW + kTileGap);
      const std::string data = " data-rank=\"" + std::to_string(r) + "\" data-seq=\"" + std::to_string(seq) + "\"";
      auto it = l.calls.find({r, seq});
      if (it == l.calls.end()) {
        if (culprit && seq == l.hang->seq) {
          d.box(tx, d.y, kTileW, h0, d.theme.bad, nullptr, "never", data + " data-state=\"never\"");
          d.fig.shapes.back().call = d.callOf(l, seq, -1);  // the collective the others wait in
          d.text(tx + kTileW / 2, d.y + h0 / 2 + 4, d.said(say("never entered")), 11, d.theme.bad, 1, true);
        } else if (!noDump && firstRecorded.count(r) && seq < firstRecorded[r]) {
          // Rolled out of Flight Recorder's ring buffer: the rank ran it, the dump no longer holds it.
          d.box(tx, d.y, kTileW, h0, d.theme.row_border, nullptr, "unrecorded", data + " data-state=\"unrecorded\"");
          d.fig.shapes.back().dashed = true;
          d.text(tx + kTileW / 2, d.y + h0 / 2 + 4, d.said(say("not in the recording")), 10, d.theme.muted_text, 1);
        }
        continue;
      }
      const Call& c = *it->second;
      const State state = stateOf(l, c);
      bool differs = false;
      for (const Finding* f : l.mismatches)
        differs = differs || (f->seq == seq && std::find(f->ranks.begin(), f->ranks.end(), r) != f->ranks.end());
      const Rgba border = differs ? mismatchColour() : state == State::completed ? d.theme.neutral_border : waitColour();
      const Rgba tfill = state == State::completed ? d.theme.neutral_fill
                         : state == State::started ? d.startedFill()
                                                      : d.enteredFill();
      d.box(tx, d.y, kTileW, h0, border, &tfill, differs ? "mismatch" : "call",
            data + " data-state=\"" + std::string(stateName(state)) + "\"");
      d.fig.shapes.back().call = d.callOf(l, seq, r);
      if (differs) d.box(tx + 1, d.y + 1, kTileW - 2, h0 - 2, mismatchColour(), nullptr, "mismatch-ring");
      d.text(tx + 6, d.y + 14, std::string(job.str(c.op)), 11, d.theme.text, 0, state != State::completed);
      d.text(tx + 6, d.y + 27, sizeText(job, c), 10, d.theme.muted_text);
      if (l.nccl) d.text(tx + 6, d.y + 40, ncclText(job, c), 9, d.theme.muted_text);
    }
    d.y += rowH;
  }
  if (int(g.ranks.size()) > int(l.ranks.size()))
    d.text(kMargin, d.y + 10, d.said(say("{0} more ranks not drawn", int(g.ranks.size() - l.ranks.size()))), 10, d.theme.muted_text), d.y += 16;
  d.y += 14;
}

void drawLegend(Draw& d) {
  struct Key {
    Text what;
    Rgba stroke, fill;
    bool dashed = false;
  };
  const Key keys[] = {{say("completed"), d.theme.neutral_border, d.theme.neutral_fill},
                      {say("started, not completed"), waitColour(), d.startedFill()},
                      {say("entered, not started"), waitColour(), d.enteredFill()},
                      {say("never entered"), d.theme.bad, d.theme.background},
                      {say("differs from the other ranks"), mismatchColour(), d.theme.background},
                      {say("not in the recording"), d.theme.row_border, d.theme.background, true},
                      {say("as far behind as a named rank"), d.theme.bad, d.theme.background, true}};
  // On as many lines as the figure's width (so far) needs, or the view's.
  const float right = d.p.view_width > 0 ? d.p.view_width : d.right;
  float x = kMargin;
  for (const Key& k : keys) {
    const std::string s = d.said(k.what);
    const float w = 24 + approxWidth(s, 10) + 22;
    if (x > kMargin && x + w > right - kMargin) x = kMargin, d.y += 20;
    d.box(x, d.y, 18, 12, k.stroke, &k.fill, "key");
    d.fig.shapes.back().dashed = k.dashed;
    d.text(x + 24, d.y + 10, s, 10, d.theme.muted_text);
    x += w;
  }
  d.y += 30;
}

}  // namespace

Result<NcclFigure> jobFigure(const Job& job, const Analysis& a, const JobFigureParams& p) {
  if (job.ranks.empty() && job.tests.empty() && job.ras.empty() && job.calls.empty())
    return Error(say("the files hold no rank, collective, RAS report or nccl-tests table to draw"));
  Draw d{job, a, p, makeTheme(p.theme), {}};
  const int files = int(job.sources.size());
  const int ranks = int(job.ranks.size()), groups = int(job.groups.size()), calls = int(job.calls.size());
  const std::string head = d.said(files == 1 ? say("{0} ranks · {1} process groups · {2} collectives, from one file", ranks, groups, calls)
                                             : say("{0} ranks · {1} process groups · {2} collectives, from {3} files", ranks, groups, calls, files));
  const std::string verdict = d.said(a.verdict);
  const bool found = !a.findings.empty();
  // The verdict in lines within the figure's least width, or the view's: a
  // 中文 verdict has no space to stop at and ran past the image's edge (and
  // past the job window's at 2x). The whole of it is the figure's title.
  const float text_width = p.view_width > 0 ? p.view_width : kMinWidth;
  WrapParams wrap;
  wrap.width = text_width - 2 * kMargin;
  WrapParams wrap16 = wrap;
  wrap16.measure = [](const std::string& t) { return 1.05f * approxWidth(t, 16); };
  float vy = 30;
  for (const std::string& line : p.view_width > 0 ? wrapText(head, wrap16) : std::vector<std::string>{head}) {
    d.text(kMargin, vy, line, 16, d.theme.text, 0, true);
    vy += 22;
  }
  vy += 4;  // 56 below a head of one line
  wrap.measure = [](const std::string& t) { return 1.05f * approxWidth(t, 14); };
  // Files of more than one job, merged by rank number: said above all.
  for (const Finding& f : a.findings)
    if (f.kind == FindingKind::other_job && std::string(f.text) != std::string(a.verdict)) {
      WrapParams w = wrap;
      w.measure = [](const std::string& t) { return 1.05f * approxWidth(t, 12); };
      for (const std::string& line : wrapText(d.said(f.text), w)) {
        d.text(kMargin, vy - 2, line, 12, d.theme.bad, 0, true);
        vy += 17;
      }
      vy += 4;
    }
  for (const std::string& line : wrapText(verdict, wrap)) {
    d.text(kMargin, vy, line, 14, found ? d.theme.bad : d.theme.text, 0, true);
    vy += 20;
  }
  d.y = vy - 10;
  // The other findings, after the verdict's own: an export widens to hold
  // each on its line, a view wraps them to what it shows.
  WrapParams wrap11 = wrap;
  wrap11.measure = [](const std::string& t) { return 1.05f * approxWidth(t, 11); };
  for (std::size_t k = 1; k < a.findings.size() && k < 6; ++k) {
    if (a.findings[k].kind == FindingKind::other_job) continue;  // on top
    const std::string s = "· " + d.said(a.findings[k].text);
    const std::vector<std::string> lines = p.view_width > 0 ? wrapText(s, wrap11) : std::vector<std::string>{s};
    for (const std::string& line : lines) {
      d.text(kMargin, d.y + 14, line, 11, d.theme.muted_text);
      if (p.view_width <= 0) d.right = std::max(d.right, kMargin + approxWidth(line, 11) + kMargin);
      d.y += 17;
    }
  }
  if (a.findings.size() > 6) d.text(kMargin, d.y + 14, d.said(say("{0} more findings: collviz job lists them", int(a.findings.size() - 6))), 11, d.theme.muted_text), d.y += 17;
  d.y += 14;
  const std::vector<Lane> ls = lanes(job, a, p);
  if (!ls.empty()) drawLegend(d);
  for (const Lane& l : ls) {
    drawLane(d, l);
    d.right = std::max(d.right, kTilesX + float(l.seqs.size()) * (kTileW + kTileGap) + kMargin);
  }
  int withCalls = 0;
  for (const Group& g : job.groups) withCalls += g.calls > 0;
  if (withCalls > int(ls.size()))
    d.text(kMargin, d.y + 4, d.said(say("{0} more process groups with collectives not drawn: collviz job lists them", withCalls - int(ls.size()))), 11,
           d.theme.muted_text), d.y += 22;
  drawRas(d);
  drawTests(d);
  d.fig.width = d.right, d.fig.height = d.y + 10, d.fig.background = d.theme.background;
  d.fig.title = verdict;
  return std::move(d.fig);
}

int jobFigureCallAt(const NcclFigure& f, float x, float y) {
  for (const NcclShape& s : f.shapes)
    if (s.call >= 0 && x >= s.x0 && x <= s.x0 + s.x1 && y >= s.y0 && y <= s.y0 + s.y1) return s.call;
  return -1;
}

}  // namespace collviz::ui
