// Parse a block label a reader sees back into what it claims ("A₁+C₁+D₁" =
// ranks {0, 2, 3}, block 1; "Σ₂" = every rank, block 2; "B" = rank 1's
// block 0; broadcast and scatter name the root's pieces; "—" = nothing yet)
// and hold that claim against the bytes under it, element by element, with
// the inputs from the tests' own restatement of the pattern
// (tests/engine/engine_test_support.h), not the engine's decoder.
#pragma once

#include <algorithm>
#include <string>

#include "engine/collectives.h"
#include "tests/engine/engine_test_support.h"

namespace collviz::test {

struct Parsed {
  bool empty = false;
  uint32_t ranks = 0;
  int block = 0;
  std::string error;  // the text is not a label of this spec
};

// "₁₂" at `i` -> 12 (advancing i); -1 when there is no subscript there.
inline int readSubscript(const std::string& t, std::size_t& i) {
  int v = -1;
  while (i + 2 < t.size() + 0 && static_cast<unsigned char>(t[i]) == 0xE2 &&
         static_cast<unsigned char>(t[i + 1]) == 0x82 &&
         static_cast<unsigned char>(t[i + 2]) >= 0x80 && static_cast<unsigned char>(t[i + 2]) <= 0x89) {
    v = std::max(v, 0) * 10 + (static_cast<unsigned char>(t[i + 2]) - 0x80);
    i += 3;
  }
  return v;
}

inline Parsed parseLabel(const std::string& text, const OpSpec& s) {
  Parsed p;
  const uint32_t all = (s.ranks >= 32 ? ~0u : (1u << s.ranks) - 1u);
  if (text == "—") {
    p.empty = true;
    return p;
  }
  std::size_t i = 0;
  if (text.rfind("Σ", 0) == 0) {  // every rank, summed
    i = std::string("Σ").size();
    p.ranks = all;
    p.block = std::max(0, readSubscript(text, i));
    if (i != text.size()) p.error = "trailing text after Σ";
    return p;
  }
  int parts = 0, letter = -1, shard = -2;
  while (i < text.size()) {
    if (parts > 0) {
      if (text[i] != '+') return {false, 0, 0, "expected + at byte " + std::to_string(i)};
      ++i;
    }
    if (i >= text.size() || text[i] < 'A' || text[i] > 'Z')
      return {false, 0, 0, "expected a rank's letter at byte " + std::to_string(i)};
    letter = text[i++] - 'A';
    const int sub = readSubscript(text, i);
    if (shard != -2 && sub != shard) return {false, 0, 0, "parts name different blocks"};
    shard = sub;
    if (p.ranks & (1u << letter)) return {false, 0, 0, "a rank named twice"};
    p.ranks |= 1u << letter;
    ++parts;
  }
  if (parts == 0) return {false, 0, 0, "no label"};
  if (parts == 1 && collective(s.op).letters == Lettering::root_piece) {
    p.ranks = 1u << s.root;  // the letter names the piece of the root's tensor
    p.block = letter;
    return p;
  }
  p.block = std::max(0, shard);
  if (p.ranks & ~all) p.error = "names a rank outside the group";
  return p;
}

// Checks the label text of block/slot `k` of `buf` against its bytes; returns
// "" or what is wrong.
inline std::string labelMatchesBytes(const std::string& text, const OpSpec& s, const TestPattern& tp,
                              const BufferView& buf, int k) {
  const Parsed p = parseLabel(text, s);
  if (!p.error.empty()) return "'" + text + "': " + p.error;
  for (int64_t e = 0; e < s.elems; ++e) {
    const std::size_t at = std::size_t(k) * std::size_t(s.elems) + std::size_t(e);
    if (!buf.holds(at, s.dtype)) return "'" + text + "': element not held";
    const double got = buf.value(at, s.dtype);
    double want = 0;
    if (!p.empty)
      for (int r = 0; r < s.ranks; ++r)
        if (p.ranks & (1u << r)) want += testPatternValue(s, tp, r, p.block, e);
    if (got != want)
      return "'" + text + "' element " + std::to_string(e) + ": the bytes hold " +
             std::to_string(got) + ", the label's contributors add up to " + std::to_string(want);
  }
  return "";
}

}  // namespace collviz::test
