// The job figure's parts shared by its files (job_figure.cpp: the verdict,
// the lanes and the legend; job_figure_tables.cpp: NCCL RAS and nccl-tests'
// busbw plot and table): the figure's measures and the drawing state. Internal
// to the view library.
#pragma once

#include <cstdint>
#include <string>

#include "app/view/job_figure.h"
#include "app/view/text.h"  // approxWidth

namespace collviz::ui::job_figure_parts {

constexpr float kMargin = 24, kLabelW = 52, kTilesX = 190, kTileW = 124, kTileGap = 6;
constexpr float kMinWidth = 900;  // the figure's width when nothing asks for more

struct Lane;  // one process group's rows and columns (job_figure.cpp)

struct Draw {
  const job::Job& job;
  const job::Analysis& a;
  const JobFigureParams& p;
  Theme theme;
  NcclFigure fig;
  float y = 0, right = kMinWidth;

  std::string said(const Text& t) const { return p.say ? p.say(t) : t.english(); }
  std::string said(const Said& s) const { return s.current() ? said(*s.current()) : std::string(s); }
  void text(float x, float yy, const std::string& s, float size, Rgba col, int anchor = 0, bool bold = false) {
    NcclShape t;
    t.kind = NcclShape::Kind::text, t.x0 = x, t.y0 = yy, t.text = s, t.size = size, t.fill = col, t.anchor = anchor;
    t.bold = bold;
    fig.shapes.push_back(std::move(t));
  }
  void box(float x, float yy, float w, float h, Rgba stroke, const Rgba* fill, std::string cls, std::string data = {}) {
    NcclShape t;
    t.kind = NcclShape::Kind::rect, t.x0 = x, t.y0 = yy, t.x1 = w, t.y1 = h, t.radius = 4, t.stroke = stroke;
    if (fill) t.fill = *fill, t.filled = true;
    t.cls = std::move(cls), t.data = std::move(data);
    fig.shapes.push_back(std::move(t));
    right = std::max(right, x + w + kMargin);
  }
  void line(float x0, float y0, float x1, float y1, Rgba stroke, float width, bool dashed, std::string cls) {
    NcclShape t;
    t.kind = NcclShape::Kind::line, t.x0 = x0, t.y0 = y0, t.x1 = x1, t.y1 = y1, t.stroke = stroke, t.width = width;
    t.dashed = dashed, t.cls = std::move(cls);
    fig.shapes.push_back(std::move(t));
  }
  Rgba tint(Rgba c, float t = 0.75f) const { return mix(c, theme.background, t); }
  // "started, not completed" and "entered, not started": one hue, far apart
  // in lightness on either page (in dark, 0.55 and 0.82 of the way to the
  // background were two near-blacks).
  Rgba startedFill() const { return tint(rgb(0xd9962b), theme.kind == ThemeKind::dark ? 0.35f : 0.4f); }
  Rgba enteredFill() const { return tint(rgb(0xd9962b), theme.kind == ThemeKind::dark ? 0.9f : 0.88f); }
  // The Job::calls index of rank `r`'s call `seq` in the lane; r < 0: any
  // rank's (a tile of a rank that never entered opens the others' call).
  int callOf(const Lane& l, std::int64_t seq, int r) const;
};

void drawRas(Draw& d);    // NCCL RAS: each rank's status, each communicator
void drawTests(Draw& d);  // nccl-tests: busbw against size, the table per size

}  // namespace collviz::ui::job_figure_parts
