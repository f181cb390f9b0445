// The job figure's tables: NCCL RAS's ranks and communicators, and each
// nccl-tests run's busbw against size above its table per size.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "app/view/axis_ticks.h"
#include "app/view/job_figure_parts.h"
#include "app/view/text.h"
#include "engine/bench/bench.h"

namespace collviz::ui::job_figure_parts {

using namespace collviz::job;

namespace {

std::string fixed(double v, const char* fmt) {
  if (v < 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

// busbw against size, as the window's bandwidth panel draws it: size on a
// log2 scale, busbw from 0 on round ticks; out of place solid, in place
// dashed; a size with wrong values a red point.
void drawBusbwPlot(Draw& d, const TestRun& t) {
  std::vector<const TestRow*> rows;
  double top = 0, lo = 1e300, hi = -1e300;
  for (const TestRow& r : t.rows) {
    if (r.bytes <= 0 || (r.busbw[0] < 0 && r.busbw[1] < 0)) continue;
    rows.push_back(&r);
    top = std::max({top, r.busbw[0], r.busbw[1]});
    lo = std::min(lo, std::log2(double(r.bytes))), hi = std::max(hi, std::log2(double(r.bytes)));
  }
  if (rows.size() < 2) return;
  if (hi <= lo) hi = lo + 1;
  const std::vector<double> ticks = roundTicks(top > 0 ? top : 1, 4);
  const double axisTop = ticks.back(), step = ticks[1] - ticks[0];
  const float x0 = kMargin + 56, x1 = x0 + 620, y0 = d.y + 22, y1 = y0 + 190;
  auto X = [&](std::int64_t bytes) { return x0 + float((std::log2(double(bytes)) - lo) / (hi - lo)) * (x1 - x0); };
  auto Y = [&](double v) { return y1 - float(v / axisTop) * (y1 - y0); };
  d.text(x0, d.y + 10, d.said(say("busbw (GB/s) against size")), 11, d.theme.text, 0, true);
  for (double v : ticks) {
    d.line(x0, Y(v), x1, Y(v), d.theme.row_border, 1, false, "grid");
    d.text(x0 - 6, Y(v) + 4, tickLabel(v, step), 11, d.theme.muted_text, 2);
  }
  d.line(x0, y1, x1, y1, d.theme.muted_text, 1, false, "axis");
  d.line(x0, y0, x0, y1, d.theme.muted_text, 1, false, "axis");
  const Rgba ink = letterColor(0);
  for (int place = 0; place < 2; ++place) {
    const TestRow* prev = nullptr;
    for (const TestRow* r : rows) {
      if (r->busbw[place] < 0) continue;
      if (prev) d.line(X(prev->bytes), Y(prev->busbw[place]), X(r->bytes), Y(r->busbw[place]), ink, 2, place == 1,
                       place ? "busbw-in" : "busbw-out");
      const bool wrong = r->wrong[place] > 0;
      const Rgba dot = wrong ? d.theme.bad : ink;
      d.box(X(r->bytes) - 3, Y(r->busbw[place]) - 3, 6, 6, dot, &dot, wrong ? "point-wrong" : "point",
            " data-bytes=\"" + std::to_string(r->bytes) + "\"");
      d.fig.shapes.back().radius = 3;
      prev = r;
    }
  }
  // Sizes under the axis: the first, the last and every other one between
  // where they do not crowd.
  float lastRight = -1e9f;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string s = formatSize(std::size_t(rows[i]->bytes));
    const float x = X(rows[i]->bytes), w = approxWidth(s, 10);
    if (i + 1 != rows.size() && x - w / 2 < lastRight + 8) continue;
    d.text(x, y1 + 14, s, 10, d.theme.muted_text, 1);
    lastRight = x + w / 2;
  }
  // Which line is which.
  const float ky = y0 + 4;
  d.line(x1 - 170, ky, x1 - 146, ky, ink, 2, false, "key-out");
  d.text(x1 - 140, ky + 4, d.said(say("out of place")), 10, d.theme.muted_text);
  d.line(x1 - 80, ky, x1 - 56, ky, ink, 2, true, "key-in");
  d.text(x1 - 50, ky + 4, d.said(say("in place")), 10, d.theme.muted_text);
  d.right = std::max(d.right, x1 + kMargin);
  d.y = y1 + 30;
}

}  // namespace

void drawRas(Draw& d) {
  const Job& job = d.job;
  std::vector<const Rank*> said;
  for (const Rank& r : job.ranks)
    if (r.health != Health::unknown) said.push_back(&r);
  if (said.empty() && job.ras.empty()) return;
  d.text(kMargin, d.y + 14, d.said(say("NCCL RAS: each rank's status")), 13, d.theme.text, 0, true);
  d.y += 24;
  for (const Rank* r : said) {
    const bool bad = severity(r->health) > severity(Health::ok);
    const Rgba fill = bad ? d.tint(d.theme.bad, 0.8f) : tileFill(d.theme, 0);
    d.box(kMargin, d.y, kLabelW, 20, bad ? d.theme.bad : d.theme.row_border, &fill, bad ? "ras-bad" : "ras",
          " data-rank=\"" + std::to_string(r->rank) + "\" data-health=\"" + std::string(healthName(r->health)) + "\"");
    d.text(kMargin + kLabelW / 2, d.y + 14, "R" + std::to_string(r->rank), 11, d.theme.text, 1, bad);
    std::string line = healthWord(r->health);
    if (!r->host.empty()) line += " · " + r->host;
    if (r->device >= 0) line += " · GPU " + std::to_string(r->device);
    if (!r->healthText.empty()) line += " · " + d.said(r->healthText);
    d.text(kMargin + kLabelW + 10, d.y + 14, line, 11, bad ? d.theme.bad : d.theme.text);
    d.right = std::max(d.right, kMargin + kLabelW + 10 + approxWidth(line, 11) + kMargin);
    d.y += 26;
  }
  for (const RasReport& rep : job.ras)
    for (const RasComm& c : rep.comms) {
      // RAS' text report prints a hash only for a communicator with errors.
      std::string line = (c.group.empty() ? "" : c.group + " · ") + (c.hash.empty() ? d.said(say("no id")) : c.hash) + " · " + c.status;
      if (!c.errors.empty()) line += " · " + c.errors;
      if (c.size >= 0) line += " · " + d.said(say("{0} ranks, {1} seen, {2} missing", c.size, c.ranksSeen, std::max(0, c.missing)));
      const bool bad = c.missing > 0 || (c.status != "RUNNING" && c.status != "OK") || (!c.errors.empty() && c.errors != "OK");
      d.text(kMargin, d.y + 12, line, 11, bad ? d.theme.bad : d.theme.muted_text);
      d.y += 18;
    }
  d.y += 12;
}

void drawTests(Draw& d) {
  constexpr std::size_t kMaxRows = 40;
  for (const TestRun& t : d.job.tests) {
    const std::string name = t.test.empty() ? std::string("nccl-tests") : t.test;
    d.text(kMargin, d.y + 14, name + " · " + d.said(say("{0} wrong values", t.wrongTotal)), 13, t.wrongTotal > 0 ? d.theme.bad : d.theme.text,
           0, true);
    d.y += 22;
    if (!t.settings.empty()) d.text(kMargin, d.y + 10, t.settings, 10, d.theme.muted_text), d.y += 16;
    drawBusbwPlot(d, t);
    const Text kHeads[] = {say("size (B)"), say("count"), say("type"), say("redop"), say("time (us)"), say("busbw"), lit("#wrong"),
                           say("time (us)"), say("busbw"), lit("#wrong")};
    const float cols[] = {0, 100, 190, 260, 330, 410, 480, 560, 640, 710};
    d.text(kMargin + 330, d.y + 10, d.said(say("out of place")), 10, d.theme.muted_text, 0, true);
    d.text(kMargin + 560, d.y + 10, d.said(say("in place")), 10, d.theme.muted_text, 0, true);
    d.y += 16;
    for (int i = 0; i < 10; ++i) d.text(kMargin + cols[i], d.y + 10, d.said(kHeads[i]), 10, d.theme.muted_text, 0, true);
    d.y += 16;
    for (std::size_t k = 0; k < t.rows.size() && k < kMaxRows; ++k) {
      const TestRow& r = t.rows[k];
      const bool wrong = r.wrong[0] > 0 || r.wrong[1] > 0;
      if (wrong) {
        const Rgba fill = d.tint(d.theme.bad, 0.8f);
        d.box(kMargin - 4, d.y, 770, 16, d.theme.bad, &fill, "wrong", " data-bytes=\"" + std::to_string(r.bytes) + "\"");
      }
      const std::string cells[] = {std::to_string(r.bytes), std::to_string(r.count), r.type, r.redop,
                                   fixed(r.time[0], "%.2f"), fixed(r.busbw[0], "%.2f"), r.wrong[0] < 0 ? "N/A" : std::to_string(r.wrong[0]),
                                   fixed(r.time[1], "%.2f"), fixed(r.busbw[1], "%.2f"), r.wrong[1] < 0 ? "N/A" : std::to_string(r.wrong[1])};
      for (int i = 0; i < 10; ++i) {
        const bool hot = (i == 6 && r.wrong[0] > 0) || (i == 9 && r.wrong[1] > 0);
        d.text(kMargin + cols[i], d.y + 12, cells[i], 10, hot ? d.theme.bad : d.theme.text, 0, hot);
      }
      d.y += 16;
    }
    if (t.rows.size() > kMaxRows) d.text(kMargin, d.y + 10, d.said(say("{0} more sizes", int(t.rows.size() - kMaxRows))), 10, d.theme.muted_text), d.y += 16;
    if (t.avgBusbw >= 0) d.text(kMargin, d.y + 12, d.said(say("average bus bandwidth {0} GB/s", fixed(t.avgBusbw, "%.2f"))), 11, d.theme.text), d.y += 18;
    d.right = std::max(d.right, kMargin + 790);
    d.y += 14;
  }
}

}  // namespace collviz::ui::job_figure_parts
