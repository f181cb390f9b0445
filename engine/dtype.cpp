#include "engine/dtype.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace collviz {

uint16_t floatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u)  // inf / nan
    return uint16_t(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0u));
  if (absx >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // overflow -> inf
  if (absx < 0x38800000u) {  // subnormal half (or zero)
    float a;
    std::memcpy(&a, &absx, 4);
    // Scale into the subnormal range and let the FPU round to nearest even.
    const float scaled = a * 16777216.0f;  // 2^24
    return uint16_t(sign | uint32_t(std::nearbyint(scaled)));
  }
  uint32_t mant = absx & 0x7fffffu;
  uint32_t exp = (absx >> 23) - 127 + 15;
  uint32_t h = (exp << 10) | (mant >> 13);
  const uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // round to nearest even
  return uint16_t(sign | h);
}

float halfToFloat(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  float out;
  if (exp == 0) {
    out = std::ldexp(float(mant), -24);
    if (sign) out = -out;
    return out;
  }
  uint32_t x;
  if (exp == 31) x = sign | 0x7f800000u | (mant << 13);
  else x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  std::memcpy(&out, &x, 4);
  return out;
}

uint16_t floatToBFloat16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x40u);  // nan
  const uint32_t lsb = (x >> 16) & 1u;
  x += 0x7fffu + lsb;
  return uint16_t(x >> 16);
}

float bfloat16ToFloat(uint16_t b) {
  const uint32_t x = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

namespace {
template <typename I>
I saturate(double v) {
  if (std::isnan(v)) return 0;
  const double r = std::nearbyint(v);
  if (r <= double(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  if (r >= double(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  return static_cast<I>(r);
}
}  // namespace

uint64_t toBits(DType t, double v) {
  switch (t) {
    case DType::f32: {
      const float f = float(v);
      uint32_t x;
      std::memcpy(&x, &f, 4);
      return x;
    }
    case DType::f64: {
      uint64_t x;
      std::memcpy(&x, &v, 8);
      return x;
    }
    case DType::f16: return floatToHalf(float(v));
    case DType::bf16: return floatToBFloat16(float(v));
    case DType::i32: return uint32_t(saturate<int32_t>(v));
    case DType::i64: return uint64_t(saturate<int64_t>(v));
    case DType::u8: return saturate<uint8_t>(v);
  }
  return 0;
}

double fromBits(DType t, uint64_t bits) {
  switch (t) {
    case DType::f32: {
      const uint32_t x = uint32_t(bits);
      float f;
      std::memcpy(&f, &x, 4);
      return f;
    }
    case DType::f64: {
      double d;
      std::memcpy(&d, &bits, 8);
      return d;
    }
    case DType::f16: return halfToFloat(uint16_t(bits));
    case DType::bf16: return bfloat16ToFloat(uint16_t(bits));
    case DType::i32: return double(int32_t(uint32_t(bits)));
    case DType::i64: return double(int64_t(bits));
    case DType::u8: return double(uint8_t(bits));
  }
  return 0;
}

double readElement(const void* base, DType t, std::size_t i) {
  // f32/f64 first: fixed-size loads (the verifier reads every element; a
  // variable-size memcpy per element cost most of its time). Same values.
  const char* p = static_cast<const char*>(base);
  if (t == DType::f32) {
    float f;
    std::memcpy(&f, p + i * 4, 4);
    return f;
  }
  if (t == DType::f64) {
    double d;
    std::memcpy(&d, p + i * 8, 8);
    return d;
  }
  const std::size_t sz = dtypeSize(t);
  uint64_t bits = 0;
  std::memcpy(&bits, static_cast<const char*>(base) + i * sz, sz);  // little-endian
  return fromBits(t, bits);
}

void writeElement(void* base, DType t, std::size_t i, double v) {
  char* p = static_cast<char*>(base);
  if (t == DType::f32) {
    const float f = float(v);
    std::memcpy(p + i * 4, &f, 4);
    return;
  }
  if (t == DType::f64) {
    std::memcpy(p + i * 8, &v, 8);
    return;
  }
  const std::size_t sz = dtypeSize(t);
  const uint64_t bits = toBits(t, v);
  std::memcpy(static_cast<char*>(base) + i * sz, &bits, sz);
}

double exactIntegerLimit(DType t) {
  switch (t) {
    case DType::f32: return 16777216.0;           // 2^24
    case DType::f64: return 9007199254740992.0;   // 2^53
    case DType::f16: return 2048.0;               // 2^11
    case DType::bf16: return 256.0;               // 2^8
    case DType::i32: return 2147483647.0;
    case DType::i64: return 9007199254740992.0;   // through doubles: 2^53
    case DType::u8: return 255.0;
  }
  return 0;
}

}  // namespace collviz
