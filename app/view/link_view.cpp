#include "app/view/link_view.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app/lang/lang.h"
#include "app/lang/line_break.h"
#include "app/view/round_layout.h"

namespace collviz::ui {

Vec2 linkNodePosition(Vec2 centre, float radius, int r, int n) {
  const float a = 2.0f * 3.14159265f * float(r) / float(std::max(1, n)) - 3.14159265f / 2;
  return {centre.x + radius * std::cos(a), centre.y + radius * std::sin(a)};
}

std::string byteText(double bytes) {
  char buf[32];
  if (bytes >= 1 << 20) std::snprintf(buf, sizeof buf, "%.2f MiB", bytes / double(1 << 20));
  else if (bytes >= 1 << 10) std::snprintf(buf, sizeof buf, "%.1f KiB", bytes / 1024.0);
  else std::snprintf(buf, sizeof buf, "%.0f B", bytes);
  return buf;
}

std::string roundTimeText(double us, double slowest) {
  char buf[32];
  if (slowest >= 1000) std::snprintf(buf, sizeof buf, "%.2f ms", us / 1000);
  else std::snprintf(buf, sizeof buf, slowest < 100 ? "%.1f µs" : "%.0f µs", us);
  return buf;
}

namespace layout {
namespace {

// "16 B" with a no-break space, so a wrap keeps the figure and its unit together.
std::string nbsp(std::string s) {
  for (std::size_t i = s.find(' '); i != std::string::npos; i = s.find(' ', i + 2)) s.replace(i, 1, "\u00a0");
  return s;
}

// `text` in lines no wider than `width` at `size` (app/lang/line_break; a
// word longer than the width gets a line of its own).
std::vector<std::string> wrapWords(Builder& b, const std::string& text, float size, float width) {
  WrapParams p;
  p.width = width;
  p.measure = [&](const std::string& t) { return b.measure(t, TextStyle::regular, size); };
  return wrapText(text, p);
}

// One message on the circle: a curve bent to its right (so a→b and b→a
// stay apart), from node edge to node edge, with its arrowhead; an MSCCL
// file's channel k > 0 bends further, so channels read apart.
void linkArrow(Builder& b, Vec2 a, Vec2 z, float node_r, Rgba c, float w, int channel, float dash) {
  const float dx = z.x - a.x, dy = z.y - a.y, len = std::max(1.0f, std::hypot(dx, dy));
  const Vec2 d{dx / len, dy / len}, n{-d.y, d.x};
  const float bend = std::min(0.18f * len, 18 * b.u) * (1.0f + 1.4f * float(std::max(0, channel)));
  const float head = 5 * b.u + w;
  const Vec2 p0{a.x + d.x * node_r, a.y + d.y * node_r};
  const Vec2 tip{z.x - d.x * node_r, z.y - d.y * node_r};
  const Vec2 p3{tip.x - d.x * head, tip.y - d.y * head};
  const Vec2 p1{p0.x + dx / 3 + n.x * bend, p0.y + dy / 3 + n.y * bend};
  const Vec2 p2{p3.x - dx / 3 + n.x * bend, p3.y - dy / 3 + n.y * bend};
  b.s.curves.push_back({p0, p1, p2, p3, c, w, dash});
  const float half = 2.5f * b.u + w * 0.8f;
  b.s.triangles.push_back({tip, {p3.x + n.x * half, p3.y + n.y * half}, {p3.x - n.x * half, p3.y - n.y * half}, c});
}

// Ranks on several hosts: which line is a link within a host and which
// across hosts, a short sample of each on a line of its own; returns the y
// under them.
float hostsKey(Builder& b, Rect area, float y) {
  const float u = b.u, sample = 22 * u;
  y -= 6 * u;
  for (int across = 0; across < 2; ++across) {
    const std::string text = tr(across ? "across hosts" : "within a host");
    const float fs = b.px(12, text), mid = y + fs / 2;
    const Rgba c = across ? acrossHostsColor(b.th) : b.th.flow_neutral;
    b.s.curves.push_back({{area.x, mid}, {area.x + sample / 3, mid}, {area.x + 2 * sample / 3, mid},
                          {area.x + sample, mid}, c, 2 * u, across ? hostDashLength(b) : 0.0f});
    b.text({area.x + sample + 6 * u, mid}, text, b.th.muted_text, fs, TextStyle::regular, 0, 0.5f);
    y += fs * 1.35f;
  }
  return y + 6 * u;
}

float linkView(Builder& b, const RoundModel& rm, Rect area, float size) {
  const float u = b.u;
  const int n = rm.spec.ranks;
  const std::string title = tr("links this round (thickness = bytes)"), local = tr("local step: no message");
  const float head = b.px(13.5f, title), label = b.px(12);
  b.text({area.x, area.y}, title, b.th.muted_text, head, TextStyle::bold);
  const Vec2 centre{area.x + area.w / 2, area.y + head + 8.5f * u + size / 2};
  // A node holds its name ("R15") at the text floor.
  const float node_r = std::max(std::clamp(size / (2.6f * std::max(n, 3)), 7 * u, 14 * u),
                                b.measure("R" + std::to_string(n - 1), TextStyle::regular, label) / 2 + 2 * u);
  const float radius = size / 2 - node_r;
  uint64_t most = 1;
  for (const RoundArrow& a : rm.arrows) most = std::max(most, a.bytes);
  for (const RoundArrow& a : rm.arrows) {
    if (a.from == a.to) continue;
    const float w = 1.2f * u + 3.5f * u * float(a.bytes) / float(most);
    // Across hosts: dashed, in the colour of links across hosts.
    const float dash = hostDash(b, a.from, a.to);
    const Rgba c = withAlpha(dash > 0 ? acrossHostsColor(b.th) : arrowColor(b.th, rm, a),
                             roundArrowLit(rm, b.view, a) ? 0.9f : 0.12f);
    linkArrow(b, linkNodePosition(centre, radius, a.from, n), linkNodePosition(centre, radius, a.to, n),
              node_r, c, w, rm.channels > 1 ? a.channel : 0, dash);
  }
  float bottom = centre.y + size / 2 + 14 * u;
  if (rm.local) {  // under the circle: its centre is no room for text at the floor
    const float fl = b.px(12, local);
    b.text({area.x, bottom - 6 * u}, local, b.th.muted_text, fl);
    bottom += fl * 1.3f;
  }
  if (!rm.hosts.empty()) bottom = hostsKey(b, area, bottom);
  for (int r = 0; r < n; ++r) {
    const Vec2 p = linkNodePosition(centre, radius, r, n);
    b.tile({p.x - node_r, p.y - node_r, 2 * node_r, 2 * node_r}, b.th.row_box, b.th.row_border, node_r, 1.2f * u);
    b.text(p, "R" + std::to_string(r), b.th.text, label, TextStyle::regular, 0.5f, 0.5f);
  }
  return bottom;
}

// Ranks on several hosts: of rank r's bar (its track `track` long from
// `x`, the filled part its bytes sent) and its received line under it, the
// bytes across hosts as the end of each, in the colour of the links across
// hosts, and their figures on a line of their own under the bar; returns
// the y under that line.
float acrossHostsShare(Builder& b, const RoundModel& rm, int r, float x, float track, Rect bar, double scale,
                       float y) {
  const float u = b.u, fs = b.px(11.5f);
  const Rgba c = acrossHostsColor(b.th);
  const std::size_t k = std::size_t(r);
  auto len = [&](uint64_t bytes) { return track * float(double(bytes) / scale); };
  const float sent = len(rm.sent[k]), out = len(rm.sent_across[k]);
  if (out > 0.5f) b.tile({x + sent - out, bar.y, out, bar.h}, c, c, 2 * u, 0);
  const float got = len(rm.received[k]), in = len(rm.received_across[k]);
  if (in > 0.5f) b.tile({x + got - in, bar.y + bar.h + 0.5f * u, in, 1.6f * u}, c, c, 0.5f * u, 0);
  const std::string text = trf("across hosts: {0} / {1}", {byteText(double(rm.sent_across[k])),
                                                          byteText(double(rm.received_across[k]))});
  b.text({x, y}, text, b.th.muted_text, fs);
  return y + fs * 1.35f;
}

// Per rank: sent so far (filled) against the formula's bytes for the
// busiest rank (the track), received as a thin line under it.
float traffic(Builder& b, const RoundModel& rm, Rect area, float y) {
  const float u = b.u;
  const int n = rm.spec.ranks;
  const std::string title = tr("bytes sent / received so far"), formula = trf("formula: {0}", {render(rm.formula.text)});
  const bool hosts = !rm.hosts.empty();
  std::string legend = trf("Filled: bytes the rank has sent so far; thin line: received. A full bar is {0}, "
                           "what the formula says the busiest rank sends in the whole run.",
                           {nbsp(byteText(rm.formula.bytes))});
  if (hosts) legend += " " + std::string(tr("The end of a bar or line in the colour of the links across hosts: bytes across hosts."));
  const float head = b.px(13.5f, title), fs = b.px(12), ff = b.px(12, formula), note = b.px(11.5f, legend);
  b.text({area.x, y}, title, b.th.muted_text, head, TextStyle::bold);
  y += head * 1.4f;
  // The textbook line at the panel's text size, wrapped to its width.
  for (const std::string& line : wrapWords(b, formula, ff, area.w)) {
    b.text({area.x, y}, line, b.th.muted_text, ff);
    y += ff * 1.33f;
  }
  y += 3 * u;
  double scale = std::max(1.0, rm.formula.bytes);
  for (uint64_t t : rm.sent_total) scale = std::max(scale, double(t));
  for (uint64_t t : rm.received) scale = std::max(scale, double(t));
  const float line = std::max(fs * 1.15f, std::clamp((area.y + area.h - y - 90 * u) / std::max(1, n), 9 * u, 17 * u));
  auto amounts = [&](int r) {
    return byteText(double(rm.sent[std::size_t(r)])) + " / " + byteText(double(rm.received[std::size_t(r)]));
  };
  // The names and the figures take what they measure; the bars the rest.
  // (The widest the whole run reaches, so the bars keep their length from round to round.)
  uint64_t most_sent = 0;
  for (uint64_t t : rm.sent_total) most_sent = std::max(most_sent, t);
  const std::string widest = byteText(double(most_sent)) + " / " + byteText(double(most_sent));
  float text_w = b.measure(widest, TextStyle::regular, fs);
  for (int r = 0; r < n; ++r) text_w = std::max(text_w, b.measure(amounts(r), TextStyle::regular, fs));
  const float label_w = b.measure("R" + std::to_string(n - 1), TextStyle::regular, fs) + 8 * u;
  text_w += 8 * u;
  const float bar_w = std::max(30 * u, area.w - label_w - text_w);
  for (int r = 0; r < n; ++r) {
    const float ym = y + line / 2;
    b.text({area.x, ym}, "R" + std::to_string(r), b.th.muted_text, fs, TextStyle::regular, 0, 0.5f);
    const float x = area.x + label_w, bh = std::max(3 * u, line * 0.45f);
    b.tile({x, ym - bh / 2, bar_w, bh}, b.th.row_box, b.th.row_border, 2 * u, 0.8f * u);
    const float sent = bar_w * float(rm.sent[std::size_t(r)] / scale);
    if (sent > 0.5f) b.tile({x, ym - bh / 2, sent, bh}, letterColor(r), letterColor(r), 2 * u, 0);
    const float recv = bar_w * float(rm.received[std::size_t(r)] / scale);
    if (recv > 0.5f) b.tile({x, ym + bh / 2 + 0.5f * u, recv, 1.6f * u}, b.th.muted_text, b.th.muted_text, 0.5f * u, 0);
    b.text({x + bar_w + 6 * u, ym}, amounts(r), b.th.text, fs, TextStyle::regular, 0, 0.5f);
    y += line;
    if (hosts) y = acrossHostsShare(b, rm, r, x, bar_w, {x, ym - bh / 2, sent, bh}, scale, y);
  }
  if (rm.formula.bytes > 0) {
    y += 4 * u;
    for (const std::string& line : wrapWords(b, legend, note, area.w)) {
      b.text({area.x, y}, line, b.th.muted_text, note);
      y += note * 1.3f;
    }
  }
  return y + 8 * u;
}

// Every round's time (slowest rank) as a bar, this round's in the text colour.
float roundTimes(Builder& b, const RoundModel& rm, Rect area, float y) {
  const float u = b.u;
  std::string head = tr("time per round (slowest rank)");
  // A file leaves measured times out (they vary run to run) unless asked.
  if (b.view.hide_times && rm.ran()) return y;
  // One unit in the whole view, the slowest round's (the heading's number
  // is the bar's: "9.20 ms" twice, not "9199.0 µs" over "9.20 ms").
  const double most = rm.round_us.empty() ? 0 : std::max(1e-9, *std::max_element(rm.round_us.begin(), rm.round_us.end()));
  auto us = [&](double v) { return roundTimeText(v, most); };
  if (rm.round > 0 && rm.round <= int(rm.round_us.size())) {
    head += " · " + trf("this round: {0}", {us(rm.round_us[std::size_t(rm.round - 1)])});
  } else if (!rm.ran()) {
    head += " · " + std::string(tr("not yet run"));
  }
  const float hs = b.px(12.5f, head);
  for (const std::string& line : wrapWords(b, head, hs, area.w)) {
    b.text({area.x, y}, line, b.th.muted_text, hs, TextStyle::bold);
    y += hs * 1.36f;
  }
  y += 4 * u;
  if (rm.round_us.empty()) return y;
  // A scale on the left (0 and the slowest round), a value over each bar
  // where they fit, else over this round's; the step's number under it.
  const float h = 44 * u, gap = 2 * u, vs = b.px(10.5f);
  const int k = int(rm.round_us.size());
  const float scale_w = std::max(52 * u, b.measure(us(most), TextStyle::regular, vs) + 10 * u);
  const float x0 = area.x + scale_w, bw = area.w - scale_w;
  const float w = std::max(2 * u, (bw - gap * float(k - 1)) / float(k));
  const float top = y + vs + 4 * u;
  b.tile({x0 - 3 * u, top, 1 * u, h}, b.th.muted_text, b.th.muted_text, 0, 0);
  b.text({x0 - 6 * u, top}, us(most), b.th.muted_text, vs, TextStyle::regular, 1.0f, 0.5f);
  b.text({x0 - 6 * u, top + h}, "0", b.th.muted_text, vs, TextStyle::regular, 1.0f, 0.5f);
  bool every = true;
  for (int i = 0; i < k; ++i) every = every && b.measure(us(rm.round_us[std::size_t(i)]), TextStyle::regular, vs) <= w + gap;
  for (int i = 0; i < k; ++i) {
    const double v = rm.round_us[std::size_t(i)];
    const float bh = std::max(1.5f * u, h * float(v / most));
    const bool current = i + 1 == rm.round;
    const Rgba c = current ? b.th.text : withAlpha(b.th.muted_text, 0.45f);
    const float x = x0 + i * (w + gap);
    b.tile({x, top + h - bh, w, bh}, c, c, 1 * u, 0);
    if (every || current) b.text({x + w / 2, top + h - bh - 2 * u}, us(v), current ? b.th.text : b.th.muted_text, vs,
                                 TextStyle::regular, 0.5f, 1.0f);
    if (k <= 24 || current) b.text({x + w / 2, top + h + 2 * u}, std::to_string(i + 1), b.th.muted_text, vs,
                                   TextStyle::regular, 0.5f, 0.0f);
  }
  return top + h + vs + 10 * u;
}

}  // namespace

namespace {
// The smallest text drawn since `from` (Scene::side_px_min, what the fit reads).
void noteSideTexts(Builder& b, const Mark& from) {
  for (std::size_t i = from.texts; i < b.s.texts.size(); ++i) {
    const float px = b.s.texts[i].size;
    b.s.side_px_min = b.s.side_px_min > 0 ? std::min(b.s.side_px_min, px) : px;
  }
}
}  // namespace

float layoutSidePanel(Builder& b, const RoundModel& rm, Rect area) {
  const Mark start = mark(b);
  Mark at = mark(b);
  float y = linkView(b, rm, area, std::min(area.w, 210 * b.u));
  regionSince(b, "links", at);
  at = mark(b);
  y = traffic(b, rm, area, y);
  regionSince(b, "bytes", at);
  at = mark(b);
  y = roundTimes(b, rm, area, y);
  regionSince(b, "times", at);
  noteSideTexts(b, start);
  return y;
}

float layoutPanelBelow(Builder& b, const RoundModel& rm, Rect area) {
  const float u = b.u, gap = 24 * u;
  const float links_w = std::min(250 * u, area.h), rest = area.w - links_w - 2 * gap;
  const float bytes_w = rest * 0.55f, times_w = rest - bytes_w;
  const Mark start = mark(b);
  Mark at = mark(b);
  float bottom = linkView(b, rm, {area.x, area.y, links_w, area.h}, std::min(links_w, 210 * u));
  regionSince(b, "links", at);
  at = mark(b);
  const Rect bytes{area.x + links_w + gap, area.y, bytes_w, area.h};
  bottom = std::max(bottom, traffic(b, rm, bytes, bytes.y));
  regionSince(b, "bytes", at);
  at = mark(b);
  const Rect times{bytes.x + bytes_w + gap, area.y, times_w, area.h};
  bottom = std::max(bottom, roundTimes(b, rm, times, times.y));
  regionSince(b, "times", at);
  noteSideTexts(b, start);
  return bottom;
}

}  // namespace layout
}  // namespace collviz::ui
