// CRC32C (Castagnoli) of the host link's frames (remote_link.h: crc32c):
// folded with PCLMULQDQ where the CPU has it, SSE4.2's crc32 instruction
// where it has that, a table elsewhere. One answer whichever runs
// (remote_link_test checks them against each other).
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "engine/group/remote_link.h"

namespace collviz {

namespace {

uint32_t crcSoft(const unsigned char* p, std::size_t n, uint32_t crc) {
  static const auto table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  for (std::size_t i = 0; i < n; ++i) crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t crcHard(const unsigned char* p, std::size_t n, uint32_t crc) {
  uint64_t c = crc;
  while (n >= 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    c = __builtin_ia32_crc32di(c, v);
    p += 8;
    n -= 8;
  }
  uint32_t c32 = uint32_t(c);
  while (n--) c32 = __builtin_ia32_crc32qi(c32, *p++);
  return c32;
}

// Carry-less multiplication folds 64 bytes at a time into four 16-byte
// lanes, then the lanes into one; the crc32 instruction reduces those 16
// bytes and takes the tail (Intel's "Fast CRC Computation for Generic
// Polynomials Using PCLMULQDQ", in the bit-reflected form; one crc32 chain
// reads 8 bytes per instruction, a few GB/s, where folding reads 64). The
// constants are bit-reflected x^n mod P (P = 0x1EDC6F41), shifted left by
// one: n = 4*128+32 and 4*128-32 (four lanes), 128+32 and 128-32 (one).
__attribute__((target("sse4.2,pclmul"))) inline __m128i load(const unsigned char* q) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
}

// x moved 128 bits (k3k4) or 512 bits (k1k2) on, plus the block found there.
__attribute__((target("sse4.2,pclmul"))) inline __m128i fold(__m128i x, __m128i k, __m128i next) {
  return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11)), next);
}

__attribute__((target("sse4.2,pclmul"))) uint32_t crcFold(const unsigned char* p, std::size_t n, uint32_t crc) {
  const __m128i k1k2 = _mm_set_epi64x(0x9e4addf8, 0x740eef02);
  const __m128i k3k4 = _mm_set_epi64x(0x14cd00bd6, 0xf20c0dfe);
  __m128i x1 = _mm_xor_si128(load(p), _mm_cvtsi32_si128(int(crc))), x2 = load(p + 16), x3 = load(p + 32),
          x4 = load(p + 48);
  p += 64, n -= 64;
  for (; n >= 64; p += 64, n -= 64) {
    x1 = fold(x1, k1k2, load(p));
    x2 = fold(x2, k1k2, load(p + 16));
    x3 = fold(x3, k1k2, load(p + 32));
    x4 = fold(x4, k1k2, load(p + 48));
  }
  x1 = fold(x1, k3k4, x2);
  x1 = fold(x1, k3k4, x3);
  x1 = fold(x1, k3k4, x4);
  for (; n >= 16; p += 16, n -= 16) x1 = fold(x1, k3k4, load(p));
  uint64_t c = __builtin_ia32_crc32di(0, uint64_t(_mm_cvtsi128_si64(x1)));
  c = __builtin_ia32_crc32di(c, uint64_t(_mm_extract_epi64(x1, 1)));
  return crcHard(p, n, uint32_t(c));
}
#endif

}  // namespace

uint32_t crc32c(const void* p, std::size_t n, uint32_t crc) {
  const auto* b = static_cast<const unsigned char*>(p);
  crc = ~crc;
#if defined(__x86_64__)
  static const bool hard = __builtin_cpu_supports("sse4.2");
  static const bool clmul = hard && __builtin_cpu_supports("pclmul");
  crc = clmul && n >= 64 ? crcFold(b, n, crc) : hard ? crcHard(b, n, crc) : crcSoft(b, n, crc);
#else
  crc = crcSoft(b, n, crc);
#endif
  return ~crc;
}

}  // namespace collviz
