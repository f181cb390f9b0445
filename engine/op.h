// The eight collectives, in the article's order. Everything else about an op
// lives in its row of engine/collectives.h.
#pragma once

#include <cstdint>

namespace collviz {

enum class Op : uint8_t {
  broadcast,
  scatter,
  gather,
  reduce,
  all_gather,
  reduce_scatter,
  all_reduce,
  all_to_all,
};
inline constexpr int kOpCount = 8;

}  // namespace collviz
