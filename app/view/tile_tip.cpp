#include "app/view/tile_tip.h"

#include <algorithm>
#include <cstdio>

#include "app/lang/lang.h"

namespace collviz::ui {

TileTip tileTip(const DiagramModel& m, const HitBox& hit) {
  TileTip t;
  const ColumnModel& column = m.columns[hit.column];
  const BlockLabel& l = column.rows[hit.row].labels[hit.block];
  const OpSpec& spec = m.spec;
  t.head = "R" + std::to_string(hit.row) + " · " + column.title + " " +
           trf("block {0}", {std::to_string(hit.block)}) + ":  " + l.text(spec.redop);
  std::string who;
  for (int r = 0; r < 32; ++r)
    if (l.contributors & (1u << r)) who += (who.empty() ? "R" : ", R") + std::to_string(r);
  t.who = trf("contributors: {0}", {who.empty() ? tr("none") : who});
  t.expected = column.expected;
  if (column.expected) {
    t.source = tr("expected shape (oracle) — not yet run");
    return t;
  }
  t.source = tr(l.decoded ? "label decoded from the returned bytes"
                          : "label from the oracle (values beyond the provenance pattern)");
  if (l.bad > 0) t.bad = trf("{0} element(s) failed verification", {std::to_string(l.bad)});
  if (const BufferView* b = m.buffer(hit.column, hit.row)) {
    // Values of this block: E elements starting at block * E.
    std::string vals;
    const int64_t e = spec.elems, shown = std::min<int64_t>(e, 16);
    for (int64_t i = 0; i < shown; ++i) {
      const size_t idx = size_t(hit.block * e + i);
      if (!b->holds(idx, spec.dtype)) break;
      char buf[32];
      std::snprintf(buf, sizeof buf, "%s%g", i ? ", " : "", b->value(idx, spec.dtype));
      vals += buf;
    }
    if (shown < e) vals += ", … (" + trf("{0} elements", {std::to_string(e)}) + ")";
    t.values = trf("values ({0}): {1}", {std::string(name(spec.dtype)), vals});
  }
  return t;
}

std::string tileTipText(const TileTip& t) {
  std::string s = t.head + "\n" + t.who + "\n" + t.source;
  if (!t.bad.empty()) s += "\n" + t.bad;
  if (!t.values.empty()) s += "\n" + t.values;
  return s;
}

}  // namespace collviz::ui

namespace collviz::ui {

std::string figureDesc(const DiagramModel& m) {
  std::string s;
  for (const ColumnModel& c : m.columns) {
    if (!s.empty()) s += " ";
    s += c.title + (c.subtitle.empty() ? "" : " (" + c.subtitle + ")") + ":";
    for (std::size_t r = 0; r < c.rows.size(); ++r) {
      s += (r ? "; R" : " R") + std::to_string(r);
      const RowModel& row = c.rows[r];
      if (!row.present || row.labels.empty()) s += " —";
      for (const BlockLabel& l : row.labels) s += " " + l.text(m.spec.redop);
    }
    s += ".";
  }
  return s;
}

}  // namespace collviz::ui
