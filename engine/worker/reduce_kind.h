// collviz's DType and RedOp as the reduce kernel's kinds
// (worker/reduce_ops.h). Host code only: engine/spec.h is C++20, the kernel
// file C++17. Every DType and RedOp has its case (-Werror=switch).
#pragma once

#include "engine/spec.h"
#include "engine/worker/reduce_ops.h"

namespace collviz {

inline reduce_ops::ElemKind elemKind(DType t) {
  using K = reduce_ops::ElemKind;
  switch (t) {
    case DType::f32: return K::f32;
    case DType::f64: return K::f64;
    case DType::f16: return K::f16;
    case DType::bf16: return K::bf16;
    case DType::i32: return K::i32;
    case DType::i64: return K::i64;
    case DType::u8: return K::u8;
  }
  return K::f32;
}

// avg reduces as sum; its division by N is launchDivide, once at the end.
inline reduce_ops::CombineKind combineKind(RedOp r) {
  using C = reduce_ops::CombineKind;
  switch (r) {
    case RedOp::sum:
    case RedOp::avg: return C::sum;
    case RedOp::prod: return C::prod;
    case RedOp::min: return C::min;
    case RedOp::max: return C::max;
  }
  return C::sum;
}

}  // namespace collviz
