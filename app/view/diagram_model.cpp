#include "app/view/diagram_model.h"
#include "app/lang/lang.h"
#include "app/view/rank_hosts.h"

#include <algorithm>
#include <bit>

#include "engine/collectives.h"

namespace collviz::ui {

FlowKind flowKind(Op op) { return collective(op).flow; }

const BufferView* DiagramModel::buffer(int column, int rank) const {
  if (!snapshot || column < 0 || column >= int(columns.size())) return nullptr;
  const ColumnModel& c = columns[column];
  if (c.expected || c.step >= int(snapshot->steps.size())) return nullptr;
  const StepResult& step = snapshot->steps[c.step];
  if (rank < 0 || rank >= int(step.ranks.size())) return nullptr;
  return c.output_side ? &step.ranks[rank].output : &step.ranks[rank].input;
}

bool snapshotMatches(const Snapshot& snap, Program program, const OpSpec& spec) {
  if (snap.program != program) return false;
  const OpSpec& s = snap.spec;
  if (s.ranks != spec.ranks || s.elems != spec.elems || s.dtype != spec.dtype) return false;
  if (program == Program::single && s.op != spec.op) return false;
  bool uses_redop = program != Program::single || reduces(spec.op);
  if (uses_redop && s.redop != spec.redop) return false;
  if (program == Program::single && usesRoot(spec.op) && s.root != spec.root) return false;
  return true;
}

std::vector<BlockLabel> expectedInputLabels(const OpSpec& spec, int rank) {
  std::vector<BlockLabel> out;
  for (const BlockRef& ref : inputRefs(spec, rank)) {
    BlockLabel l;
    l.kind = BlockLabel::Kind::source;
    l.letter = blockLetter(spec.op, ref);
    l.shard = blockShard(spec, ref);
    l.contributors = ref.ranks;
    out.push_back(l);
  }
  return out;
}

BlockLabel composeLabel(const BlockRef& ref, const std::vector<RowModel>& previous,
                        const OpSpec& gap) {
  auto prevLabel = [&](int rank) -> const BlockLabel* {
    if (rank < 0 || rank >= int(previous.size())) return nullptr;
    const auto& labels = previous[rank].labels;
    return ref.block < int(labels.size()) ? &labels[ref.block] : nullptr;
  };
  if (!ref.reduced && std::popcount(ref.ranks) == 1) {
    if (const BlockLabel* p = prevLabel(std::countr_zero(ref.ranks))) return *p;
  }
  // A combination: Σ at the oracle's shard, naming everyone whose data it holds.
  BlockLabel l;
  l.kind = BlockLabel::Kind::reduced;
  l.shard = blockShard(gap, ref);
  for (int r = 0; r < 32; ++r) {
    if (!(ref.ranks & (1u << r))) continue;
    const BlockLabel* p = prevLabel(r);
    l.contributors |= p ? p->contributors : (1u << r);
  }
  return l;
}

namespace {

RowModel rowFromBuffer(const BufferView& b, std::vector<BlockLabel> expected) {
  RowModel row;
  row.present = b.present;
  // Labels come from the backend's bytes; when a buffer carries none (an
  // error path), the expected ones stand in so the shape still shows.
  row.labels = !b.labels.empty() ? b.labels : std::move(expected);
  if (!row.present) row.labels.clear();
  return row;
}

void addRefs(ColumnModel& col, const OpSpec& gap) {
  for (int r = 0; r < int(col.rows.size()); ++r) col.rows[r].refs = expectedOutputRefs(gap, r);
}

ColumnModel expectedOutputColumn(const ColumnModel& prev, const OpSpec& gap) {
  ColumnModel col;
  col.expected = true;
  col.output_side = true;
  for (int r = 0; r < gap.ranks; ++r) {
    RowModel row;
    row.refs = expectedOutputRefs(gap, r);
    row.present = !row.refs.empty();
    for (const BlockRef& ref : row.refs) row.labels.push_back(composeLabel(ref, prev.rows, gap));
    col.rows.push_back(std::move(row));
  }
  return col;
}

}  // namespace

int maxBlocks(const ColumnModel& c) {
  int n = 1;
  for (const RowModel& r : c.rows) n = std::max(n, int(r.labels.size()));
  return n;
}

DiagramModel buildModel(Program program, const OpSpec& spec, std::shared_ptr<const Snapshot> snap) {
  DiagramModel m;
  m.program = program;
  m.spec = spec;
  size_t steps_needed = program == Program::single ? 1 : 2;
  if (snap && snap->error.empty() && snap->steps.size() >= steps_needed &&
      snapshotMatches(*snap, program, spec)) {
    m.snapshot = snap;
    m.hosts = rankHosts(*snap, spec.ranks);
  }

  // The gaps: one op, or reduce-scatter then all-gather.
  if (program == Program::single) {
    m.gaps.push_back({spec, flowKind(spec.op), ""});
  } else {
    OpSpec rs = spec, ag = spec;
    rs.op = Op::reduce_scatter;
    ag.op = Op::all_gather;
    if (m.snapshot) {
      rs = m.snapshot->steps[0].spec;
      ag = m.snapshot->steps[1].spec;
    }
    m.gaps.push_back({rs, FlowKind::sum_node, "Reduce-scatter"});
    m.gaps.push_back({ag, FlowKind::concat_node, "All-gather"});
  }

  // Expected shape first (it also supplies labels a result may lack).
  ColumnModel input;
  input.title = tr("Input");
  input.expected = true;
  for (int r = 0; r < spec.ranks; ++r) {
    RowModel row;
    row.labels = expectedInputLabels(m.gaps[0].spec, r);
    row.present = !row.labels.empty();
    input.rows.push_back(std::move(row));
  }
  m.columns.push_back(std::move(input));
  for (const GapModel& g : m.gaps) m.columns.push_back(expectedOutputColumn(m.columns.back(), g.spec));

  if (program == Program::single) {
    m.columns[1].title = tr("Output");
  } else {
    m.columns[1].title = tr("after reduce-scatter");
    m.columns[1].subtitle = tr("one shard each");
    m.columns[2].title = tr("after all-gather");
    m.columns[2].subtitle = tr("a full copy each");
  }

  if (m.snapshot) {
    // Replace each column's rows with what the backend returned.
    for (int c = 0; c < int(m.columns.size()); ++c) {
      ColumnModel& col = m.columns[c];
      col.step = c == 0 ? 0 : c - 1;
      col.output_side = c > 0;
      const StepResult& step = m.snapshot->steps[col.step];
      for (int r = 0; r < int(col.rows.size()) && r < int(step.ranks.size()); ++r) {
        const RankResult& rr = step.ranks[r];
        std::vector<BlockRef> refs = std::move(col.rows[r].refs);
        col.rows[r] = rowFromBuffer(c > 0 ? rr.output : rr.input, col.rows[r].labels);
        col.rows[r].refs = std::move(refs);
      }
      col.expected = false;
    }
  } else {
    for (size_t c = 1; c < m.columns.size(); ++c) {
      std::string& sub = m.columns[c].subtitle;
      sub = sub.empty() ? tr("not yet run") : sub + " · " + tr("not yet run");
    }
  }
  for (size_t c = 1; c < m.columns.size(); ++c) addRefs(m.columns[c], m.gaps[c - 1].spec);
  return m;
}

}  // namespace collviz::ui
