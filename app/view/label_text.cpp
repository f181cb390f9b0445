#include "app/view/label_text.h"

#include <bit>

namespace collviz::ui {

namespace {

std::string subscript(int n) {
  static const char* kDigits[] = {"₀", "₁", "₂", "₃", "₄", "₅", "₆", "₇", "₈", "₉"};
  if (n < 0) return {};
  std::string out;
  for (char c : std::to_string(n)) out += kDigits[c - '0'];
  return out;
}

std::string letter(int r) { return r < 26 ? std::string(1, char('A' + r)) : "R" + std::to_string(r); }

std::string opSymbol(RedOp r) {
  switch (r) {
    case RedOp::sum: case RedOp::avg: return "Σ";
    case RedOp::prod: return "Π";
    case RedOp::min: return "min";
    case RedOp::max: return "max";
  }
  return "Σ";
}

// The contributors as one run in rank order, wrapping past the highest
// rank: its first and last rank, or false.
bool cyclicRun(uint32_t set, int n, int* first, int* last) {
  const int k = std::popcount(set);
  if (n < 1 || n > 32 || (n < 32 && (set >> n) != 0)) return false;
  if (k == n) {
    *first = 0;
    *last = n - 1;
    return true;
  }
  for (int start = 0; start < n; ++start) {
    if (!(set >> start & 1u) || (set >> ((start + n - 1) % n) & 1u)) continue;  // a run's first
    int len = 0;
    while (len < k && (set >> ((start + len) % n) & 1u)) ++len;
    if (len != k) return false;
    *first = start;
    *last = (start + k - 1) % n;
    return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> labelForms(const BlockLabel& l, RedOp redop, int ranks) {
  std::vector<std::string> forms = {l.text(redop)};
  const int k = std::popcount(l.contributors);
  if (l.kind != BlockLabel::Kind::reduced || !l.partial || k < 2) return forms;
  const std::string sub = subscript(l.shard), sym = opSymbol(redop), count = "(" + std::to_string(k) + ")";
  int first = 0, last = 0;
  if (k == 2) {
    // Two terms: no range or "first two" form is shorter than the sum itself.
  } else if (cyclicRun(l.contributors, ranks, &first, &last)) {
    forms.push_back(sym + "{" + letter(first) + "–" + letter(last) + "}" + sub);
  } else {
    int a = -1, b = -1;
    for (int r = 0; r < 32 && b < 0; ++r)
      if (l.contributors >> r & 1u) (a < 0 ? a : b) = r;
    const bool fn = redop == RedOp::min || redop == RedOp::max;
    const std::string join = redop == RedOp::prod ? "·" : "+";
    forms.push_back(fn ? sym + "{" + letter(a) + "," + letter(b) + ",…}" + count + sub
                       : letter(a) + join + letter(b) + join + "…" + count + sub);
  }
  forms.push_back(sym + count + sub);
  forms.push_back(sym + "…" + sub);
  return forms;
}

}  // namespace collviz::ui
