#include "app/view/compare_model.h"

#include <algorithm>

#include "app/view/round_model.h"
#include "engine/algo/algorithms.h"

namespace collviz::ui {

namespace {

bool sameSpec(const OpSpec& a, const OpSpec& b) {
  return a.op == b.op && a.ranks == b.ranks && a.elems == b.elems && a.dtype == b.dtype &&
         a.redop == b.redop;
}

}  // namespace

CompareRow compareRow(const OpSpec& spec, const std::string& algo,
                      const std::shared_ptr<const Snapshot>& snap) {
  CompareRow row;
  row.algo = algo;
  if (!isRoundAlgo(algo, spec.op)) {
    row.error = algo + ": not a round-by-round algorithm for " + std::string(name(spec.op));
    return row;
  }
  if (Status st = algo::checkAlgorithm(algo, spec); !st.ok()) {
    row.error = st.message();
    return row;
  }
  Result<algo::Schedule> sched = algo::buildSchedule(algo, spec);
  if (!sched) {
    row.error = sched.error().message;
    return row;
  }
  const algo::Figures f = algo::figuresFor(algo, spec);
  row.formula_rounds = f.rounds;
  row.formula_bytes = f.bytes;
  row.formula_text = f.text;
  row.rounds = int(sched->rounds.size());
  for (int k = 0; k < row.rounds; ++k) {
    uint64_t most = 0;
    for (int r = 0; r < spec.ranks; ++r) most = std::max(most, sched->bytesSent(r, k));
    row.round_bytes.push_back(double(most));
  }
  uint64_t most = 0;
  for (int r = 0; r < spec.ranks; ++r) most = std::max(most, sched->bytesSent(r));
  row.bytes = double(most);

  if (!snap || snap->algo != algo || !sameSpec(snap->spec, spec)) return row;
  if (!snap->error.empty()) {
    row.run_error = snap->error;
    return row;
  }
  row.ran = true;
  row.rounds = int(snap->steps.size());
  if (!snap->bytes_sent.empty())
    row.bytes = double(*std::max_element(snap->bytes_sent.begin(), snap->bytes_sent.end()));
  row.round_bytes.clear();
  for (const StepResult& st : snap->steps) {
    std::vector<double> sent(std::size_t(spec.ranks), 0.0);
    for (const Transfer& t : st.transfers)
      if (t.from >= 0 && t.from < spec.ranks) sent[std::size_t(t.from)] += double(t.bytes);
    row.round_bytes.push_back(sent.empty() ? 0 : *std::max_element(sent.begin(), sent.end()));
    row.round_us.push_back(st.time_us);
    row.measured_us += st.time_us;
  }
  return row;
}

AlphaBeta fitAlphaBeta(const std::vector<std::pair<double, double>>& points) {
  AlphaBeta ab;
  ab.points = int(points.size());
  if (points.empty()) return ab;
  const double n = double(points.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& [x, y] : points) {
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  const double var = n * sxx - sx * sx;
  if (var > 1e-9 * std::max(1.0, sxx * n)) {
    ab.beta_us_per_byte = (n * sxy - sx * sy) / var;
    ab.alpha_us = (sy - ab.beta_us_per_byte * sx) / n;
  } else {
    ab.alpha_us = sy / n;  // every round the same size: latency only
  }
  if (ab.beta_us_per_byte < 0) {
    ab.beta_us_per_byte = 0;
    ab.alpha_us = sy / n;
  }
  if (ab.alpha_us < 0) {
    ab.alpha_us = 0;
    ab.beta_us_per_byte = sxx > 0 ? std::max(0.0, sxy / sxx) : 0;
  }
  ab.fitted = true;
  return ab;
}

double estimateUs(const CompareRow& row, const AlphaBeta& ab) {
  if (!ab.fitted || !row.error.empty()) return -1;
  double us = 0;
  for (double b : row.round_bytes) us += ab.alpha_us + ab.beta_us_per_byte * b;
  return us;
}

Comparison buildComparison(const OpSpec& spec, const std::string& a,
                           std::shared_ptr<const Snapshot> snap_a, const std::string& b,
                           std::shared_ptr<const Snapshot> snap_b) {
  Comparison c;
  c.spec = spec;
  c.rows[0] = compareRow(spec, a, snap_a);
  c.rows[1] = compareRow(spec, b, snap_b);
  std::vector<std::pair<double, double>> points;
  for (const CompareRow& r : c.rows)
    if (r.ran && r.round_us.size() == r.round_bytes.size())
      for (std::size_t k = 0; k < r.round_us.size(); ++k) points.emplace_back(r.round_bytes[k], r.round_us[k]);
  c.fit = fitAlphaBeta(points);
  for (CompareRow& r : c.rows) r.estimate_us = estimateUs(r, c.fit);
  return c;
}

std::vector<std::string> compareChoices(Op op) {
  std::vector<std::string> out;
  for (const algo::Algorithm& a : algo::algorithms())
    if (isRoundAlgo(std::string(a.name), op)) out.emplace_back(a.name);
  return out;
}

std::pair<std::string, std::string> defaultComparePair(Op op, const std::string& current) {
  const std::vector<std::string> c = compareChoices(op);
  if (c.empty()) return {"", ""};
  const bool known = std::find(c.begin(), c.end(), current) != c.end();
  const std::string first = known ? current : c.front();
  for (const std::string& s : c)
    if (s != first) return {first, s};
  return {first, first};
}

}  // namespace collviz::ui
