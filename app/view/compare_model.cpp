#include "app/view/compare_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "app/lang/lang.h"
#include "app/view/round_model.h"
#include "engine/algo/algorithms.h"
#include "engine/algo/msccl/msccl.h"

namespace collviz::ui {

CompareRow compareRow(const OpSpec& spec, const std::string& algo) {
  CompareRow row;
  row.algo = algo;
  if (!isRoundAlgo(algo, spec.op)) {
    row.error = trf("{0}: not a round-by-round algorithm for {1}", {algo, std::string(name(spec.op))});
    return row;
  }
  Result<algo::Schedule> sched = algo::buildSchedule(algo, spec);
  if (!sched) {
    row.error = render(sched.error());
    return row;
  }
  const algo::Figures f = algo::figuresFor(algo, spec);
  row.formula_rounds = f.rounds;
  row.formula_bytes = f.bytes;
  row.formula_text = render(f.text);
  row.rounds = sched->messageRounds();
  for (int k = 0; k < int(sched->rounds.size()); ++k) {
    if (sched->rounds[std::size_t(k)].local()) continue;
    uint64_t most = 0;
    for (int r = 0; r < spec.ranks; ++r) most = std::max(most, sched->bytesSent(r, k));
    row.round_bytes.push_back(double(most));
    row.model_bytes += double(most);
  }
  uint64_t most = 0;
  for (int r = 0; r < spec.ranks; ++r) most = std::max(most, sched->bytesSent(r));
  row.bytes = double(most);
  return row;
}

// "α = 35.2 ± 3.1 µs per message round" or "α not determined".
std::string fitText(const AlphaBeta& f) {
  char buf[200];
  std::string out;
  if (f.alpha_ok) {
    std::snprintf(buf, sizeof buf, "%.1f ± %.1f", f.alpha_us, f.alpha_se);
    out = trf("α = {0} µs per message round", {buf});
  } else {
    out = tr("α not determined by these points");
  }
  out += "; ";
  if (f.beta_ok) {
    std::snprintf(buf, sizeof buf, "%.3g ± %.2g", f.beta_us_per_byte * 1e3, f.beta_se * 1e3);
    char bw[32];
    std::snprintf(bw, sizeof bw, "%.2f", 1e-3 / f.beta_us_per_byte);
    out += trf("β = {0} ns/B ({1} GB/s)", {buf, bw});
  } else {
    out += tr("β not determined by these points");
  }
  return out;
}


double medianOf(std::vector<double> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

namespace {

// One term alone (the other not determined): t/t ≈ c · x.
void fitOne(const std::vector<ModelPoint>& pts, bool alpha, AlphaBeta& ab) {
  double sxx = 0, sx = 0;
  for (const ModelPoint& p : pts) {
    const double x = (alpha ? p.messages : p.bytes) / p.us;
    sxx += x * x;
    sx += x;
  }
  if (sxx <= 0) return;
  const double c = sx / sxx;
  double rss = 0;
  for (const ModelPoint& p : pts) rss += std::pow(c * (alpha ? p.messages : p.bytes) / p.us - 1, 2);
  const double se = pts.size() > 1 ? std::sqrt(rss / double(pts.size() - 1) / sxx) : c;
  const bool ok = c > 0 && se <= 0.5 * c;
  (alpha ? ab.alpha_us : ab.beta_us_per_byte) = ok ? c : 0;
  (alpha ? ab.alpha_se : ab.beta_se) = se;
  (alpha ? ab.alpha_ok : ab.beta_ok) = ok;
}

}  // namespace

AlphaBeta fitAlphaBeta(const std::vector<ModelPoint>& all) {
  AlphaBeta ab;
  std::vector<ModelPoint> pts;
  for (const ModelPoint& p : all)
    if (p.us > 0 && std::isfinite(p.us)) pts.push_back(p);
  ab.points = int(pts.size());
  if (pts.size() < 2) return ab;
  // Weighted least squares on relative error: rows (R/t, B/t), target 1.
  double a11 = 0, a12 = 0, a22 = 0, b1 = 0, b2 = 0;
  for (const ModelPoint& p : pts) {
    const double x1 = p.messages / p.us, x2 = p.bytes / p.us;
    a11 += x1 * x1, a12 += x1 * x2, a22 += x2 * x2, b1 += x1, b2 += x2;
  }
  const double det = a11 * a22 - a12 * a12;
  if (!(det > 1e-9 * a11 * a22)) return ab;  // collinear: the points cannot tell α from β
  const double alpha = (a22 * b1 - a12 * b2) / det, beta = (a11 * b2 - a12 * b1) / det;
  double rss = 0;
  for (const ModelPoint& p : pts) rss += std::pow((alpha * p.messages + beta * p.bytes) / p.us - 1, 2);
  const double s2 = pts.size() > 2 ? rss / double(pts.size() - 2) : 0;
  ab.alpha_us = alpha;
  ab.beta_us_per_byte = beta;
  ab.alpha_se = std::sqrt(s2 * a22 / det);
  ab.beta_se = std::sqrt(s2 * a11 / det);
  ab.alpha_ok = alpha > 0 && ab.alpha_se <= 0.5 * alpha;
  ab.beta_ok = beta > 0 && ab.beta_se <= 0.5 * beta;
  if (ab.alpha_ok != ab.beta_ok) {  // keep the determined term, refitted alone
    const bool keep_alpha = ab.alpha_ok;
    (keep_alpha ? ab.beta_us_per_byte : ab.alpha_us) = 0;
    fitOne(pts, keep_alpha, ab);
  } else if (!ab.alpha_ok) {
    ab.alpha_us = ab.beta_us_per_byte = 0;
  }
  if (ab.fitted()) {
    double sq = 0;
    for (const ModelPoint& p : pts) sq += std::pow(modelUs(ab, p.messages, p.bytes) / p.us - 1, 2);
    ab.rms_rel_error = std::sqrt(sq / double(pts.size()));
  }
  return ab;
}

double modelUs(const AlphaBeta& ab, double messages, double bytes) {
  return (ab.alpha_ok ? ab.alpha_us * messages : 0) + (ab.beta_ok ? ab.beta_us_per_byte * bytes : 0);
}

std::vector<int64_t> sweepElems(const OpSpec& spec) {
  const int64_t es = int64_t(dtypeSize(spec.dtype));
  std::vector<int64_t> out{spec.elems};
  // The largest block keeps every rank's buffers (up to 2N slots, pairwise)
  // within about 128 MiB in all: 1 MiB up to N = 11, 128 KiB at N = 32.
  const int64_t n = std::max(1, spec.ranks);
  int64_t top = int64_t(1) << 20;
  while (top > (int64_t(128) << 10) && top * n * n > (int64_t(128) << 20)) top /= 2;
  for (int64_t bytes : {int64_t(64), int64_t(8) << 10, int64_t(128) << 10, top})
    out.push_back(std::max<int64_t>(1, bytes / es));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<ModelPoint> modelPoints(const std::vector<SweepSeries>& series) {
  std::vector<ModelPoint> out;
  for (const SweepSeries& s : series)
    for (const SizePoint& p : s.sizes)
      if (p.median_us > 0) out.push_back({double(s.messages), p.model_bytes, p.median_us});
  return out;
}

std::vector<std::string> compareChoices(Op op, int ranks) {
  std::vector<std::string> out;
  for (const algo::Algorithm& a : algo::algorithms())
    if (isRoundAlgo(std::string(a.name), op)) out.emplace_back(a.name);
  for (const auto& f : algo::mscclFiles())
    if (f->op == op && (ranks == 0 || f->ngpus == ranks)) out.push_back(algo::mscclAlgoName(*f));
  return out;
}

std::vector<int64_t> splittable(std::vector<int64_t> elems, const std::vector<std::string>& algos) {
  int64_t m = 1;
  for (const std::string& a : algos)
    if (auto f = algo::findMscclFile(a)) m = std::lcm(m, int64_t(std::max(1, f->parts)));
  for (int64_t& e : elems) e = (e + m - 1) / m * m;
  std::sort(elems.begin(), elems.end());
  elems.erase(std::unique(elems.begin(), elems.end()), elems.end());
  return elems;
}

std::pair<std::string, std::string> defaultComparePair(Op op, const std::string& current, int ranks) {
  const std::vector<std::string> c = compareChoices(op, ranks);
  if (c.empty()) return {"", ""};
  const bool known = std::find(c.begin(), c.end(), current) != c.end();
  const std::string first = known ? current : c.front();
  for (const std::string& s : c)
    if (s != first) return {first, s};
  return {first, first};
}

}  // namespace collviz::ui
