#include "engine/snapshot.h"

#include "engine/dtype.h"

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

double BufferView::value(std::size_t i, DType t) const {
  return readElement(bytes.data(), t, i);
}

}  // namespace collviz
