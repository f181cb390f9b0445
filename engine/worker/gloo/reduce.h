// Gloo's element-wise reduce function for a reduce op and element type
// (avg reduces as sum; the division by N comes once at the end).
#pragma once

#include <gloo/math.h>

#include <cstddef>

#include "engine/spec.h"

namespace collviz {

using GlooReduceFn = void (*)(void*, const void*, const void*, size_t);

template <typename T>
GlooReduceFn glooReduceFn(RedOp r) {
  switch (r) {
    case RedOp::prod: return &gloo::product<T>;
    case RedOp::min: return &gloo::min<T>;
    case RedOp::max: return &gloo::max<T>;
    case RedOp::sum:
    case RedOp::avg: return &gloo::sum<T>;
  }
  return &gloo::sum<T>;
}

}  // namespace collviz
