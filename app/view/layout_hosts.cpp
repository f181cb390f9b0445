// Ranks on several hosts (issue 33): each host's name beside its rank rows
// ("host a" left of R0–R1, a bar along them), a gap and a thin line
// between hosts, and the dash of a message across hosts. The op diagram
// and the algorithm view both lay their rows out with these.
#include "app/view/layout_builder.h"
#include "app/view/rank_hosts.h"

namespace collviz::ui::layout {

namespace {
constexpr float kGap = 14;       // layout units between two hosts' rows, beyond the row gap
constexpr float kNameSize = 14;  // a host's name
constexpr float kDash = 5;       // a message across hosts: dashes and gaps

float rankLabelsWidth(const Builder& b) {
  return b.measure("R" + std::to_string(std::max(0, b.m.spec.ranks - 1)), TextStyle::regular, 16 * b.u);
}
// The host bar's x: left of the rank labels, which end 10 units left of the boxes.
float barX(const Builder& b, const Geometry& g) { return g.cols[0].x - 10 * b.u - rankLabelsWidth(b) - 8 * b.u; }
}  // namespace

float hostNamesWidth(const Builder& b, float label_w) {
  if (b.m.hosts.empty()) return 0;
  float widest = 0;
  for (const HostRun& run : hostRuns(b.m.hosts))
    widest = std::max(widest, b.measure(hostLabel(run.host), TextStyle::bold, kNameSize * b.u));
  const float need = 10 * b.u + rankLabelsWidth(b) + 8 * b.u + 8 * b.u + widest;
  return std::max(0.0f, need - label_w);
}

float hostGapsHeight(const Builder& b) {
  if (b.m.hosts.empty()) return 0;
  return float(hostRuns(b.m.hosts).size() - 1) * kGap * b.u;
}

void setHostShifts(const Builder& b, Geometry& g) {
  g.shift.clear();
  if (b.m.hosts.empty()) return;
  const std::vector<HostRun> runs = hostRuns(b.m.hosts);
  g.shift.assign(std::size_t(b.m.spec.ranks), 0);
  for (std::size_t k = 0; k < runs.size(); ++k)
    for (int r = runs[k].first; r <= runs[k].last && r < b.m.spec.ranks; ++r) g.shift[std::size_t(r)] = float(k) * kGap * b.u;
}

void layoutHosts(Builder& b, const Geometry& g) {
  if (b.m.hosts.empty() || g.cols.empty()) return;
  const float u = b.u, x = barX(b, g), size = kNameSize * u;
  const std::vector<HostRun> runs = hostRuns(b.m.hosts);
  float left = x;
  for (const HostRun& run : runs)
    left = std::min(left, x - 8 * u - b.measure(hostLabel(run.host), TextStyle::bold, size));
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const HostRun& run = runs[k];
    const float top = g.rowY(run.first), bottom = g.rowY(run.last) + g.row_h;
    const Rgba bar = withAlpha(b.th.muted_text, 0.7f);
    b.tile({x - 1 * u, top + 2 * u, 2 * u, bottom - top - 4 * u}, bar, bar, 1 * u, 0);
    b.text({x - 8 * u, (top + bottom) / 2}, hostLabel(run.host), b.th.muted_text, size, TextStyle::bold, 1.0f, 0.5f);
    if (k == 0) continue;
    // In the middle of the gap above this host, under each column (the
    // flows between the columns stay clear).
    const float y = top - (g.row_gap + kGap * u) / 2;
    for (std::size_t c = 0; c < g.cols.size(); ++c) {
      const float x0 = c == 0 ? left : g.cols[c].x, x1 = g.cols[c].x + g.cols[c].box_w;
      b.tile({x0, y - 0.5f * u, x1 - x0, 1 * u}, b.th.row_border, b.th.row_border, 0, 0);
    }
  }
}

float hostDashLength(const Builder& b) { return kDash * b.u; }

float hostDash(const Builder& b, int from, int to) {
  return acrossHosts(b.m.hosts, from, to) ? hostDashLength(b) : 0.0f;
}

Rgba acrossHostsColor(const Theme& th) { return mix(th.text, th.background, 0.1f); }

}  // namespace collviz::ui::layout
