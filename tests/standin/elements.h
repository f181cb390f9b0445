// The stand-in NCCL's element arithmetic (tests only), written from NCCL's
// documented types and reduce ops, independently of collviz's own
// (engine/dtype.cpp, engine/worker/reduce_ops.h):
//   integers wrap (sum, prod) and compare in their own type (min, max);
//   floats combine in their own type; f16 and bf16 are combined exactly (in
//   double) and rounded to nearest even once per combine, as a device's
//   half-precision add or multiply rounds;
//   ncclAvg, as NCCL computes it: floats multiply each rank's value by 1/N
//   rounded to the type, then sum; integers sum, then divide by N (C's
//   division, toward zero).
// The order of a reduction is rank 0, 1, ..., N-1 (NCCL's is its own).
#pragma once

#include <cstddef>
#include <cstdint>

namespace collviz::standin {

// Bytes of an ncclDataType_t, 0 for one the stand-in does not implement (fp8).
std::size_t typeSize(int dtype);
bool isFloatType(int dtype);
// acc[i] = acc[i] op x[i] for ncclSum, ncclProd, ncclMax, ncclMin.
void combine(int dtype, int op, void* acc, const void* x, std::size_t n);
// ncclAvg's two halves: floats x[i] *= (1/N in the type); integers x[i] /= N.
void avgPremultiply(int dtype, void* x, std::size_t n, int nranks);
void avgDivide(int dtype, void* x, std::size_t n, int nranks);

// f16 and bf16 from and to double, rounded to nearest even.
double halfToDouble(std::uint16_t h);
std::uint16_t doubleToHalf(double v);
double bf16ToDouble(std::uint16_t b);
std::uint16_t doubleToBf16(double v);

}  // namespace collviz::standin
