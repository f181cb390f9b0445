// A schedule: how an algorithm runs one collective as rounds of
// point-to-point messages. Pure data, built from (algorithm, OpSpec); the
// rank workers execute it on a backend's send/recv and the engine checks
// every round against a symbolic reference (engine/algo/reference.h).
//
// Every rank has a working buffer of `slots` slots of E elements (one block
// each). It starts from the rank's input blocks (`init`), every round moves
// slots between ranks, and the output buffer is read from `output` slots
// after the last round.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/spec.h"
#include "engine/text.h"

namespace collviz::algo {

// One message of a round: slots `src` of rank `from`'s working buffer land
// in slots `dst` of rank `to`'s, overwriting them, or combined into them
// with the reduce op when `reduce`.
struct Move {
  int from = 0, to = 0;
  std::vector<int> src, dst;  // same length, in order
  bool reduce = false;
  // What an MSCCL file says of the message beyond its data (channel,
  // threadblocks, protocol, step types): shown, never acted on.
  std::string attrs;
  int channel = -1;  // an MSCCL file's channel (its sender's threadblock); -1: none
};

// A local copy inside one rank (Bruck's rotations; an MSCCL file's cpy and
// re): every source is read before any destination is written; copies of
// one list run in order. `reduce`: combined into the destination with the
// reduce op instead of overwriting it.
struct LocalCopy {
  int rank = 0;
  std::vector<int> src, dst;
  bool reduce = false;
};

// Local work is a step of its own: buildSchedule hands out schedules whose
// rounds either send messages or copy locally (a "local" round: no moves,
// its copies in `before`), never both, so the buffer shown before a message
// round is exactly what its sends read (separateLocalSteps).

struct Round {
  // "reduce-scatter", "all-gather", "broadcast", ...: a message whose id is
  // the phase (app/lang has every built-in phase), so a reader sees it translated.
  Said phase;
  int step = 1;       // 1-based place within the phase
  int steps = 1;      // rounds in the phase
  std::vector<Move> moves;
  std::vector<LocalCopy> before;  // local copies before the messages
  std::vector<LocalCopy> after;   // and after them
  Said name() const;              // "reduce-scatter 2/3"; a local round: its phase
  bool local() const { return moves.empty() && (!before.empty() || !after.empty()); }
};

struct Schedule {
  OpSpec spec;
  std::string algo;
  int slots = 0;                        // working-buffer slots per rank
  // Slots per block: 1 for the built-in algorithms; an MSCCL file whose
  // chunks split each block in k (engine/algo/msccl/msccl.h) has slots of E/k
  // elements, and `init`/`output` count pieces (block * parts + part).
  int parts = 1;
  std::vector<std::vector<int>> init;   // [rank][slot]: input piece held, -1 empty (zero)
  std::vector<Round> rounds;
  std::vector<std::vector<int>> output; // [rank]: output pieces' slots, in order
  bool average = false;                 // redop avg: output slots divided by N at the end

  // An MSCCL file's path (empty for the built-in algorithms): the engine
  // lowered it and sends each rank its part (schedule_wire.h).
  std::string file;

  int64_t slotElems() const { return spec.elems / parts; }
  std::size_t slotBytes() const { return std::size_t(slotElems()) * dtypeSize(spec.dtype); }
  std::size_t workBytes() const { return std::size_t(slots) * slotBytes(); }
  // Bytes rank `rank` sends / receives in round `round` (or in every round, -1).
  uint64_t bytesSent(int rank, int round = -1) const;
  uint64_t bytesReceived(int rank, int round = -1) const;
  int messageRounds() const;  // rounds that send messages (local rounds not counted)
};

// Builder helpers shared by the algorithm files.
Schedule emptySchedule(const OpSpec& s, const std::string& algo, int slots);
// Every rank holds its input blocks in slots 0.. (or, `at_rank`, its single
// input block in slot `rank`).
void initFromInput(Schedule& s, bool at_rank = false);
// Output of every rank that has one: `first`, first+1, ... (one per block).
void outputFrom(Schedule& s, int first = 0);
std::vector<int> slotRange(int first, int count);
// Append a round of `phase` (step/steps) and return it.
Round& addRound(Schedule& s, const std::string& phase, int step, int steps);
// Append a local round (copies only) named `phase` and return it.
Round& addLocalRound(Schedule& s, const std::string& phase);
// Every round that both copies locally and sends becomes up to three rounds
// (its `before` copies, its messages, its `after` copies); copies of a slot
// onto itself are dropped, and so are local rounds left with nothing to do.
void separateLocalSteps(Schedule& s);
// Append a move to `round`; dst = src when omitted.
void addMove(Round& round, int from, int to, std::vector<int> src, bool reduce,
             std::vector<int> dst = {});
// ceil(log2(n)); 0 for n <= 1.
int ceilLog2(int n);
// Largest power of two <= n (n >= 1).
int floorPow2(int n);

}  // namespace collviz::algo
