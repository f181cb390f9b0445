// Plain data, as a tree in flat arrays: None, bools, integers, floats,
// strings, lists, tuples and dicts, nothing else. What a Flight Recorder
// dump holds, read from a pickle by a restricted reader (readPickle: only
// the opcodes that build these, never an object, a global or a call; any
// other opcode refuses the file, named) or from JSON (readJsonPlain).
//
// Bounded: at most kMaxPlainValues values and kMaxPlainDepth nesting, so a
// file of any content reads in memory proportional to its size. A pickle
// may share a value between places (its memo) and even put a list inside
// itself: walkers bound their depth (kMaxPlainDepth) and never recurse on
// their own.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "engine/text.h"

namespace collviz::job {

constexpr std::size_t kMaxPlainValues = std::size_t(1) << 25;  // 33 554 432 values in one file
constexpr std::size_t kMaxPlainDepth = 64;                      // nesting of lists, tuples and dicts
// Memory, not only counts: what a file's values take (nodes, lists, strings,
// the reader's own stacks, counted as they are made) is at most 8 times the
// file's bytes plus 16 MiB, never past 1 GiB; past it the file is refused
// (33 M empty dicts in a 33 MB pickle would take 48 times its size).
constexpr std::size_t kPlainFactor = 8;
constexpr std::size_t kPlainSlack = std::size_t(16) << 20;
constexpr std::size_t kMaxPlainBytes = std::size_t(1) << 30;
constexpr std::size_t plainBudget(std::size_t bytes) {
  return bytes > (kMaxPlainBytes - kPlainSlack) / kPlainFactor ? kMaxPlainBytes : bytes * kPlainFactor + kPlainSlack;
}
// The refusal past it ("would take more than 280 MiB of memory to read ...").
Text overBudget(std::size_t budget);
// Whether nlohmann's DOM of `bytes` (a JSON document) fits `budget`: its
// values counted in one pass (nothing kept) before it is built.
bool jsonDomFits(std::string_view bytes, std::size_t budget);

struct Plain {
  enum class Kind : std::uint8_t { none, boolean, integer, big, real, str, list, tuple, dict };
  struct Node {
    Kind kind = Kind::none;
    std::uint32_t ref = 0;  // str: index in strs; list, tuple, dict: index in items
    union {
      std::int64_t i = 0;   // boolean (0/1), integer
      double f;             // real
    };
  };
  std::vector<Node> nodes;
  std::vector<std::vector<std::uint32_t>> items;  // a dict's: key, value, key, value, ...
  std::vector<std::string_view> strs;             // into the bytes read (pickle) or `owned` (JSON)
  std::deque<std::string> owned;
  std::uint32_t root = 0;
  // Bytes its values take so far, and the most they may (plainBudget of the bytes read).
  std::size_t used = 0, budget = kMaxPlainBytes;

  const Node& operator[](std::uint32_t n) const { return nodes[n]; }
  bool isStr(std::uint32_t n) const { return nodes[n].kind == Kind::str; }
  bool isInt(std::uint32_t n) const { return nodes[n].kind == Kind::integer || nodes[n].kind == Kind::boolean; }
  bool isNone(std::uint32_t n) const { return nodes[n].kind == Kind::none; }
  bool isSeq(std::uint32_t n) const { return nodes[n].kind == Kind::list || nodes[n].kind == Kind::tuple; }
  bool isDict(std::uint32_t n) const { return nodes[n].kind == Kind::dict; }
  std::string_view str(std::uint32_t n) const { return isStr(n) ? strs[nodes[n].ref] : std::string_view(); }
  const std::vector<std::uint32_t>& children(std::uint32_t n) const;  // empty for a scalar
  // A dict's value under `key` (linear: for small dicts), or none.
  bool find(std::uint32_t dict, std::string_view key, std::uint32_t& value) const;
  // A number as an integer: integers, bools, whole reals, and strings of
  // digits (a JSON dump writes pg_status' numbers as strings).
  bool integer(std::uint32_t n, std::int64_t& out) const;
  bool real(std::uint32_t n, double& out) const;

  std::uint32_t add(Kind k);  // a new node (its container or string set by the caller)
  // A new container's node: its items' list (a used one, emptied, where a
  // cleared Plain has one: no allocation file after file).
  std::uint32_t addContainer(Kind k, const std::uint32_t* first = nullptr, std::size_t n = 0);
  void clear();               // empty, its memory kept
  std::size_t containers = 0; // items in use (items.size() may be more: kept for reuse)
};

// `bytes` must outlive the Plain (its strings point into them). The Status
// forms fill `into`, cleared first and its memory reused (a reader of many
// files keeps one a thread).
Result<Plain> readPickle(std::string_view bytes);
Result<Plain> readJsonPlain(std::string_view bytes);
Status readPickle(std::string_view bytes, Plain& into);
Status readJsonPlain(std::string_view bytes, Plain& into);

// The name of a pickle opcode ("GLOBAL"), "" for a byte that is none.
std::string_view pickleOpcodeName(unsigned char op);

}  // namespace collviz::job
