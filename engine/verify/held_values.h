// Which values of a buffer a snapshot holds. Teaching sizes keep every value;
// a buffer whose blocks are too big to list keeps, per block, its first
// kHeldHead and last kHeldTail elements (exact values) next to its overview
// (engine/verify/overview.h). Any other range is read on demand from the workers'
// shared memory (Engine::fetchValues) while the run is the latest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/snapshot.h"
#include "engine/verify/value_summary.h"

namespace collviz {

inline constexpr int64_t kHeldHead = 64;
inline constexpr int64_t kHeldTail = 16;

// Does a buffer of `count` elements in blocks of `elems` keep every value?
// Yes when its blocks fit in the held ends, or when `keep` (Request::
// keep_values) says so: -1 every buffer, else buffers of at most `keep`
// elements.
bool holdsWhole(std::size_t count, int64_t elems, int64_t keep);

// Copy into `b` what a snapshot keeps of `data` (`count` elements of `t` in
// blocks of `elems`): all of it when `whole`, else the ends of each block.
void holdValues(BufferView& b, const std::byte* data, std::size_t count, DType t, int64_t elems,
                bool whole);

// Cut a buffer that holds every value down to the ends of its blocks, unless
// holdsWhole says it stays (an algorithm's rounds, checked on full copies).
void keepEnds(BufferView& b, DType t, int64_t elems, int64_t keep);

// Which buffer of a rank a fetch reads.
enum class BufferSide : uint8_t { input, output };

// Exact values read back from the workers' shared memory (Engine::
// fetchValues).
struct FetchedValues {
  enum class Status : uint8_t {
    ok,           // `bytes` are what the workers' memory holds there now
    stale,        // a newer request has used that memory since
    unavailable,  // never held there (failed run, algorithm rounds, no such buffer)
  };
  Status status = Status::unavailable;
  DType dtype = DType::f32;
  int64_t first = 0;             // index of the first element in its buffer
  std::vector<std::byte> bytes;  // the elements from `first` (fewer at the buffer's end)
  Said why;                      // stale or unavailable: one line for a viewer
  std::size_t count() const { return bytes.size() / dtypeSize(dtype); }
  double value(std::size_t k) const;  // element first + k as a double
};

// The most elements one fetch returns.
inline constexpr int64_t kFetchMax = int64_t(1) << 16;

// The printout limit `l` narrowed to what `b` holds: a buffer that holds only
// the ends of its blocks is always summarised, with no more than the held
// elements at each end.
ValueLimit heldLimit(const ValueLimit& l, const BufferView& b);

}  // namespace collviz
