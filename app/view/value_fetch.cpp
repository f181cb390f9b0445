#include "app/view/value_fetch.h"

#include <algorithm>
#include <cstdio>

#include "app/lang/lang.h"

namespace collviz::ui {

namespace {

constexpr std::size_t kCacheEntries = 64;

std::string join(const std::vector<double>& v) {
  std::string out;
  char buf[32];
  for (std::size_t k = 0; k < v.size(); ++k) {
    std::snprintf(buf, sizeof buf, "%s%g", k ? ", " : "", v[k]);
    out += buf;
  }
  return out;
}

}  // namespace

int64_t elementAt(int64_t elems, float x) {
  if (elems <= 0) return 0;
  return std::clamp<int64_t>(int64_t(double(x) * double(elems)), 0, elems - 1);
}

std::string ValueFetcher::line(const DiagramModel& m, int column, int rank, int block,
                               int64_t in_block, int64_t count) {
  const BufferView* b = m.buffer(column, rank);
  if (!b || !m.snapshot || count <= 0) return "";
  const OpSpec& spec = m.snapshot->steps[std::size_t(m.columns[std::size_t(column)].step)].spec;
  const DType t = spec.dtype;
  const int64_t e = spec.elems, total = int64_t(b->count(t));
  if (in_block < 0 || in_block >= e || block < 0) return "";
  const int64_t first = int64_t(block) * e + in_block;
  if (first >= total) return "";
  count = std::min({count, total - first, e - in_block});
  const std::string range = trf("elements {0}–{1} (exact): ",
                                {std::to_string(in_block), std::to_string(in_block + count - 1)});
  // Held in the snapshot: no need to ask.
  bool held = true;
  for (int64_t i = first; i < first + count && held; ++i) held = b->holds(std::size_t(i), t);
  if (held) {
    std::vector<double> v;
    for (int64_t i = first; i < first + count; ++i) v.push_back(b->value(std::size_t(i), t));
    return range + join(v);
  }
  const uint64_t seq = m.snapshot->seq;
  for (const Entry& e : cache_)
    if (e.seq == seq && e.column == column && e.rank == rank && e.first == first && e.count == count)
      return e.text;
  const ColumnModel& c = m.columns[std::size_t(column)];
  ++fetches_;
  const FetchedValues f = runner_.fetchValues(
      seq, c.step, rank, c.output_side ? BufferSide::output : BufferSide::input, first, count);
  std::string text;
  if (f.status == FetchedValues::Status::ok) {
    std::vector<double> v;
    for (std::size_t k = 0; k < f.count(); ++k) v.push_back(f.value(k));
    text = range + join(v);
  } else if (f.status == FetchedValues::Status::stale) {
    text = tr("exact values: a newer run has used the ranks' memory since (Space runs this again)");
  } else {
    text = tr("exact values: not kept for this run");
  }
  // An answer stays true for its snapshot: values read then were its values,
  // and a run that is stale or kept nothing stays so.
  cache_.push_back({seq, column, rank, first, count, text});
  if (cache_.size() > kCacheEntries) cache_.pop_front();
  return text;
}

}  // namespace collviz::ui
