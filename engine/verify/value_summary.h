// Which values of a buffer a printout shows. Small buffers show every value;
// past a limit each block shows its first and last few, the way numpy prints
// a large array, and says how many it left out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "engine/text.h"

namespace collviz {

struct ValueLimit {
  // Buffers of more elements than this are summarised; -1: never (all).
  int64_t max = 1000;
  int64_t edge = 3;  // elements shown at each end of a block when summarised
  bool none = false;  // no values at all
  static ValueLimit all() { return ValueLimit{-1, 3, false}; }
};

// "all", "none" or a count N (summarise buffers of more than N values).
std::optional<ValueLimit> parseValueLimit(const std::string& s, Said* error);
// The same with the error's English only.
std::optional<ValueLimit> parseValueLimit(const std::string& s, std::string* error);

bool summarised(const ValueLimit& l, std::size_t count);

// Calls shown(block, first, last) for each run of shown elements [first,
// last) of a buffer of `count` elements in blocks of `elems`, in order, and
// gap(block, elided) between a block's head and tail. Returns the number of
// elements shown.
std::size_t forEachShown(const ValueLimit& l, std::size_t count, std::size_t elems,
                         const std::function<void(std::size_t, std::size_t, std::size_t)>& shown,
                         const std::function<void(std::size_t, std::size_t)>& gap);

}  // namespace collviz
