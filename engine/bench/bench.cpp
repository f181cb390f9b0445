#include "engine/bench/bench.h"

#include <algorithm>
#include <cctype>
#include <limits>

#include "engine/collectives.h"

namespace collviz {

int sizeBlocks(Op op, int ranks) {
  const Collective& c = collective(op);
  return c.per_peer ? ranks : blockCount(c.count_blocks, ranks);
}

int64_t benchCount(const OpSpec& s) {
  // all_reduce and broadcast pass the whole N-block buffer; reduce its one
  // block; the others the per-rank (per-peer) block.
  const Collective& c = collective(s.op);
  return c.per_peer ? s.elems : int64_t(blockCount(c.count_blocks, s.ranks)) * s.elems;
}

std::size_t perRankBytes(const OpSpec& s) {
  return std::size_t(benchCount(s)) * dtypeSize(s.dtype);
}

double algBytes(Op op, int ranks, double per_rank_bytes) {
  return collective(op).per_peer ? per_rank_bytes * ranks : per_rank_bytes;
}

std::size_t sizeBytes(const OpSpec& s) {
  return std::size_t(sizeBlocks(s.op, s.ranks)) * std::size_t(s.elems) * dtypeSize(s.dtype);
}

double busBandwidthFactor(Op op, int ranks) { return collective(op).bus.at(ranks); }

std::string_view busBandwidthFactorText(Op op) { return collective(op).bus.text; }

double bandwidthGBs(double bytes, double us) { return us > 0 ? bytes / (us * 1e3) : 0.0; }

int64_t elemsForSize(Op op, int ranks, DType t, std::size_t size) {
  const std::size_t unit = std::size_t(sizeBlocks(op, ranks)) * dtypeSize(t);
  return std::max<int64_t>(1, int64_t(size / unit));
}

int64_t elemsForPoint(const BenchConfig& c, Op op, std::size_t size) {
  const int64_t m = std::max(1, c.elems_multiple), e = elemsForSize(op, c.ranks, c.dtype, size);
  return (e + m - 1) / m * m;
}

Result<std::size_t> parseSize(std::string_view text) {
  auto bad = [&] {
    return Error{say("size \"{0}\" is not a size; allowed: a whole number of bytes, optionally "
                     "with K, M or G (powers of 1024), e.g. 8, 64K, 128M",
                     text)};
  };
  std::string_view t = text;
  if (t.empty() || !std::isdigit(static_cast<unsigned char>(t[0]))) return bad();
  std::size_t i = 0, v = 0;
  for (; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); ++i) {
    if (v > (std::numeric_limits<std::size_t>::max() - 9) / 10) return bad();
    v = v * 10 + std::size_t(t[i] - '0');
  }
  std::string unit;
  for (; i < t.size(); ++i) unit += char(std::toupper(static_cast<unsigned char>(t[i])));
  int shift = 0;
  if (unit.empty() || unit == "B") shift = 0;
  else if (unit == "K" || unit == "KB" || unit == "KIB") shift = 10;
  else if (unit == "M" || unit == "MB" || unit == "MIB") shift = 20;
  else if (unit == "G" || unit == "GB" || unit == "GIB") shift = 30;
  else return bad();
  if (shift && v > (std::numeric_limits<std::size_t>::max() >> shift)) return bad();
  return v << shift;
}

std::string formatSize(std::size_t bytes) {
  const char* units[] = {"G", "M", "K"};
  const int shifts[] = {30, 20, 10};
  for (int k = 0; k < 3; ++k) {
    const std::size_t one = std::size_t(1) << shifts[k];
    if (bytes >= one && bytes % one == 0) return std::to_string(bytes / one) + units[k];
  }
  return std::to_string(bytes);
}

Status validate(const BenchConfig& c) {
  if (c.ops.empty()) return Error{say("op: none chosen; allowed: {0}, all", allowedOps())};
  if (c.min_bytes < 1)
    return Error{say("-b 0 is out of range; allowed: 1 byte or more")};
  if (c.max_bytes < c.min_bytes)
    return Error{say("-e {0} is below -b {1}; allowed: -e >= -b", formatSize(c.max_bytes),
                     formatSize(c.min_bytes))};
  if (c.factor < 2 || c.factor > 1024)
    return Error{say("-f {0} is out of range; allowed: 2 to 1024", c.factor)};
  if (c.iters < 1 || c.iters > 100000)
    return Error{say("-n {0} is out of range; allowed: 1 to 100000", c.iters)};
  if (c.warmup < 0 || c.warmup > 100000)
    return Error{say("-w {0} is out of range; allowed: 0 to 100000", c.warmup)};
  if (c.check < 0 || c.check > c.iters)
    return Error{say("-c {0} is out of range; allowed: 0 to -n ({1})", c.check, c.iters)};
  for (Op op : c.ops) {
    OpSpec s;
    s.op = op;
    s.ranks = c.ranks;
    s.elems = 1;
    s.dtype = c.dtype;
    s.redop = c.redop;
    s.root = c.root;
    if (Status st = validate(s); !st) return Error{say("--{0}", st.text())};
  }
  return {};
}

std::vector<BenchPoint> planSweep(const BenchConfig& c) {
  std::vector<BenchPoint> out;
  for (Op op : c.ops) {
    std::size_t last = 0;
    for (std::size_t size = c.min_bytes; size <= c.max_bytes;) {
      OpSpec s;
      s.op = op;
      s.ranks = c.ranks;
      s.dtype = c.dtype;
      s.redop = c.redop;
      s.root = c.root;
      s.elems = elemsForPoint(c, op, size);
      const std::size_t actual = sizeBytes(s);
      if (actual != last) out.push_back({s, actual});
      last = actual;
      if (size > c.max_bytes / std::size_t(c.factor)) break;  // the next would pass -e
      size *= std::size_t(c.factor);
    }
  }
  return out;
}

std::size_t maxSizeFor(Op op, int ranks, DType t, const BackendCaps& caps) {
  // The engine's cap (validate in spec.cpp): ranks * elems * dtype * 2 bytes.
  const std::size_t elems = caps.max_rank_bytes / (2 * std::size_t(ranks) * dtypeSize(t));
  return std::size_t(sizeBlocks(op, ranks)) * elems * dtypeSize(t);
}

Status checkAgainstBackend(const std::vector<BenchPoint>& plan, const BackendCaps& caps) {
  for (const BenchPoint& p : plan) {
    const OpSpec& s = p.spec;
    const std::size_t limit = maxSizeFor(s.op, s.ranks, s.dtype, caps);
    if (p.size > limit)
      return Error{say("-e: {0} of {1} B ({2}) with {3} ranks is more than backend {4} can hold "
                       "({5} B of input + output per rank); allowed: -e <= {6} ({7}) for {0} {8} "
                       "on {3} ranks",
                       name(s.op), p.size, formatSize(p.size), s.ranks, caps.name,
                       caps.max_rank_bytes, limit, formatSize(limit), name(s.dtype))};
    if (Status st = validate(s, caps); !st) return Error{say("--{0}", st.text())};
  }
  return {};
}

}  // namespace collviz
