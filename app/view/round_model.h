// The algorithm view's model: every rank's working buffer after one round of
// an algorithm (engine/algo), the round's transfers with the slots they read
// and write, what each slot just became, and the traffic counted so far.
// Labels come from the engine's snapshot (decoded from the bytes); before a
// run, from the schedule's symbolic reference, marked as expected. Pure.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/algo/algorithms.h"
#include "engine/algo/reference.h"
#include "engine/snapshot.h"

namespace collviz::ui {

// One message of the shown round: slots `src` of `from` land in slots `dst`
// of `to` (the schedule's Move; the engine ran the same schedule).
// A local step's copies are arrows too, from == to and `local` set: slot
// src[i] of the rank's buffer before the step lands in its slot dst[i].
struct RoundArrow {
  int from = 0, to = 0;
  std::vector<int> src, dst;
  bool reduce = false;
  bool local = false;  // a copy inside one rank, no message (bytes = 0)
  uint64_t bytes = 0;
  int channel = -1;  // an MSCCL file's channel; -1: none
};

// What a slot became in the shown round.
enum class SlotMark : uint8_t { none, received, reduced, moved };

struct RoundModel {
  OpSpec spec;
  std::string algo;
  std::shared_ptr<const Snapshot> snapshot;  // null: not yet run (expected labels)
  std::string error;                         // the algorithm cannot run this spec
  int rounds = 0;                            // rounds of the schedule
  int round = 0;                             // shown: 0 the start, k after round k
  int slots = 0;
  // Slots per block: an MSCCL file whose chunks split each block in `parts`
  // (slot k is chunk k % parts of block k / parts); 1 for the built-ins.
  int parts = 1;
  int channels = 1;  // an MSCCL file's channels (arrows apart per channel)
  std::vector<std::vector<BlockLabel>> now;     // [rank][slot] after `round`
  std::vector<std::vector<BlockLabel>> before;  // [rank][slot] before it
  std::vector<RoundArrow> arrows;               // round `round`'s messages (none at 0)
  std::vector<std::vector<SlotMark>> marks;     // [rank][slot]
  bool local = false;  // the shown step is local copies only (no messages)
  int message_rounds = 0;  // steps that send messages
  int message_round = 0;   // of them, done up to and including the shown step
  std::string name;   // "reduce-scatter 2/3", "local: rotate by r", "start"; "" for a
                      // single phase named as the algorithm (bruck)
  std::string title;  // the heading line: "ring · round 3/6 · reduce-scatter 3/3", each thing once
  std::string bar;    // "reduce-scatter 2/3 · all-gather 0/3" (two or more message phases)
  // Traffic: bytes each rank sent / received in rounds 1..round, and in all.
  std::vector<uint64_t> sent, received, sent_total;
  // Ranks on several hosts (rank_hosts.h): each rank's host (empty on one
  // host), and of `sent` and `received` the bytes of messages across hosts
  // (the rest stayed within the rank's host).
  std::vector<std::string> hosts;
  std::vector<uint64_t> sent_across, received_across;
  algo::Figures formula;
  std::vector<double> round_us;  // measured per round (empty before a run)
  bool ran() const { return snapshot != nullptr; }
};

// The rounds `algo` takes for `spec` (0: native, or it cannot run `spec`).
int algoRounds(const std::string& algo, const OpSpec& spec);
// Is `algo` one of the engine's algorithms (not native) and does it serve `op`?
bool isRoundAlgo(const std::string& algo, Op op);

// The model of round `round` (clamped to 0..rounds). `snap` is used when it
// is this algorithm's run of this spec.
RoundModel buildRoundModel(const OpSpec& spec, const std::string& algo, int round,
                           std::shared_ptr<const Snapshot> snap);

// The label a symbolic slot state gets (what the engine's decoder says for
// the same contributors): a source letter, a partial "A₁+B₁", Σ, or empty.
BlockLabel slotLabel(const OpSpec& spec, const algo::SlotState& st);

}  // namespace collviz::ui
