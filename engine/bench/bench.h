// Bandwidth sweep arithmetic, as nccl-tests defines it. Pure functions: no
// engine, no I/O. The sweep runner is engine/bench_sweep.h.
//
// Words (nccl-tests' own):
//   size  (B)  the largest buffer of a rank: max(send, receive) bytes. That is
//              the whole buffer for all_reduce and broadcast, one block for
//              reduce, and N blocks (the gathered / scattered / exchanged
//              buffer) for all_gather, reduce_scatter, all_to_all, gather and
//              scatter. -b and -e are sizes.
//   count      the element count passed to the collective call: size / dtype
//              for all_reduce, broadcast and reduce; size / (N * dtype), the
//              per-rank (per-peer) part, for the other five.
//   per-rank bytes = count * dtype size.
//   S (algorithm bytes) = per-rank bytes for all_reduce, broadcast, reduce;
//              per-rank bytes * N for all_gather, reduce_scatter, all_to_all,
//              gather, scatter. S equals size for every op.
//   algbw = S / t,  busbw = algbw * factor, in GB/s (1e9 bytes), t the
//              slowest rank's average time per op. factor: 2(N-1)/N for
//              all_reduce; (N-1)/N for all_gather, reduce_scatter, all_to_all,
//              gather, scatter; 1 for broadcast and reduce.
//
// collviz's OpSpec counts elements per block (E); a rank's buffers are 1 or N
// blocks (spec.h), so a size maps to E = size / (blocks * dtype), rounded
// down, at least 1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/spec.h"
#include "engine/text.h"

namespace collviz {

// Blocks of E elements in `size`: 1 for reduce, N for every other op.
int sizeBlocks(Op op, int ranks);
// nccl-tests' count for `spec`, in elements (see above).
int64_t benchCount(const OpSpec& s);
// count * dtype size.
std::size_t perRankBytes(const OpSpec& s);
// S from the per-rank bytes: * N for the gathering/scattering ops, else * 1.
double algBytes(Op op, int ranks, double per_rank_bytes);
// The size column for `spec` (equals algBytes(op, N, perRankBytes(spec))).
std::size_t sizeBytes(const OpSpec& s);
// busbw / algbw, and how it is written ("2(N-1)/N").
double busBandwidthFactor(Op op, int ranks);
std::string_view busBandwidthFactorText(Op op);
// GB/s (1e9) for `bytes` moved in `us` microseconds; 0 when us <= 0.
double bandwidthGBs(double bytes, double us);
// Elements per block for a requested size: floor(size / (blocks * dtype)), >= 1.
int64_t elemsForSize(Op op, int ranks, DType t, std::size_t size);

// "8", "64K", "128M", "1G" (nccl-tests: K, M, G are powers of 1024; an
// optional trailing B or iB is accepted). Error names the text.
Result<std::size_t> parseSize(std::string_view text);
// 134217728 -> "128M", 1000 -> "1000" (exact powers-of-1024 multiples only).
std::string formatSize(std::size_t bytes);

// A sweep's parameters (nccl-tests' -b -e -f -n -w -c and the op spec).
struct BenchConfig {
  std::vector<Op> ops{Op::all_reduce};
  int ranks = 4;
  DType dtype = DType::f32;
  RedOp redop = RedOp::sum;
  int root = 0;
  BackendKind backend = BackendKind::automatic;
  std::size_t min_bytes = 8;                  // -b
  std::size_t max_bytes = std::size_t(32) << 20;  // -e
  int factor = 2;                             // -f: size *= factor
  int iters = 20;                             // -n: timed iterations per size
  int warmup = 5;                             // -w: untimed iterations first
  int check = 1;                              // -c: iterations checked (see bench_sweep.h)
  std::string algo = "native";                // engine/algo/: a schedule run back to back
  int elems_multiple = 1;  // an algorithm file's chunks per block: elems rounded up to a multiple
};

// Names the bad field and the allowed range (ops, sizes, factor, counts).
Status validate(const BenchConfig& c);
// The elems a sweep runs for `size`: elemsForSize, up to c.elems_multiple.
int64_t elemsForPoint(const BenchConfig& c, Op op, std::size_t size);

// One measurement to make.
struct BenchPoint {
  OpSpec spec;       // elems set from the size
  std::size_t size;  // sizeBytes(spec), the size actually run
};
// Sizes min, min*f, ... <= max for each op in order; sizes that round to the
// previous point's are skipped (small sizes with many ranks).
std::vector<BenchPoint> planSweep(const BenchConfig& c);

// Refuse points the backend cannot hold (caps.max_rank_bytes on input +
// output), and anything else the backend refuses (dtype, redop, ranks), with
// the limit and the largest size allowed.
Status checkAgainstBackend(const std::vector<BenchPoint>& plan, const BackendCaps& caps);
// Largest size of `op` whose input + output fit in caps.max_rank_bytes.
std::size_t maxSizeFor(Op op, int ranks, DType t, const BackendCaps& caps);

}  // namespace collviz
