// Output poison: what every output buffer holds right before the collective
// whose result is checked. A backend that does not write leaves it there,
// and no pattern value or combination of them is ever equal to it, so an
// unwritten block fails verification on the first run and on every repeat
// instead of showing the previous run's bytes.
//
//   floats (f32, f64, f16, bf16): bytes 0xFF, a NaN (never equal, never decodes)
//   i32, i64:                     bytes 0xFF, -1 (pattern values are all > 0)
//   u8:                           0x00 (every pattern value holds at least one
//                                 rank's bit or factor, so none is 0; 0xFF is
//                                 a valid u8 value)
//
// Header-only byte rule so the NCCL files can use it with cudaMemsetAsync.
#pragma once

#include <cstddef>
#include <cstring>

#include "engine/spec.h"

namespace collviz {

constexpr unsigned char poisonByte(DType t) { return t == DType::u8 ? 0x00 : 0xFF; }

inline void poisonBytes(void* p, std::size_t bytes, DType t) {
  if (p && bytes) std::memset(p, poisonByte(t), bytes);
}

// Does element i of `base` still hold the poison?
inline bool isPoison(const std::byte* base, DType t, std::size_t i) {
  const std::size_t sz = dtypeSize(t);
  for (std::size_t k = 0; k < sz; ++k)
    if (static_cast<unsigned char>(base[i * sz + k]) != poisonByte(t)) return false;
  return true;
}

}  // namespace collviz
