#include "app/view/trace.h"

namespace collviz::ui {

bool TraceSets::block(int c, int r, int b) const {
  if (!active) return true;
  if (c < 0 || c >= int(lit.size()) || r < 0 || r >= int(lit[c].size())) return false;
  return b >= 0 && b < int(lit[c][r].size()) && lit[c][r][b];
}

bool TraceSets::row(int c, int r) const {
  if (!active) return true;
  if (c < 0 || c >= int(lit.size()) || r < 0 || r >= int(lit[c].size())) return false;
  for (bool b : lit[c][r]) if (b) return true;
  return false;
}

bool TraceSets::pair(int g, int s, int d) const {
  if (!active) return true;
  if (g < 0 || g >= int(gaps.size()) || s < 0 || s >= int(gaps[g].pair.size())) return false;
  return d >= 0 && d < int(gaps[g].pair[s].size()) && gaps[g].pair[s][d];
}

bool TraceSets::intoNode(int g, int s) const {
  if (!active) return true;
  return g >= 0 && g < int(gaps.size()) && s >= 0 && s < int(gaps[g].into_node.size()) &&
         gaps[g].into_node[s];
}

bool TraceSets::fromNode(int g, int d) const {
  if (!active) return true;
  return g >= 0 && g < int(gaps.size()) && d >= 0 && d < int(gaps[g].from_node.size()) &&
         gaps[g].from_node[d];
}

TraceSets computeTrace(const DiagramModel& m, int rank, TraceMode mode) {
  TraceSets t;
  const int columns = int(m.columns.size());
  const int ranks = m.spec.ranks;
  t.active = rank >= 0 && rank < ranks && columns >= 2;
  t.lit.resize(columns);
  for (int c = 0; c < columns; ++c)
    for (const RowModel& row : m.columns[c].rows) t.lit[c].emplace_back(row.labels.size(), false);
  t.gaps.resize(columns > 0 ? columns - 1 : 0);
  for (GapTrace& g : t.gaps) {
    g.pair.assign(ranks, std::vector<bool>(ranks, false));
    g.into_node.assign(ranks, false);
    g.from_node.assign(ranks, false);
  }
  if (!t.active) return t;

  auto inRange = [&](int c, int r, int b) {
    return r >= 0 && r < int(t.lit[c].size()) && b >= 0 && b < int(t.lit[c][r].size());
  };
  // Mark the link from block (s, ref.block) of column c-1 to (r, b) of column c.
  auto link = [&](int c, int s, int r) {
    GapTrace& g = t.gaps[c - 1];
    g.pair[s][r] = true;
    g.into_node[s] = true;
    g.from_node[r] = true;
  };

  if (mode == TraceMode::reaches) {
    for (size_t b = 0; b < t.lit[columns - 1][rank].size(); ++b) t.lit[columns - 1][rank][b] = true;
    for (int c = columns - 1; c >= 1; --c) {
      const ColumnModel& col = m.columns[c];
      for (int r = 0; r < int(col.rows.size()); ++r) {
        const RowModel& row = col.rows[r];
        for (int b = 0; b < int(row.refs.size()) && b < int(t.lit[c][r].size()); ++b) {
          if (!t.lit[c][r][b]) continue;
          for (int s = 0; s < ranks && s < 32; ++s) {
            if (!(row.refs[b].ranks & (1u << s)) || !inRange(c - 1, s, row.refs[b].block)) continue;
            t.lit[c - 1][s][row.refs[b].block] = true;
            link(c, s, r);
          }
        }
      }
    }
  } else {
    for (size_t b = 0; b < t.lit[0][rank].size(); ++b) t.lit[0][rank][b] = true;
    for (int c = 1; c < columns; ++c) {
      const ColumnModel& col = m.columns[c];
      for (int r = 0; r < int(col.rows.size()); ++r) {
        const RowModel& row = col.rows[r];
        for (int b = 0; b < int(row.refs.size()) && b < int(t.lit[c][r].size()); ++b) {
          for (int s = 0; s < ranks && s < 32; ++s) {
            if (!(row.refs[b].ranks & (1u << s)) || !inRange(c - 1, s, row.refs[b].block)) continue;
            if (!t.lit[c - 1][s][row.refs[b].block]) continue;
            t.lit[c][r][b] = true;
            link(c, s, r);
          }
        }
      }
    }
  }
  return t;
}

}  // namespace collviz::ui
