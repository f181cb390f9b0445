// The element arithmetic of the NCCL rounds' reduce and divide kernels
// (nccl/reduce_kernel.cu), written once for the host and the device so that
// a CPU test can hold it against Gloo's functions and engine/dtype.cpp:
//
//   reduce (dst = dst op src), as the Gloo rounds do with gloo::sum/product/
//     min/max (engine/worker/gloo/reduce.h): f32/f64 in their own type; f16
//     through float and back with Gloo's rounding (cpu_float2half_rn: round
//     to nearest even, any NaN becomes 0x7fff); bf16 (which Gloo lacks) the
//     same way with engine/dtype.cpp's rounding; integers wrap as two's
//     complement; max(a, b) = a < b ? b : a, min(a, b) = b < a ? b : a, as
//     std::max/std::min; avg reduces as sum.
//   divide (avg's p /= N), as the Gloo rounds' writeElement(readElement / N):
//     the value as a double divided by N, then floats rounded to their type
//     (f16/bf16 through float, engine/dtype.cpp's rounding) and integers
//     rounded to nearest even and saturated.
//
// C++17, no CUDA header and no collviz header (nvcc compiles the kernel file
// as C++17, and engine/spec.h is C++20): worker/reduce_kind.h maps collviz's
// DType and RedOp onto the kinds here.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define COLLVIZ_HD __host__ __device__ inline
#else
#define COLLVIZ_HD inline
#endif

namespace collviz::reduce_ops {

enum class ElemKind : int { f32, f64, f16, bf16, i32, i64, u8 };
enum class CombineKind : int { sum, prod, min, max };

COLLVIZ_HD uint32_t floatBits(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  return x;
}
COLLVIZ_HD float bitsFloat(uint32_t x) {
  float f;
  memcpy(&f, &x, 4);
  return f;
}

// Exact for every half that is not NaN (a NaN stays a NaN).
COLLVIZ_HD float halfToFloat(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) return bitsFloat(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {
    if (mant == 0) return bitsFloat(sign);
    exp = 113;  // 2^-14 as a float exponent; normalise the subnormal
    while (!(mant & 0x400u)) {
      mant <<= 1;
      --exp;
    }
    mant &= 0x3ffu;
    return bitsFloat(sign | (exp << 23) | (mant << 13));
  }
  return bitsFloat(sign | ((exp + 112) << 23) | (mant << 13));
}

// Round to nearest even, overflow to infinity, subnormals kept; a NaN
// becomes `nan` with the sign kept when `nan` asks for it (see the callers).
COLLVIZ_HD uint16_t floatToHalfRne(float f, uint16_t nan, bool nan_keeps_sign) {
  const uint32_t x = floatBits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t u = x & 0x7fffffffu;
  if (u > 0x7f800000u) return uint16_t(nan | (nan_keeps_sign ? sign : 0u));
  if (u >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // rounds past 65504: infinity
  if (u < 0x33000001u) return uint16_t(sign);             // at most half the least subnormal
  uint32_t exp = u >> 23, mant = u & 0x7fffffu, shift;
  if (exp > 0x70) {
    shift = 13;
    exp -= 0x70;
  } else {  // a half subnormal
    shift = 0x7e - exp;
    exp = 0;
    mant |= 0x800000u;
  }
  const uint32_t lsb = 1u << shift, half = lsb >> 1, rest = mant & (lsb - 1);
  mant >>= shift;
  if (rest > half || (rest == half && (mant & 1u))) ++mant;  // a carry moves into the exponent
  return uint16_t(sign | ((exp << 10) + mant));
}
// Gloo's cpu_float2half_rn: every NaN is 0x7fff.
COLLVIZ_HD uint16_t floatToHalfGloo(float f) { return floatToHalfRne(f, 0x7fffu, false); }
// engine/dtype.cpp's floatToHalf: a NaN is the quiet NaN with its sign.
COLLVIZ_HD uint16_t floatToHalfCollviz(float f) { return floatToHalfRne(f, 0x7e00u, true); }

COLLVIZ_HD float bf16ToFloat(uint16_t b) { return bitsFloat(uint32_t(b) << 16); }
// engine/dtype.cpp's floatToBFloat16 (round to nearest even).
COLLVIZ_HD uint16_t floatToBf16(float f) {
  uint32_t x = floatBits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return uint16_t(x >> 16);
}

// Integers: rounded to nearest even and saturated, as engine/dtype.cpp's
// toBits (through the double the division gave).
template <typename I>
COLLVIZ_HD I saturateRne(double v, double lo, double hi) {
  if (v != v) return I(0);
  const double r = ::rint(v);
  if (r <= lo) return I(lo);
  if (r >= hi) return sizeof(I) == 8 ? I(~(uint64_t(1) << 63)) : I(hi);
  return I(r);
}

// One element type: its storage, reduce and divide.
template <ElemKind K> struct Elem;

template <typename T>
struct FloatElem {
  using Storage = T;
  template <CombineKind C>
  static COLLVIZ_HD T combine(T a, T b) {
    if (C == CombineKind::sum) return a + b;
    if (C == CombineKind::prod) return a * b;
    if (C == CombineKind::max) return a < b ? b : a;
    return b < a ? b : a;
  }
};
template <> struct Elem<ElemKind::f32> : FloatElem<float> {
  static COLLVIZ_HD float divide(float x, int n) { return float(double(x) / n); }
};
template <> struct Elem<ElemKind::f64> : FloatElem<double> {
  static COLLVIZ_HD double divide(double x, int n) { return x / n; }
};

// f16 and bf16 as their bits, computed in float. B: toFloat, combined (the
// rounding after a reduce), divided (the rounding after the division).
template <typename B>
struct HalfElem {
  using Storage = uint16_t;
  template <CombineKind C>
  static COLLVIZ_HD uint16_t combine(uint16_t a, uint16_t b) {
    const float x = B::toFloat(a), y = B::toFloat(b);
    if (C == CombineKind::sum) return B::combined(x + y);
    if (C == CombineKind::prod) return B::combined(x * y);
    if (C == CombineKind::max) return x < y ? b : a;
    return y < x ? b : a;
  }
  static COLLVIZ_HD uint16_t divide(uint16_t h, int n) {
    return B::divided(float(double(B::toFloat(h)) / n));
  }
};
struct HalfBits {
  static COLLVIZ_HD float toFloat(uint16_t h) { return halfToFloat(h); }
  static COLLVIZ_HD uint16_t combined(float f) { return floatToHalfGloo(f); }
  static COLLVIZ_HD uint16_t divided(float f) { return floatToHalfCollviz(f); }
};
struct Bf16Bits {
  static COLLVIZ_HD float toFloat(uint16_t b) { return bf16ToFloat(b); }
  static COLLVIZ_HD uint16_t combined(float f) { return floatToBf16(f); }
  static COLLVIZ_HD uint16_t divided(float f) { return floatToBf16(f); }
};
template <> struct Elem<ElemKind::f16> : HalfElem<HalfBits> {};
template <> struct Elem<ElemKind::bf16> : HalfElem<Bf16Bits> {};

// Integers: sum and product wrap (computed unsigned), min/max compare signed.
template <typename T, typename U>
struct IntElem {
  using Storage = T;
  template <CombineKind C>
  static COLLVIZ_HD T combine(T a, T b) {
    if (C == CombineKind::sum) return T(U(U(a) + U(b)));
    if (C == CombineKind::prod) return T(U(U(a) * U(b)));
    if (C == CombineKind::max) return a < b ? b : a;
    return b < a ? b : a;
  }
};
template <> struct Elem<ElemKind::i32> : IntElem<int32_t, uint32_t> {
  static COLLVIZ_HD int32_t divide(int32_t x, int n) {
    return saturateRne<int32_t>(double(x) / n, -2147483648.0, 2147483647.0);
  }
};
template <> struct Elem<ElemKind::i64> : IntElem<int64_t, uint64_t> {
  static COLLVIZ_HD int64_t divide(int64_t x, int n) {
    return saturateRne<int64_t>(double(x) / n, -9223372036854775808.0, 9223372036854775808.0);
  }
};
template <> struct Elem<ElemKind::u8> : IntElem<uint8_t, uint32_t> {
  static COLLVIZ_HD uint8_t divide(uint8_t x, int n) {
    return saturateRne<uint8_t>(double(x) / n, 0.0, 255.0);
  }
};

// The one dispatch the kernel launcher and the CPU test share: calls
// `v.template apply<K>()` or `v.template apply<K, C>()` for the kinds.
// Returns false for a kind outside the enums.
template <typename V>
bool visitElem(ElemKind k, V& v) {
  switch (k) {
    case ElemKind::f32: v.template apply<ElemKind::f32>(); return true;
    case ElemKind::f64: v.template apply<ElemKind::f64>(); return true;
    case ElemKind::f16: v.template apply<ElemKind::f16>(); return true;
    case ElemKind::bf16: v.template apply<ElemKind::bf16>(); return true;
    case ElemKind::i32: v.template apply<ElemKind::i32>(); return true;
    case ElemKind::i64: v.template apply<ElemKind::i64>(); return true;
    case ElemKind::u8: v.template apply<ElemKind::u8>(); return true;
  }
  return false;
}
template <ElemKind K, typename V>
bool visitCombine(CombineKind c, V& v) {
  switch (c) {
    case CombineKind::sum: v.template apply<K, CombineKind::sum>(); return true;
    case CombineKind::prod: v.template apply<K, CombineKind::prod>(); return true;
    case CombineKind::min: v.template apply<K, CombineKind::min>(); return true;
    case CombineKind::max: v.template apply<K, CombineKind::max>(); return true;
  }
  return false;
}

// The kernels' launchers (nccl/reduce_kernel.cu), on `stream` (a
// cudaStream_t). They return the launch's cudaError_t as an int (0: queued).
int launchReduce(ElemKind k, CombineKind c, void* dst, const void* src, std::size_t elems,
                 void* stream);
int launchDivide(ElemKind k, void* p, std::size_t elems, int n, void* stream);

}  // namespace collviz::reduce_ops
