#include "engine/verify/provenance.h"

#include <bit>
#include <cmath>
#include <cstdlib>

#include "engine/dtype.h"

namespace collviz {
namespace {

int maxPow2Exponent(DType t) {
  switch (t) {
    case DType::f32:
    case DType::bf16: return 127;
    case DType::f64: return 1023;
    case DType::f16: return 15;
    case DType::i32: return 30;
    case DType::i64: return 62;
    case DType::u8: return 7;
  }
  return 0;
}

uint32_t rotateToRanks(uint32_t bits, int64_t code, int n) {
  const int rot = int(code % n);
  uint32_t ranks = 0;
  for (int p = 0; p < n; ++p)
    if (bits & (1u << p)) ranks |= 1u << ((p - rot + n) % n);
  return ranks;
}

int64_t codeCount(const OpSpec& s) {
  int blocks = 1;
  for (int r = 0; r < s.ranks; ++r)
    blocks = std::max(blocks, inputBlocks(s.op, s.ranks, r, s.root));
  return int64_t(blocks) * s.elems;
}

bool isProd(const OpSpec& s) { return reduces(s.op) && s.redop == RedOp::prod; }

}  // namespace

Text Pattern::text() const {
  switch (kind) {
    case Kind::sum_bits:
      return full ? say("provenance: contributors, block and element decoded from every value")
                  : say("provenance: contributors decoded from every value, position mod {0}; "
                        "values checked against the oracle",
                        modulus);
    case Kind::prod_bits:
      return say("provenance: contributors decoded from every product (2^(2^rank) pattern); "
                 "values checked against the oracle");
    case Kind::plain:
      return say("values only: this dtype/N/E is beyond the provenance pattern's exact range; "
                 "labels follow the oracle, values are checked against it");
  }
  return {};
}

std::string Pattern::describe() const { return text().english(); }

Text patternText(const std::string& described) {
  for (Pattern p : {Pattern{Pattern::Kind::sum_bits, true, 0}, Pattern{Pattern::Kind::prod_bits},
                    Pattern{Pattern::Kind::plain}})
    if (p.describe() == described) return p.text();
  // "... position mod K; ...": K is the one number in it.
  const std::size_t at = described.find(" mod ");
  if (at != std::string::npos) {
    Pattern p{Pattern::Kind::sum_bits, false, std::atoll(described.c_str() + at + 5)};
    if (p.describe() == described) return p.text();
  }
  return lit(described);
}

Pattern choosePattern(const OpSpec& s) {
  Pattern p;
  const int n = s.ranks;
  if (n > 30) return p;
  if (isProd(s)) {
    if ((1 << n) - 1 <= maxPow2Exponent(s.dtype)) p.kind = Pattern::Kind::prod_bits;
    return p;
  }
  double limit = exactIntegerLimit(s.dtype);
  // avg: the mean is rounded to the dtype; keep sums small enough that
  // mean * N still rounds back to the exact sum (error < 1/4).
  if (reduces(s.op) && s.redop == RedOp::avg) limit /= 8;
  const double factor = (reduces(s.op) && (s.redop == RedOp::sum || s.redop == RedOp::avg))
                            ? double(n) : 1.0;
  const double scale = std::ldexp(1.0, n);
  // Largest value: factor * (K - 1) * 2^N + (2^N - 1) <= limit.
  const double k_max = std::floor((limit - (scale - 1)) / (factor * scale)) + 1;
  const int64_t codes = codeCount(s);
  if (double(codes) <= k_max) {
    p.kind = Pattern::Kind::sum_bits;
    p.full = true;
    p.modulus = codes;
    return p;
  }
  const int64_t k = int64_t(k_max / n) * n;
  if (k >= n) {
    p.kind = Pattern::Kind::sum_bits;
    p.modulus = k;
  }
  return p;
}

double patternValue(const OpSpec& s, const Pattern& p, int rank, int block, int64_t elem) {
  const int n = s.ranks;
  const int64_t code = int64_t(block) * s.elems + elem;
  const int pos = int((rank + code) % n);
  switch (p.kind) {
    case Pattern::Kind::sum_bits:
      // n <= 30 here (choosePattern): shifts are exact and much cheaper than ldexp.
      return double(code % p.modulus) * double(uint64_t(1) << n) + double(uint64_t(1) << pos);
    case Pattern::Kind::prod_bits: return std::ldexp(1.0, 1 << pos);
    case Pattern::Kind::plain:
      if (isProd(s)) return pos == 0 ? 2.0 : 1.0;
      return double(1 + (rank + code) % 3);
  }
  return 0;
}

DecodedElement decodeValue(const OpSpec& s, const Pattern& p, double value,
                           int64_t expected_code, bool reduced) {
  DecodedElement d;
  const int n = s.ranks;
  if (!std::isfinite(value) || value < 0) return d;
  if (p.kind == Pattern::Kind::prod_bits) {
    int exp = 0;
    const double m = std::frexp(value, &exp);  // value = m * 2^exp, m in [0.5, 1)
    if (m != 0.5 || exp - 1 <= 0 || exp - 1 >= (1 << n)) return d;
    d.ok = true;
    d.ranks = rotateToRanks(uint32_t(exp - 1), expected_code, n);
    d.code = expected_code;  // prod values carry no position
    return d;
  }
  if (p.kind != Pattern::Kind::sum_bits) return d;
  double v = value;
  const bool avg = reduced && s.redop == RedOp::avg;
  if (avg) v = value * n;  // undo the mean
  const double r = std::nearbyint(v);
  // avg may be off by rounding in the division; the oracle checks the value.
  const double tol = avg ? 0.25 : 0.0;
  if (std::fabs(r - v) > tol) return d;
  const double scale = double(uint64_t(1) << n);  // n <= 30 for sum_bits
  const double high = std::floor(r / scale);
  const uint32_t bits = uint32_t(r - high * scale);
  const int cnt = std::popcount(bits);
  if (cnt == 0) return d;
  const double code = high / cnt;
  if (code != std::floor(code)) return d;
  d.ok = true;
  d.code = int64_t(code);
  if (d.code >= p.modulus) return DecodedElement{};
  d.ranks = rotateToRanks(bits, d.code, n);  // N divides K, so code mod N is exact
  return d;
}

}  // namespace collviz
