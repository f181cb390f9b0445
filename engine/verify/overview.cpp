#include "engine/verify/overview.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "engine/dtype.h"
#include "engine/verify/verify_fast.h"

namespace collviz {
namespace {

// Smallest and largest value of elements [from, to), in the dtype's own type
// (the loop the compiler vectorises), then as floats for the strip.
template <typename T>
void minMax(const std::byte* data, int64_t from, int64_t to, float* lo, float* hi) {
  T mn = std::numeric_limits<T>::max(), mx = std::numeric_limits<T>::lowest();
  for (int64_t i = from; i < to; ++i) {
    T v;
    std::memcpy(&v, data + std::size_t(i) * sizeof(T), sizeof(T));
    mn = v < mn ? v : mn;
    mx = v > mx ? v : mx;
  }
  *lo = float(mn);
  *hi = float(mx);
}

void minMaxAny(DType t, const std::byte* data, int64_t from, int64_t to, float* lo, float* hi) {
  switch (t) {
    case DType::f32: return minMax<float>(data, from, to, lo, hi);
    case DType::f64: return minMax<double>(data, from, to, lo, hi);
    case DType::i32: return minMax<int32_t>(data, from, to, lo, hi);
    case DType::i64: return minMax<int64_t>(data, from, to, lo, hi);
    case DType::u8: return minMax<uint8_t>(data, from, to, lo, hi);
    case DType::f16:
    case DType::bf16: {
      float mn = std::numeric_limits<float>::max(), mx = std::numeric_limits<float>::lowest();
      for (int64_t i = from; i < to; ++i) {
        const float v = float(readElement(data, t, std::size_t(i)));
        mn = std::min(mn, v);
        mx = std::max(mx, v);
      }
      *lo = mn;
      *hi = mx;
      return;
    }
  }
}

// Smallest and largest of the elements at `at` only.
template <typename T>
void minMaxAt(const std::byte* data, const std::vector<int64_t>& at, float* lo, float* hi) {
  T mn = std::numeric_limits<T>::max(), mx = std::numeric_limits<T>::lowest();
  for (int64_t i : at) {
    T v;
    std::memcpy(&v, data + std::size_t(i) * sizeof(T), sizeof(T));
    mn = v < mn ? v : mn;
    mx = v > mx ? v : mx;
  }
  *lo = float(mn);
  *hi = float(mx);
}

void minMaxAtAny(DType t, const std::byte* data, const std::vector<int64_t>& at, float* lo,
                 float* hi) {
  switch (t) {
    case DType::f32: return minMaxAt<float>(data, at, lo, hi);
    case DType::f64: return minMaxAt<double>(data, at, lo, hi);
    case DType::i32: return minMaxAt<int32_t>(data, at, lo, hi);
    case DType::i64: return minMaxAt<int64_t>(data, at, lo, hi);
    case DType::u8: return minMaxAt<uint8_t>(data, at, lo, hi);
    case DType::f16:
    case DType::bf16: {
      float mn = std::numeric_limits<float>::max(), mx = std::numeric_limits<float>::lowest();
      for (int64_t i : at) {
        const float v = float(readElement(data, t, std::size_t(i)));
        mn = std::min(mn, v);
        mx = std::max(mx, v);
      }
      *lo = mn;
      *hi = mx;
      return;
    }
  }
}

void overviewBuffer(const OpSpec& ps, const OpSpec& vs, const Pattern& p, BufferView& b,
                    const ByteSpan& bytes, const std::vector<BlockRef>& refs,
                    const std::vector<uint8_t>* closed_blocks) {
  b.overview.clear();
  if (!b.present || vs.elems <= kOverviewFrom || !bytes.data) return;
  const int64_t e = vs.elems;
  const std::size_t sz = dtypeSize(vs.dtype);
  const std::size_t blocks = bytes.size / sz / std::size_t(e);
  // Bins are re-checked only in blocks with bad elements, and only where the
  // pattern's spec is the step's (the decomposition's second step is not).
  const bool closed = ps == vs && p.kind != Pattern::Kind::plain;
  for (std::size_t j = 0; j < blocks; ++j) {
    BlockOverview o;
    o.elems = e;
    const int bins = int(std::min<int64_t>(kOverviewBins, e));
    o.lo.resize(bins);
    o.hi.resize(bins);
    const bool block_ok = j < b.labels.size() && b.labels[j].bad == 0;
    o.ok.assign(bins, block_ok ? 1 : 0);
    const std::byte* data = bytes.data + j * std::size_t(e) * sz;
    const bool is_closed = closed_blocks && j < closed_blocks->size() && (*closed_blocks)[j] &&
                           j < refs.size();
    for (int k = 0; k < bins; ++k) {
      const int64_t from = o.binFirst(k), to = o.binFirst(k + 1);
      const std::vector<int64_t> at =
          is_closed ? closedFormExtremes(ps, p, refs[j], e, from, to) : std::vector<int64_t>{};
      if (!at.empty()) minMaxAtAny(vs.dtype, data, at, &o.lo[k], &o.hi[k]);
      else minMaxAny(vs.dtype, data, from, to, &o.lo[k], &o.hi[k]);
      if (!block_ok && closed && j < refs.size())
        o.ok[k] = rangeMatchesFast(ps, p, refs[j], data, e, from, to) ? 1 : 0;
    }
    b.overview.push_back(std::move(o));
  }
}

}  // namespace

bool addOverviews(StepResult& step, const Pattern& p, const Provenance& prov,
                  const StepBytes& bytes, const CheckControl& ctl, const ClosedBlocks* closed) {
  double total = 0, done = 0;
  for (int r = 0; r < step.spec.ranks && r < int(step.ranks.size()); ++r)
    total += double(bytes.in[r].size) + double(bytes.out[r].size);
  auto advance = [&](std::size_t n) {
    done += double(n);
    if (ctl.progress && total > 0) ctl.progress(done / total);
    return !(ctl.stop && ctl.stop->load());
  };
  for (int r = 0; r < step.spec.ranks && r < int(step.ranks.size()); ++r) {
    RankResult& rr = step.ranks[r];
    if (r < int(prov.in_refs.size()))
      overviewBuffer(prov.pattern_spec, step.spec, p, rr.input, bytes.in[r], prov.in_refs[r],
                     closed && r < int(closed->in.size()) ? &closed->in[r] : nullptr);
    if (!advance(bytes.in[r].size)) return false;
    if (r < int(prov.out_refs.size()))
      overviewBuffer(prov.pattern_spec, step.spec, p, rr.output, bytes.out[r], prov.out_refs[r],
                     closed && r < int(closed->out.size()) ? &closed->out[r] : nullptr);
    if (!advance(bytes.out[r].size)) return false;
  }
  return true;
}

}  // namespace collviz
