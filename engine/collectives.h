// The table of collectives: every fact that defines one op, filled in one
// row (in the spirit of nccl-tests' `struct testColl`). Spec names, the
// oracle's data relation, the verifier's labels, bench arithmetic and the
// diagram's flow shape all read it from here; only the communicators switch
// on Op, to choose a backend call.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace collviz {

// The eight collectives, in the article's order.
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


// How many blocks of E elements a rank's buffer holds.
enum class Blocks : uint8_t { none, one, ranks };
inline int blockCount(Blocks b, int ranks) {
  return b == Blocks::none ? 0 : b == Blocks::one ? 1 : ranks;
}

// A buffer's block count at the root and at every other rank (ops without a
// root have the same count everywhere).
struct BufferShape {
  Blocks root;
  Blocks other;
};

// What the letters on the tiles name: the rank a block came from (A = rank
// 0), or the piece of the root's tensor (broadcast, scatter: the root holds
// pieces A, B, C, ... of one tensor).
enum class Lettering : uint8_t { rank, root_piece };

// The source-block relation: output block j of rank r holds input block
// `block` of the ranks `ranks`, combined with the reduce op when `reduced`.
enum class FromRanks : uint8_t { root, rank_j, all };
enum class FromBlock : uint8_t { zero, j, r };
struct SourceRelation {
  FromRanks ranks;
  FromBlock block;
  bool reduced;
};

// How the diagram draws the data moving between Input and Output (the
// article's kinds): one curve per (source row, destination row), every
// source into a "+" node, or every source into a striped "join" node.
enum class FlowShape : uint8_t { pairs, sum_node, concat_node };

// Where collviz places an MPI rank for the op on one host when ranks
// outnumber cores (engine/worker/op_binding.h, docs/mpi.md): a core each
// (rank r on core r mod cores) where every rank works at once; broadcast's
// chain from the root, neighbours sharing a core; every core where the root
// works and the others mostly wait.
enum class MpiPlacement : uint8_t { core_each, chain_from_root, every_core };

// busbw = algbw * factor, factor = times * (N - 1) / N, or 1.
struct BusFactor {
  int times;             // 2 for all_reduce, 1 otherwise
  bool n_minus_1_over_n;  // false: the factor is 1
  std::string_view text;  // "2(N-1)/N"
  double at(int ranks) const {
    return n_minus_1_over_n ? times * double(ranks - 1) / ranks : double(times);
  }
};

struct Collective {
  Op op;
  int number;  // the article's numbering, 1..8
  std::string_view name;    // CLI and JSON: "all_reduce"
  std::string_view title;   // "All-reduce"
  std::string_view phrase;  // "everyone gets the total"
  bool reduces;    // combines values with the reduce op
  bool uses_root;
  Lettering letters;
  BufferShape input, output;
  SourceRelation source;
  // Bench (nccl-tests): the count passed to the call is one peer's block
  // (`per_peer`; then S = per-rank bytes * N) or `count_blocks` blocks.
  bool per_peer;
  Blocks count_blocks;
  BusFactor bus;
  FlowShape flow;
  MpiPlacement mpi_placement;
};

inline constexpr std::array<Collective, kOpCount> kCollectives = {{
    {Op::broadcast, 1, "broadcast", "Broadcast", "copy the whole thing",
     false, true, Lettering::root_piece,
     {Blocks::ranks, Blocks::none}, {Blocks::ranks, Blocks::ranks},
     {FromRanks::root, FromBlock::j, false},
     false, Blocks::ranks, {1, false, "1"}, FlowShape::pairs,
     MpiPlacement::chain_from_root},
    {Op::scatter, 2, "scatter", "Scatter", "cut and hand out",
     false, true, Lettering::root_piece,
     {Blocks::ranks, Blocks::none}, {Blocks::one, Blocks::one},
     {FromRanks::root, FromBlock::r, false},
     true, Blocks::one, {1, true, "(N-1)/N"}, FlowShape::pairs,
     MpiPlacement::every_core},
    {Op::gather, 3, "gather", "Gather", "collect and join",
     false, true, Lettering::rank,
     {Blocks::one, Blocks::one}, {Blocks::ranks, Blocks::none},
     {FromRanks::rank_j, FromBlock::zero, false},
     true, Blocks::one, {1, true, "(N-1)/N"}, FlowShape::pairs,
     MpiPlacement::every_core},
    {Op::reduce, 4, "reduce", "Reduce", "add element-wise",
     true, true, Lettering::rank,
     {Blocks::one, Blocks::one}, {Blocks::one, Blocks::none},
     {FromRanks::all, FromBlock::zero, true},
     false, Blocks::one, {1, false, "1"}, FlowShape::sum_node,
     MpiPlacement::every_core},
    {Op::all_gather, 5, "all_gather", "All-gather", "join everywhere",
     false, false, Lettering::rank,
     {Blocks::one, Blocks::one}, {Blocks::ranks, Blocks::ranks},
     {FromRanks::rank_j, FromBlock::zero, false},
     true, Blocks::one, {1, true, "(N-1)/N"}, FlowShape::concat_node,
     MpiPlacement::core_each},
    {Op::reduce_scatter, 6, "reduce_scatter", "Reduce-scatter", "add, then shard",
     true, false, Lettering::rank,
     {Blocks::ranks, Blocks::ranks}, {Blocks::one, Blocks::one},
     {FromRanks::all, FromBlock::r, true},
     true, Blocks::one, {1, true, "(N-1)/N"}, FlowShape::sum_node,
     MpiPlacement::core_each},
    {Op::all_reduce, 7, "all_reduce", "All-reduce", "everyone gets the total",
     true, false, Lettering::rank,
     {Blocks::ranks, Blocks::ranks}, {Blocks::ranks, Blocks::ranks},
     {FromRanks::all, FromBlock::j, true},
     false, Blocks::ranks, {2, true, "2(N-1)/N"}, FlowShape::sum_node,
     MpiPlacement::core_each},
    {Op::all_to_all, 8, "all_to_all", "All-to-all", "exchange by column",
     false, false, Lettering::rank,
     {Blocks::ranks, Blocks::ranks}, {Blocks::ranks, Blocks::ranks},
     {FromRanks::rank_j, FromBlock::r, false},
     true, Blocks::one, {1, true, "(N-1)/N"}, FlowShape::pairs,
     MpiPlacement::core_each},
}};

// Every enumerator is listed (the build makes a missing case an error), so a
// new Op fails to compile here until it has a row.
constexpr bool opInTable(Op op) {
  switch (op) {
    case Op::broadcast:
    case Op::scatter:
    case Op::gather:
    case Op::reduce:
    case Op::all_gather:
    case Op::reduce_scatter:
    case Op::all_reduce:
    case Op::all_to_all: return static_cast<int>(op) < kOpCount;
  }
  return false;
}

// Each row sits at its op's index, and the article numbers run 1..N in the
// enum's order (so a new op needs a row here, or this fails to compile).
constexpr bool tableInOrder() {
  for (int i = 0; i < kOpCount; ++i)
    if (int(kCollectives[i].op) != i || kCollectives[i].number != i + 1 ||
        !opInTable(kCollectives[i].op))
      return false;
  return true;
}
static_assert(tableInOrder(), "kCollectives: one row per Op, in the enum's order");

constexpr const Collective& collective(Op op) { return kCollectives[static_cast<int>(op)]; }

// The two-step all-reduce decomposition follows the eight ops in the
// window's list, the figure set and the file names.
inline constexpr int kDecompositionNumber = kOpCount + 1;

}  // namespace collviz
