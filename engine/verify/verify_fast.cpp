#include "engine/verify/verify_fast.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include "engine/dtype.h"

namespace collviz {
namespace {

// Below this many elements a block is checked on the calling thread: thread
// start-up would cost more than the check.
constexpr int64_t kParallelElems = int64_t(1) << 18;

uint32_t rotl(uint32_t set, int by, int n) {
  if (by == 0) return set;
  const uint32_t mask = n >= 32 ? ~0u : (1u << n) - 1u;
  return ((set << by) | (set >> (n - by))) & mask;
}

// Elements are checked in chunks: the expected chunk is generated (a loop
// the compiler vectorises) and compared with memcmp.
constexpr int64_t kChunk = 4096;

// value = a * (code mod K) + b[code mod N], then rounded as the dtype rounds
// it; for avg divided by N first (the oracle's order). Every element of a
// pattern block has this form (see provenance.h). N divides K, or codes never
// wrap (full), so code mod N is (code mod K) mod N.
struct ClosedForm {
  double a = 0;
  std::array<double, 32> b{};
  std::vector<double> b_run;  // b[m mod N] for m < kChunk + N: no modulo in the loop
  int n = 1;
  int64_t modulus = 1;
  bool avg = false;
  int64_t first_code = 0;
};

ClosedForm closedForm(const OpSpec& s, const Pattern& p, const BlockRef& ref, int64_t elems) {
  ClosedForm f;
  f.n = s.ranks;
  f.first_code = int64_t(ref.block) * elems;
  const double scale = double(uint64_t(1) << f.n);
  const bool reduced = ref.reduced && reduces(s.op);
  const RedOp r = reduced ? s.redop : RedOp::sum;
  if (p.kind == Pattern::Kind::prod_bits) {
    f.modulus = f.n;  // the value depends on the rotation only
    for (int rot = 0; rot < f.n; ++rot) f.b[rot] = std::ldexp(1.0, int(rotl(ref.ranks, rot, f.n)));
  } else {
    f.modulus = p.modulus;
    const int count = std::popcount(ref.ranks);
    f.a = scale * ((r == RedOp::sum || r == RedOp::avg) ? count : 1);
    f.avg = reduced && r == RedOp::avg;
    for (int rot = 0; rot < f.n; ++rot) {
      const uint32_t bits = rotl(ref.ranks, rot, f.n);
      const uint32_t pick = r == RedOp::min   ? bits & (~bits + 1)
                            : r == RedOp::max ? (bits ? 1u << (31 - std::countl_zero(bits)) : 0u)
                                              : bits;
      f.b[rot] = double(pick);
    }
  }
  f.b_run.resize(std::size_t(kChunk + f.n));
  for (std::size_t m = 0; m < f.b_run.size(); ++m) f.b_run[m] = f.b[m % std::size_t(f.n)];
  return f;
}

// The dtype's bits of an exact integer-valued double (no rounding happens:
// the pattern keeps every value exact in the dtype).
template <DType T> struct Bits;
template <> struct Bits<DType::f32> {
  using U = uint32_t;
  static U of(double v) { return std::bit_cast<U>(float(v)); }
};
template <> struct Bits<DType::f64> {
  using U = uint64_t;
  static U of(double v) { return std::bit_cast<U>(v); }
};
template <> struct Bits<DType::f16> {
  using U = uint16_t;
  static U of(double v) { return floatToHalf(float(v)); }
};
template <> struct Bits<DType::bf16> {
  using U = uint16_t;
  static U of(double v) { return floatToBFloat16(float(v)); }
};
template <> struct Bits<DType::i32> {
  using U = uint32_t;
  static U of(double v) { return U(int32_t(v)); }
};
template <> struct Bits<DType::i64> {
  using U = uint64_t;
  static U of(double v) { return U(int64_t(v)); }
};
template <> struct Bits<DType::u8> {
  using U = uint8_t;
  static U of(double v) { return U(v); }
};

// The expected bits of `len` elements from code-mod-K `cm` (no wrap inside).
template <DType T>
void expected(const ClosedForm& f, DType t, int64_t cm, int64_t len, typename Bits<T>::U* out) {
  const double* b = f.b_run.data() + cm % f.n;
  const double a = f.a, base = double(cm);
  if (f.avg) {  // the oracle's rounding of sum / N (toBits rounds and saturates)
    for (int64_t k = 0; k < len; ++k)
      out[k] = typename Bits<T>::U(toBits(t, (a * (base + double(k)) + b[k]) / f.n));
    return;
  }
  // An int counter (len <= kChunk): int32 -> double converts packed, int64 does not.
  for (int k = 0; k < int(len); ++k) out[k] = Bits<T>::of(a * (base + double(k)) + b[k]);
}

// Elements [from, to) of the block: do their bytes equal the closed form?
template <DType T>
bool rangeMatches(const ClosedForm& f, DType t, const std::byte* data, int64_t from, int64_t to) {
  using U = typename Bits<T>::U;
  // A short period (f16, bf16, u8, prod): one table for the whole range,
  // the period repeated past kChunk so every run compares a whole chunk.
  const bool periodic = f.modulus <= kChunk;
  const int64_t reps = periodic ? kChunk / f.modulus + 2 : 1;
  std::vector<U> want(std::size_t(periodic ? f.modulus * reps : kChunk));
  if (periodic) {
    expected<T>(f, t, 0, f.modulus, want.data());
    for (int64_t k = 1; k < reps; ++k)
      std::copy_n(want.begin(), f.modulus, want.begin() + k * f.modulus);
  }
  int64_t cm = (f.first_code + from) % f.modulus;
  for (int64_t i = from; i < to;) {
    const int64_t len = std::min({kChunk, to - i, periodic ? kChunk : f.modulus - cm});
    if (!periodic) expected<T>(f, t, cm, len, want.data());
    const U* w = want.data() + (periodic ? cm : 0);
    if (std::memcmp(data + std::size_t(i) * sizeof(U), w, std::size_t(len) * sizeof(U)) != 0)
      return false;
    i += len;
    cm = (cm + len) % f.modulus;
  }
  return true;
}

template <DType T>
bool blockMatches(const ClosedForm& f, DType t, const std::byte* data, int64_t elems) {
  const int threads = elems >= kParallelElems ? verifyThreads() : 1;
  if (threads <= 1) return rangeMatches<T>(f, t, data, 0, elems);
  std::vector<char> ok(std::size_t(threads), 0);
  std::vector<std::thread> pool;
  const int64_t chunk = (elems + threads - 1) / threads;
  for (int k = 1; k < threads; ++k)
    pool.emplace_back([&, k] {
      ok[k] = rangeMatches<T>(f, t, data, std::min(elems, k * chunk), std::min(elems, (k + 1) * chunk));
    });
  ok[0] = rangeMatches<T>(f, t, data, 0, std::min(elems, chunk));
  for (auto& th : pool) th.join();
  return std::all_of(ok.begin(), ok.end(), [](char c) { return c != 0; });
}

bool matches(const ClosedForm& f, DType t, const std::byte* data, int64_t elems) {
  switch (t) {
    case DType::f32: return blockMatches<DType::f32>(f, t, data, elems);
    case DType::f64: return blockMatches<DType::f64>(f, t, data, elems);
    case DType::f16: return blockMatches<DType::f16>(f, t, data, elems);
    case DType::bf16: return blockMatches<DType::bf16>(f, t, data, elems);
    case DType::i32: return blockMatches<DType::i32>(f, t, data, elems);
    case DType::i64: return blockMatches<DType::i64>(f, t, data, elems);
    case DType::u8: return blockMatches<DType::u8>(f, t, data, elems);
  }
  return false;
}

// The contributors the element-by-element path would collect: every rank of
// the ref, except that a min/max element names its one winner.
uint32_t seenRanks(const OpSpec& s, const ClosedForm& f, const BlockRef& ref, int64_t elems) {
  const bool minmax = ref.reduced && reduces(s.op) && (s.redop == RedOp::min || s.redop == RedOp::max);
  if (!minmax) return elems > 0 ? ref.ranks : 0u;
  uint32_t seen = 0;
  int64_t cm = f.first_code % f.modulus;
  for (int64_t i = 0; i < std::min<int64_t>(elems, 2 * f.n); ++i) {
    const int rot = int(cm % f.n);
    seen |= rotl(uint32_t(f.b[rot]), (f.n - rot) % f.n, f.n);  // back to rank bits
    if (++cm == f.modulus) cm = 0;
  }
  return seen;
}

std::atomic<bool> g_fast{true};

}  // namespace

void useFastVerify(bool on) { g_fast = on; }

int verifyThreads() {
  static const int n = std::clamp(int(std::thread::hardware_concurrency()), 1, 16);
  return n;
}

std::vector<double> closedFormValues(const OpSpec& s, const Pattern& p, const BlockRef& ref,
                                     int64_t first, int64_t count) {
  const ClosedForm f = closedForm(s, p, ref, s.elems);
  std::vector<double> out(std::size_t(std::max<int64_t>(count, 0)));
  int64_t cm = (f.first_code + first) % f.modulus;
  for (double& v : out) {
    v = f.a * double(cm) + f.b[cm % f.n];
    if (f.avg) v = roundToDType(s.dtype, v / f.n);
    if (++cm == f.modulus) cm = 0;
  }
  return out;
}

namespace {

template <DType T>
void writeRange(const ClosedForm& f, DType t, std::byte* data, int64_t elems) {
  using U = typename Bits<T>::U;
  std::vector<U> chunk(static_cast<std::size_t>(kChunk));
  int64_t cm = f.first_code % f.modulus;
  for (int64_t i = 0; i < elems;) {
    const int64_t len = std::min({kChunk, elems - i, f.modulus - cm});
    expected<T>(f, t, cm, len, chunk.data());
    std::memcpy(data + std::size_t(i) * sizeof(U), chunk.data(), std::size_t(len) * sizeof(U));
    i += len;
    cm = (cm + len) % f.modulus;
  }
}

}  // namespace

std::vector<int64_t> closedFormExtremes(const OpSpec& s, const Pattern& p, const BlockRef& ref,
                                        int64_t elems, int64_t from, int64_t to) {
  std::vector<int64_t> out;
  if (p.kind == Pattern::Kind::plain || s.ranks > 30 || ref.ranks == 0 || from >= to) return out;
  const int64_t first = int64_t(ref.block) * elems;
  if (p.kind == Pattern::Kind::prod_bits) {
    // One value per rotation: the first N elements hold every one there is.
    for (int64_t i = from; i < std::min(to, from + int64_t(s.ranks)); ++i) out.push_back(i);
    return out;
  }
  const int64_t k = p.modulus;
  const int64_t cm = (first + from) % k;
  if (to - from >= k) {
    // Every code mod K occurs: the smallest value is at code 0, the largest at K - 1.
    const int64_t zero = from + (k - cm) % k;
    out.push_back(zero);
    out.push_back(zero == from ? from + k - 1 : zero - 1);
    return out;
  }
  out.push_back(from);
  out.push_back(to - 1);
  const int64_t wrap = from + (k - cm) % k;  // the element whose code is 0 mod K
  if (wrap > from && wrap < to) {
    out.push_back(wrap - 1);
    out.push_back(wrap);
  }
  return out;
}

bool writeClosedForm(const OpSpec& s, const Pattern& p, const BlockRef& ref, std::byte* data,
                     int64_t elems) {
  if (p.kind == Pattern::Kind::plain || s.ranks > 30 || ref.ranks == 0) return false;
  const ClosedForm f = closedForm(s, p, ref, elems);
  switch (s.dtype) {
    case DType::f32: writeRange<DType::f32>(f, s.dtype, data, elems); return true;
    case DType::f64: writeRange<DType::f64>(f, s.dtype, data, elems); return true;
    case DType::f16: writeRange<DType::f16>(f, s.dtype, data, elems); return true;
    case DType::bf16: writeRange<DType::bf16>(f, s.dtype, data, elems); return true;
    case DType::i32: writeRange<DType::i32>(f, s.dtype, data, elems); return true;
    case DType::i64: writeRange<DType::i64>(f, s.dtype, data, elems); return true;
    case DType::u8: writeRange<DType::u8>(f, s.dtype, data, elems); return true;
  }
  return false;
}

bool rangeMatchesFast(const OpSpec& s, const Pattern& p, const BlockRef& ref,
                      const std::byte* data, int64_t elems, int64_t from, int64_t to) {
  if (p.kind == Pattern::Kind::plain || s.ranks > 30 || ref.ranks == 0) return false;
  const ClosedForm f = closedForm(s, p, ref, elems);
  switch (s.dtype) {
    case DType::f32: return rangeMatches<DType::f32>(f, s.dtype, data, from, to);
    case DType::f64: return rangeMatches<DType::f64>(f, s.dtype, data, from, to);
    case DType::f16: return rangeMatches<DType::f16>(f, s.dtype, data, from, to);
    case DType::bf16: return rangeMatches<DType::bf16>(f, s.dtype, data, from, to);
    case DType::i32: return rangeMatches<DType::i32>(f, s.dtype, data, from, to);
    case DType::i64: return rangeMatches<DType::i64>(f, s.dtype, data, from, to);
    case DType::u8: return rangeMatches<DType::u8>(f, s.dtype, data, from, to);
  }
  return false;
}

FastBlockCheck checkBlockFast(const OpSpec& s, const Pattern& p, const BlockRef& ref,
                              const std::byte* data, int64_t elems) {
  FastBlockCheck out;
  if (!g_fast || p.kind == Pattern::Kind::plain || s.ranks > 30 || ref.ranks == 0) return out;
  const ClosedForm f = closedForm(s, p, ref, elems);
  if (!matches(f, s.dtype, data, elems)) return out;
  out.ok = true;
  out.seen = seenRanks(s, f, ref, elems);
  return out;
}

}  // namespace collviz
