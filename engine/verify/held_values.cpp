#include "engine/verify/held_values.h"

#include <algorithm>
#include <cstring>

#include "engine/dtype.h"

namespace collviz {

bool holdsWhole(std::size_t count, int64_t elems, int64_t keep) {
  if (elems <= kHeldHead + kHeldTail || keep < 0) return true;
  return count <= std::size_t(keep);
}

void holdValues(BufferView& b, const std::byte* data, std::size_t count, DType t, int64_t elems,
                bool whole) {
  const std::size_t sz = dtypeSize(t);
  b.bytes.clear();
  if (whole || elems <= kHeldHead + kHeldTail) {
    b.held = BufferView::Held::all;
    b.elements = int64_t(count);
    b.block_elems = elems;
    b.head = b.tail = 0;
    if (count) b.bytes.assign(data, data + count * sz);
    return;
  }
  b.held = BufferView::Held::ends;
  b.elements = int64_t(count);
  b.block_elems = elems;
  b.head = kHeldHead;
  b.tail = kHeldTail;
  const std::size_t blocks = count / std::size_t(elems);
  b.bytes.resize(blocks * std::size_t(kHeldHead + kHeldTail) * sz);
  std::byte* to = b.bytes.data();
  for (std::size_t j = 0; j < blocks; ++j) {
    const std::byte* block = data + j * std::size_t(elems) * sz;
    std::memcpy(to, block, std::size_t(kHeldHead) * sz);
    to += std::size_t(kHeldHead) * sz;
    std::memcpy(to, block + std::size_t(elems - kHeldTail) * sz, std::size_t(kHeldTail) * sz);
    to += std::size_t(kHeldTail) * sz;
  }
}

void keepEnds(BufferView& b, DType t, int64_t elems, int64_t keep) {
  if (!b.whole()) return;
  const std::size_t count = b.count(t);
  if (holdsWhole(count, elems, keep)) return;
  std::vector<std::byte> all = std::move(b.bytes);
  holdValues(b, all.data(), count, t, elems, false);
}

double FetchedValues::value(std::size_t k) const { return readElement(bytes.data(), dtype, k); }

ValueLimit heldLimit(const ValueLimit& l, const BufferView& b) {
  if (b.whole()) return l;
  return ValueLimit{0, std::clamp<int64_t>(l.edge, 1, std::min(b.head, b.tail)), l.none};
}

}  // namespace collviz
