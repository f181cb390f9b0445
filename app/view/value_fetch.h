// Exact values of a big block on demand: the tooltip's elements under the
// mouse. Values the snapshot holds (every value of a small buffer, the ends
// of each big block) are read from it; any other range is asked of the
// engine (Engine::fetchValues: a short lock, never an op), which answers from
// the workers' shared memory while that run is its newest. Answers are kept
// per snapshot and range, so a tooltip drawn every frame asks once. Pure: no
// ImGui, no GL.
#pragma once

#include <cstdint>
#include <deque>
#include <string>

#include "app/view/diagram_model.h"
#include "app/view/runs.h"

namespace collviz::ui {

// The element of a block of `elems` elements under the fraction `x` (0..1)
// of its tile's width.
int64_t elementAt(int64_t elems, float x);

class ValueFetcher {
 public:
  explicit ValueFetcher(const Runner& r) : runner_(r) {}
  // The line for elements [first, first + count) of block `block` of the
  // buffer behind `column`, row `rank` of `m` ("elements 4096–4103 (exact):
  // 4096, …", counted within the block, as the bins are), or why there are
  // none.
  std::string line(const DiagramModel& m, int column, int rank, int block, int64_t first,
                   int64_t count);
  int fetches() const { return fetches_; }  // calls to the engine so far

 private:
  struct Entry {
    uint64_t seq = 0;
    int column = 0, rank = 0;
    int64_t first = 0, count = 0;
    std::string text;
  };
  const Runner& runner_;
  std::deque<Entry> cache_;
  int fetches_ = 0;
};

}  // namespace collviz::ui
