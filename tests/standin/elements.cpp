#include "tests/standin/elements.h"

#include <nccl.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace collviz::standin {
namespace {

// A binary16-like format: `mant` stored significand bits, exponents emin..emax.
std::uint16_t encode(double v, int mant, int emin, int emax, int bias, std::uint16_t nan) {
  const std::uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  const int exp_bits = 15 - mant;
  const std::uint16_t inf = std::uint16_t(((1u << exp_bits) - 1) << mant);
  if (std::isnan(v)) return sign | nan;
  double a = std::fabs(v);
  if (a == 0) return sign;
  if (std::isinf(a)) return sign | inf;
  int e = 0;
  std::frexp(a, &e);
  const int E = std::max(e - 1, emin);
  const double q = std::ldexp(1.0, E - mant);
  a = std::nearbyint(a / q) * q;  // round to nearest even (the default rounding mode)
  if (a >= std::ldexp(1.0, emax + 1)) return sign | inf;
  if (a < std::ldexp(1.0, emin))  // subnormal (or a carry into the least normal, handled below)
    return sign | std::uint16_t(std::llround(a / std::ldexp(1.0, emin - mant)));
  std::frexp(a, &e);
  const int Ea = e - 1;
  const std::uint16_t m = std::uint16_t(std::llround(a / std::ldexp(1.0, Ea - mant)) - (1ll << mant));
  return sign | std::uint16_t((Ea + bias) << mant) | m;
}

template <typename T>
void combineInt(int op, T* acc, const T* x, std::size_t n) {
  using U = std::make_unsigned_t<T>;
  for (std::size_t i = 0; i < n; ++i) {
    switch (op) {
      case ncclSum: acc[i] = T(U(U(acc[i]) + U(x[i]))); break;
      case ncclProd: acc[i] = T(U(U(acc[i]) * U(x[i]))); break;
      case ncclMax: acc[i] = acc[i] < x[i] ? x[i] : acc[i]; break;
      case ncclMin: acc[i] = x[i] < acc[i] ? x[i] : acc[i]; break;
    }
  }
}

template <typename T>
void combineFloat(int op, T* acc, const T* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    switch (op) {
      case ncclSum: acc[i] = acc[i] + x[i]; break;
      case ncclProd: acc[i] = acc[i] * x[i]; break;
      case ncclMax: acc[i] = acc[i] < x[i] ? x[i] : acc[i]; break;
      case ncclMin: acc[i] = x[i] < acc[i] ? x[i] : acc[i]; break;
    }
  }
}

template <double (*Dec)(std::uint16_t), std::uint16_t (*Enc)(double)>
void combineHalf(int op, std::uint16_t* acc, const std::uint16_t* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const double a = Dec(acc[i]), b = Dec(x[i]);
    switch (op) {
      case ncclSum: acc[i] = Enc(a + b); break;
      case ncclProd: acc[i] = Enc(a * b); break;
      case ncclMax: if (a < b) acc[i] = x[i]; break;
      case ncclMin: if (b < a) acc[i] = x[i]; break;
    }
  }
}

template <typename T>
void divideInt(T* x, std::size_t n, int nranks) {
  for (std::size_t i = 0; i < n; ++i) x[i] = T(x[i] / T(nranks));
}

}  // namespace

double halfToDouble(std::uint16_t h) {
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  const int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  if (exp == 0x1f) return mant ? std::numeric_limits<double>::quiet_NaN() : sign * INFINITY;
  if (exp == 0) return sign * std::ldexp(double(mant), -24);
  return sign * std::ldexp(double(1024 + mant), exp - 25);
}
std::uint16_t doubleToHalf(double v) { return encode(v, 10, -14, 15, 15, 0x7e00); }

double bf16ToDouble(std::uint16_t b) {
  const std::uint32_t bits = std::uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
std::uint16_t doubleToBf16(double v) { return encode(v, 7, -126, 127, 127, 0x7fc0); }

std::size_t typeSize(int t) {
  switch (t) {
    case ncclInt8: case ncclUint8: return 1;
    case ncclFloat16: case ncclBfloat16: return 2;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
    case ncclInt64: case ncclUint64: case ncclFloat64: return 8;
  }
  return 0;
}

bool isFloatType(int t) {
  return t == ncclFloat16 || t == ncclBfloat16 || t == ncclFloat32 || t == ncclFloat64;
}

void combine(int t, int op, void* acc, const void* x, std::size_t n) {
  switch (t) {
    case ncclInt8: combineInt(op, static_cast<int8_t*>(acc), static_cast<const int8_t*>(x), n); break;
    case ncclUint8: combineInt(op, static_cast<uint8_t*>(acc), static_cast<const uint8_t*>(x), n); break;
    case ncclInt32: combineInt(op, static_cast<int32_t*>(acc), static_cast<const int32_t*>(x), n); break;
    case ncclUint32: combineInt(op, static_cast<uint32_t*>(acc), static_cast<const uint32_t*>(x), n); break;
    case ncclInt64: combineInt(op, static_cast<int64_t*>(acc), static_cast<const int64_t*>(x), n); break;
    case ncclUint64: combineInt(op, static_cast<uint64_t*>(acc), static_cast<const uint64_t*>(x), n); break;
    case ncclFloat32: combineFloat(op, static_cast<float*>(acc), static_cast<const float*>(x), n); break;
    case ncclFloat64: combineFloat(op, static_cast<double*>(acc), static_cast<const double*>(x), n); break;
    case ncclFloat16:
      combineHalf<halfToDouble, doubleToHalf>(op, static_cast<uint16_t*>(acc), static_cast<const uint16_t*>(x), n);
      break;
    case ncclBfloat16:
      combineHalf<bf16ToDouble, doubleToBf16>(op, static_cast<uint16_t*>(acc), static_cast<const uint16_t*>(x), n);
      break;
  }
}

void avgPremultiply(int t, void* x, std::size_t n, int nranks) {
  const double inv = 1.0 / nranks;
  switch (t) {
    case ncclFloat32: {
      const float s = float(inv);
      for (std::size_t i = 0; i < n; ++i) static_cast<float*>(x)[i] *= s;
      break;
    }
    case ncclFloat64:
      for (std::size_t i = 0; i < n; ++i) static_cast<double*>(x)[i] *= inv;
      break;
    case ncclFloat16: {
      auto* h = static_cast<uint16_t*>(x);
      const double s = halfToDouble(doubleToHalf(float(inv)));
      for (std::size_t i = 0; i < n; ++i) h[i] = doubleToHalf(halfToDouble(h[i]) * s);
      break;
    }
    case ncclBfloat16: {
      auto* h = static_cast<uint16_t*>(x);
      const double s = bf16ToDouble(doubleToBf16(float(inv)));
      for (std::size_t i = 0; i < n; ++i) h[i] = doubleToBf16(bf16ToDouble(h[i]) * s);
      break;
    }
  }
}

void avgDivide(int t, void* x, std::size_t n, int nranks) {
  switch (t) {
    case ncclInt8: divideInt(static_cast<int8_t*>(x), n, nranks); break;
    case ncclUint8: divideInt(static_cast<uint8_t*>(x), n, nranks); break;
    case ncclInt32: divideInt(static_cast<int32_t*>(x), n, nranks); break;
    case ncclUint32: divideInt(static_cast<uint32_t*>(x), n, nranks); break;
    case ncclInt64: divideInt(static_cast<int64_t*>(x), n, nranks); break;
    case ncclUint64: divideInt(static_cast<uint64_t*>(x), n, nranks); break;
  }
}

}  // namespace collviz::standin
