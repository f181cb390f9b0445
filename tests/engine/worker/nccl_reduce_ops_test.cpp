// The NCCL rounds' element arithmetic (engine/worker/reduce_ops.h), on
// the CPU: the same functions the device kernels run, reached through the
// same dispatch, held byte for byte against what the Gloo rounds do (Gloo's
// gloo::sum/product/min/max, engine/worker/gloo/reduce.h) and against
// engine/dtype.cpp's division (writeElement(readElement / N)). No GPU and no
// CUDA header needed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <vector>

#include "engine/dtype.h"
#include "engine/worker/gloo/reduce.h"
#include "engine/worker/reduce_kind.h"

namespace collviz {
namespace {

using reduce_ops::CombineKind;
using reduce_ops::Elem;
using reduce_ops::ElemKind;

// Element bit patterns worth trying per dtype (little-endian, dtypeSize bytes).
std::vector<uint64_t> samples(DType t) {
  std::vector<uint64_t> v;
  auto add = [&](double x) { v.push_back(toBits(t, x)); };
  switch (t) {
    case DType::f16:
    case DType::bf16:
      for (uint32_t h = 0; h < 0x10000; h += 7) v.push_back(h);  // every kind of half
      for (uint64_t h : {0x0000u, 0x8000u, 0x0001u, 0x03ffu, 0x0400u, 0x7bffu, 0x7c00u, 0xfc00u,
                         0x7e00u, 0x3c00u, 0xbc00u, 0x3555u, 0x7f80u, 0xff80u, 0x0080u})
        v.push_back(h);
      return v;
    case DType::f32:
    case DType::f64:
      for (double x : {0.0, -0.0, 1.0, -1.0, 3.0, 0.1, -2.5, 1e-30, 1e30, 1e300, 6.5e4, 1.0 / 3,
                       16777217.0, 7.0e-46, std::numeric_limits<double>::infinity(),
                       -std::numeric_limits<double>::infinity(), std::nan("")})
        add(x);
      return v;
    case DType::i32:
      for (double x : {0.0, 1.0, -1.0, 7.0, -7.0, 1000.0, -123456.0, 46340.0, 2147483647.0,
                       -2147483648.0, 65537.0})
        add(x);
      return v;
    case DType::i64:
      for (double x : {0.0, 1.0, -1.0, 7.0, -7.0, 3037000499.0, -4294967296.0, 9007199254740993.0,
                       9.2233720368547758e18, -9.2233720368547758e18})
        add(x);
      v.push_back(uint64_t(std::numeric_limits<int64_t>::max()));
      v.push_back(uint64_t(std::numeric_limits<int64_t>::max() - 1));
      return v;
    case DType::u8:
      for (uint32_t x = 0; x < 256; ++x) v.push_back(x);
      return v;
  }
  return v;
}

bool isNan(DType t, uint64_t bits) { return isFloat(t) && std::isnan(fromBits(t, bits)); }

bool signedOverflows(DType t, RedOp r, uint64_t a, uint64_t b) {
  if (t != DType::i32 && t != DType::i64) return false;
  if (r != RedOp::sum && r != RedOp::avg && r != RedOp::prod) return false;
  const double x = fromBits(t, a), y = fromBits(t, b);
  const double lim = t == DType::i32 ? 2147483647.0 : 9.2e18;
  const double v = r == RedOp::prod ? x * y : x + y;
  return std::fabs(v) >= lim;
}

// What the Gloo rounds compute for one element pair, in place as they do
// (dst = dst op src): Gloo's own function; bf16, which Gloo lacks, in float
// with engine/dtype.cpp's rounding. Byte buffers: Gloo writes through T*.
uint64_t glooCombine(DType t, RedOp r, uint64_t a, uint64_t b) {
  GlooReduceFn fn = nullptr;
  switch (t) {
    case DType::f32: fn = glooReduceFn<float>(r); break;
    case DType::f64: fn = glooReduceFn<double>(r); break;
    case DType::f16: fn = glooReduceFn<gloo::float16>(r); break;
    case DType::i32: fn = glooReduceFn<int32_t>(r); break;
    case DType::i64: fn = glooReduceFn<int64_t>(r); break;
    case DType::u8: fn = glooReduceFn<uint8_t>(r); break;
    case DType::bf16: {
      const float x = bfloat16ToFloat(uint16_t(a)), y = bfloat16ToFloat(uint16_t(b));
      switch (r) {
        case RedOp::sum:
        case RedOp::avg: return floatToBFloat16(x + y);
        case RedOp::prod: return floatToBFloat16(x * y);
        case RedOp::max: return x < y ? b : a;
        case RedOp::min: return y < x ? b : a;
      }
      return 0;
    }
  }
  alignas(8) unsigned char dst[8], src[8];
  std::memcpy(dst, &a, 8);
  std::memcpy(src, &b, 8);
  fn(dst, dst, src, 1);
  uint64_t out = 0;
  std::memcpy(&out, dst, dtypeSize(t));
  return out;
}

// gloo::float16's assignment skips the store when the new bits equal the
// half of the old bits read as an integer (its operator!= compares x with
// cpu_float2half_rn(float(other.x))), so Gloo keeps `a` where the result is
// half(float(a's bits)): 0x0001 max 0x3c00 stays 0x0001. The kernels store
// the result; such a pair is counted apart, not as a difference.
bool glooHalfStoreSkipped(DType t, uint64_t a, uint64_t gloo, uint64_t ours) {
  return t == DType::f16 && gloo == a &&
         ours == reduce_ops::floatToHalfGloo(float(uint16_t(a)));
}

// The kernels' arithmetic for one pair, through the kernels' dispatch.
struct CombineOne {
  CombineKind c;
  uint64_t a, b, out = 0;
  int reached = 0;
  template <ElemKind K>
  void apply() {
    EXPECT_TRUE(reduce_ops::visitCombine<K>(c, *this));
  }
  template <ElemKind K, CombineKind C>
  void apply() {
    using T = typename Elem<K>::Storage;
    T x, y;
    std::memcpy(&x, &a, sizeof x);
    std::memcpy(&y, &b, sizeof y);
    const T z = Elem<K>::template combine<C>(x, y);
    std::memcpy(&out, &z, sizeof z);
    ++reached;
  }
};

struct DivideOne {
  uint64_t a;
  int n;
  uint64_t out = 0;
  template <ElemKind K>
  void apply() {
    using T = typename Elem<K>::Storage;
    T x;
    std::memcpy(&x, &a, sizeof x);
    const T z = Elem<K>::divide(x, n);
    std::memcpy(&out, &z, sizeof z);
  }
};

std::string hex(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

TEST(NcclReduceOps, EveryDTypeAndRedOpReducesAsTheGlooRounds) {
  for (int ti = 0; ti < kDTypeCount; ++ti) {
    const DType t = DType(ti);
    const auto vals = samples(t);
    // f16/bf16: every sampled pattern against a set of partners.
    std::vector<uint64_t> partners = vals;
    if (t == DType::f16 || t == DType::bf16)
      partners = {0x0000u, 0x8000u, 0x0001u, 0x3c00u, 0xbc00u, 0x4200u, 0x7bffu, 0x0400u, 0x3f80u,
                  0x4040u, 0xc0a0u, 0x7c00u, 0x7e00u};
    for (int ri = 0; ri < kRedOpCount; ++ri) {
      const RedOp r = RedOp(ri);
      int64_t checked = 0, wrong = 0, skipped = 0;
      std::string first;
      for (uint64_t a : vals)
        for (uint64_t b : partners) {
          CombineOne one{combineKind(r), a, b};
          ASSERT_TRUE(reduce_ops::visitElem(elemKind(t), one));
          ASSERT_EQ(one.reached, 1);
          uint64_t want;
          if (signedOverflows(t, r, a, b)) {  // two's complement wrap (Gloo's loop is UB there)
            const uint64_t s = r == RedOp::prod ? a * b : a + b;
            want = t == DType::i32 ? uint64_t(uint32_t(s)) : s;
          } else {
            want = glooCombine(t, r, a, b);
          }
          ++checked;
          // A NaN result: both must be NaN (Gloo's f16 makes every NaN 0x7fff, so do we).
          const bool same = one.out == want || (t != DType::f16 && isNan(t, one.out) && isNan(t, want));
          if (!same && glooHalfStoreSkipped(t, a, want, one.out)) {
            ++skipped;
            continue;
          }
          if (!same && ++wrong == 1)
            first = hex(a) + " " + std::string(name(r)) + " " + hex(b) + " = " + hex(one.out) +
                    ", the Gloo rounds " + hex(want);
        }
      EXPECT_EQ(wrong, 0) << name(t) << " " << name(r) << ": " << wrong << " of " << checked
                          << " differ; first: " << first;
      EXPECT_LE(skipped, 8) << name(t) << " " << name(r) << ": Gloo's skipped f16 stores";
    }
  }
}

TEST(NcclReduceOps, DivisionIsTheGlooRoundsWriteElementOfReadElementOverN) {
  for (int ti = 0; ti < kDTypeCount; ++ti) {
    const DType t = DType(ti);
    std::vector<uint64_t> vals = samples(t);
    if (t == DType::f16 || t == DType::bf16)
      for (uint32_t h = 0; h < 0x10000; ++h) vals.push_back(h);  // every half
    for (int n : {1, 2, 3, 4, 5, 7, 16}) {
      int64_t wrong = 0;
      std::string first;
      for (uint64_t a : vals) {
        if (isNan(t, a)) continue;  // a NaN's sign and payload are not kept alike on a GPU
        DivideOne one{a, n};
        ASSERT_TRUE(reduce_ops::visitElem(elemKind(t), one));
        uint64_t want = 0;
        writeElement(&want, t, 0, readElement(&a, t, 0) / n);
        if (one.out != want && ++wrong == 1)
          first = hex(a) + " / " + std::to_string(n) + " = " + hex(one.out) + ", the Gloo rounds " +
                  hex(want);
      }
      EXPECT_EQ(wrong, 0) << name(t) << " / " << n << ": first " << first;
    }
  }
}

// The kernels' half conversions against Gloo's (combine) and collviz's
// (divide) on floats around every rounding boundary of every exponent.
TEST(NcclReduceOps, HalfRoundingMatchesGlooAndCollviz) {
  int64_t wrong_gloo = 0, wrong_collviz = 0, n = 0;
  for (uint32_t hi = 0; hi < (1u << 19); ++hi)
    for (uint32_t lo : {0x0000u, 0x0001u, 0x0fffu, 0x1000u, 0x1001u, 0x1fffu}) {
      const uint32_t bits = (hi << 13) | lo;
      float f;
      std::memcpy(&f, &bits, 4);
      ++n;
      if (reduce_ops::floatToHalfGloo(f) != gloo::cpu_float2half_rn(f).x) ++wrong_gloo;
      if (!std::isnan(f) && reduce_ops::floatToHalfCollviz(f) != floatToHalf(f)) ++wrong_collviz;
      if (std::isnan(f) && (reduce_ops::floatToHalfCollviz(f) & 0x7e00u) != 0x7e00u) ++wrong_collviz;
    }
  EXPECT_EQ(wrong_gloo, 0) << "of " << n;
  EXPECT_EQ(wrong_collviz, 0) << "of " << n;
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float want = halfToFloat(uint16_t(h)), got = reduce_ops::halfToFloat(uint16_t(h));
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << hex(h);
    } else {
      EXPECT_EQ(std::memcmp(&want, &got, 4), 0) << hex(h);
      EXPECT_EQ(reduce_ops::floatToBf16(want), floatToBFloat16(want));
    }
  }
}

// Which kernel instantiation a DType and RedOp reach.
struct Probe {
  CombineKind c;
  std::pair<int, int> got{-1, -1};
  template <ElemKind K>
  void apply() { reduce_ops::visitCombine<K>(c, *this); }
  template <ElemKind K, CombineKind C>
  void apply() { got = {int(K), int(C)}; }
};

// Every DType and RedOp reaches a kernel instantiation, and distinct pairs
// reach distinct ones (avg is sum's).
TEST(NcclReduceOps, TheDispatchCoversEveryDTypeAndRedOp) {
  std::set<std::pair<int, int>> seen;
  for (int ti = 0; ti < kDTypeCount; ++ti)
    for (int ri = 0; ri < kRedOpCount; ++ri) {
      Probe p{combineKind(RedOp(ri))};
      ASSERT_TRUE(reduce_ops::visitElem(elemKind(DType(ti)), p));
      EXPECT_EQ(p.got.first, int(elemKind(DType(ti))));
      EXPECT_EQ(p.got.second, int(combineKind(RedOp(ri))));
      seen.insert(p.got);
    }
  EXPECT_EQ(int(seen.size()), kDTypeCount * (kRedOpCount - 1));
  EXPECT_EQ(combineKind(RedOp::avg), combineKind(RedOp::sum));
  DivideOne none{0, 1};
  EXPECT_FALSE(reduce_ops::visitElem(ElemKind(99), none));
}

}  // namespace
}  // namespace collviz
