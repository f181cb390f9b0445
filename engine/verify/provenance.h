// The provenance pattern: input values that say where they came from, so
// every output element decodes back to its contributors from its bytes.
//
// sum_bits (sum, avg, min, max and every copying op):
//   value(r, b, e) = (code mod K) * 2^N + 2^pos,  code = b*E + e,
//   pos = (r + code) mod N   (rotated so min/max winners vary by element)
//   A sum over a rank set S keeps the bits of S in the low N bits and
//   |S| * code in the rest, so both decode exactly while the largest value,
//   F * K * 2^N with F = N for reducing ops (1 otherwise), stays exact in the
//   dtype. K = every code ("full": block and element decode too) when it
//   fits, else the largest multiple of N that fits ("contributors": the code
//   decodes mod K). When even K = N does not fit, the pattern is "plain".
// prod_bits (prod): value = 2^(2^pos): a product's exponent is the bit set
//   of its contributors. Exact while 2^N - 1 <= the dtype's largest power of
//   two exponent (f32/bf16 127, f64 1023, f16 15, i32 30, i64 62, u8 7).
// plain: small integers (1..3 for sums, 1..2 for products); results are
//   checked against the oracle value by value, labels come from the oracle
//   and say so (BlockLabel::decoded = false).
#pragma once

#include <cstdint>
#include <string>

#include "engine/verify/oracle.h"
#include "engine/spec.h"
#include "engine/text.h"

namespace collviz {

struct Pattern {
  enum class Kind : uint8_t { sum_bits, prod_bits, plain };
  Kind kind = Kind::plain;
  bool full = false;    // sum_bits: block and element decode exactly
  int64_t modulus = 0;  // sum_bits: K (codes decode mod K)
  Text text() const;             // one line for a person (engine/text.h)
  std::string describe() const;  // its English, for the JSON (Verification::mode)
};

// The message a describe() string (Verification::mode) was made from, to show
// it in the reader's language; a string no pattern gives comes back literal.
Text patternText(const std::string& described);

Pattern choosePattern(const OpSpec& s);
double patternValue(const OpSpec& s, const Pattern& p, int rank, int block, int64_t elem);

struct DecodedElement {
  bool ok = false;      // decodes to some provenance at all
  uint32_t ranks = 0;   // contributors named by the bits
  int64_t code = -1;    // b*E + e (mod K when not full); -1 unknown
};

// Decode one output value. `expected_code` (b*E + e of the element the
// oracle expects) fixes the rotation where the value alone cannot (prod).
// `reduced`: the value is a combination (an avg result is scaled back by N).
DecodedElement decodeValue(const OpSpec& s, const Pattern& p, double value,
                           int64_t expected_code, bool reduced);

}  // namespace collviz
