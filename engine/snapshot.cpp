#include "engine/snapshot.h"

#include "engine/dtype.h"

#include <cmath>

namespace collviz {
namespace {

std::string subscript(int n) {
  static const char* kDigits[] = {"₀", "₁", "₂", "₃", "₄", "₅", "₆", "₇", "₈", "₉"};
  if (n < 0) return {};
  std::string digits = std::to_string(n), out;
  for (char c : digits) out += kDigits[c - '0'];
  return out;
}

std::string letterName(int letter) {
  if (letter < 0) return "?";
  if (letter < 26) return std::string(1, char('A' + letter));
  return "R" + std::to_string(letter);
}

}  // namespace

std::string BlockLabel::text(RedOp redop) const {
  switch (kind) {
    case Kind::source: return letterName(letter) + subscript(shard);
    case Kind::reduced: {
      if (partial && contributors) {
        const bool fn = redop == RedOp::min || redop == RedOp::max;
        const char* join = fn ? "," : redop == RedOp::prod ? "·" : "+";
        std::string out;
        for (int r = 0; r < 32; ++r)
          if (contributors & (1u << r)) out += (out.empty() ? "" : join) + letterName(r) + subscript(shard);
        return fn ? std::string(redop == RedOp::min ? "min(" : "max(") + out + ")" : out;
      }
      const char* sym = redop == RedOp::sum    ? "Σ"
                        : redop == RedOp::prod ? "Π"
                        : redop == RedOp::min  ? "min"
                        : redop == RedOp::max  ? "max"
                                               : "avg";
      return sym + subscript(shard);
    }
    case Kind::unknown: return empty && bad == 0 ? "—" : "?";
  }
  return "?";
}

namespace {

// Where element i of an `ends` buffer sits in its bytes, or -1 when not held.
int64_t heldIndex(const BufferView& b, std::size_t i) {
  if (b.block_elems <= 0 || int64_t(i) >= b.elements) return -1;
  const int64_t block = int64_t(i) / b.block_elems, k = int64_t(i) % b.block_elems;
  const int64_t base = block * (b.head + b.tail);
  if (k < b.head) return base + k;
  if (k >= b.block_elems - b.tail) return base + b.head + (k - (b.block_elems - b.tail));
  return -1;
}

}  // namespace

bool BufferView::holds(std::size_t i, DType t) const {
  return whole() ? i < count(t) : heldIndex(*this, i) >= 0;
}

double BufferView::value(std::size_t i, DType t) const {
  if (whole()) return readElement(bytes.data(), t, i);
  const int64_t at = heldIndex(*this, i);
  return at < 0 ? std::nan("") : readElement(bytes.data(), t, std::size_t(at));
}

}  // namespace collviz
