// Element access for every dtype through doubles, and the half/bfloat16
// conversions (round to nearest even), without any CUDA header.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/spec.h"

namespace collviz {

uint16_t floatToHalf(float f);
float halfToFloat(uint16_t h);
uint16_t floatToBFloat16(float f);
float bfloat16ToFloat(uint16_t b);

// The element's bit pattern (low dtypeSize bytes) for value v, rounded and
// saturated to the dtype; and back.
uint64_t toBits(DType t, double v);
double fromBits(DType t, uint64_t bits);

double readElement(const void* base, DType t, std::size_t i);
void writeElement(void* base, DType t, std::size_t i, double v);

// Largest integer M such that every integer in [0, M] is exact in t.
double exactIntegerLimit(DType t);

}  // namespace collviz
