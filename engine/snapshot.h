// Snapshot: the immutable result of one request, handed from the engine
// thread to readers as shared_ptr<const Snapshot>. A reader never sees a torn
// snapshot: it is built whole, then published by swapping one pointer.
#pragma once

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/spec.h"
#include "engine/text.h"

namespace collviz {

namespace nccl_log {
struct Log;  // engine/job/nccl_log/nccl_log.h
}

// A block's label, decoded from the bytes a backend returned.
struct BlockLabel {
  enum class Kind : uint8_t {
    source,   // a copy of one input block (A, B₂, ...)
    reduced,  // a combination (Σ, Σ₁, max, ...)
    unknown,  // bytes that decode to no allowed provenance
  };
  Kind kind = Kind::unknown;
  int letter = -1;            // source: colour index (A = 0)
  int shard = -1;             // subscript, -1 when none
  uint32_t contributors = 0;  // ranks whose data the bytes name (bitmask)
  int bad = 0;                // elements that fail decoding or verification
  // true: letter, shard and contributors all read from the bytes; false:
  // part of the label comes from the oracle (the pattern does not carry it
  // for this dtype/N/E/redop; see provenance.h) and the picture marks it.
  bool decoded = false;
  bool partial = false;       // reduced over some ranks only (an algorithm's round)
  bool empty = false;         // an algorithm's slot nothing has reached yet
  // "A₂", "Σ₁", "max₀", "?", a partial "A₁+B₁", an empty slot "—"; UTF-8.
  std::string text(RedOp redop) const;
};

// A fixed-size summary of one big block for the window: bins of
// consecutive elements with their smallest and largest value and whether
// every element of the bin decoded to what the op puts there.
struct BlockOverview {
  std::vector<float> lo, hi;  // per bin
  std::vector<uint8_t> ok;    // per bin: 1 when every element checked out
  int64_t elems = 0;          // elements in the block
  int bins() const { return int(lo.size()); }
  int64_t binFirst(int k) const { return elems * k / std::max(1, bins()); }
};

// One rank's input or output buffer as a snapshot holds it.
struct BufferView {
  // What `bytes` holds. all: every element. ends: a buffer too big to copy
  // for a viewer (engine/verify/held_values.h): per block of `block_elems`, its
  // first `head` elements, then its last `tail`; the other values stay in the
  // workers' shared memory (Engine::fetchValues) and in `overview`.
  enum class Held : uint8_t { all, ends };
  bool present = false;           // false: no buffer ("—", unspecified)
  Held held = Held::all;
  std::vector<std::byte> bytes;   // raw elements, dtype from the spec
  std::vector<BlockLabel> labels; // one per block
  std::vector<BlockOverview> overview;  // one per block when blocks are big, else empty
  int64_t elements = 0;     // ends: elements in the whole buffer
  int64_t block_elems = 0;  // ends: elements per block
  int64_t head = 0, tail = 0;  // ends: elements held at each block's start and end
  bool whole() const { return held == Held::all; }
  // Elements in the buffer, held here or not.
  std::size_t count(DType t) const {
    return whole() ? bytes.size() / dtypeSize(t) : std::size_t(elements);
  }
  bool holds(std::size_t i, DType t) const;  // is element i's value in `bytes`?
  // Element i as a double; NaN when it is not held (check holds(i)).
  double value(std::size_t i, DType t) const;
};

struct RankResult {
  int rank = 0;
  BufferView input;
  BufferView output;
  double op_us = 0;    // this rank's time inside the communicator call
  double copy_us = 0;  // device<->host copies (NCCL), 0 on CPU
  Said copies;  // NCCL: "page-locked (...)" or "pageable (why)"; empty on CPU
  // On the steady clock (us since its epoch), where the rank said (Gloo on
  // this host; else 0): the run reached it, its warm-up calls ended, its
  // timed calls began (its output poisoned) and ended.
  double got_at_us = 0, warm_end_at_us = 0, timed_begin_at_us = 0, timed_end_at_us = 0;
};

struct Verification {
  bool verified = false;
  int64_t wrong = 0;          // elements that fail any check, each counted once
  int64_t mismatches = 0;     // elements that differ from the oracle
  int64_t undecodable = 0;    // elements whose provenance is not allowed
  int64_t unwritten = 0;      // elements that still hold the poison (engine/verify/poison.h)
  std::string mode;           // "provenance" or "values" (pattern beyond limits)
  Said first_problem;  // "rank 2 block 1 element 3: got 7, want 8"
  // One line per wrong output block, what it holds and what belongs there:
  // "rank 0 output block 0: Σ₃ where Σ₀ belongs (4 of 4 elements wrong)".
  std::vector<Said> bad_blocks;
};

// One message of an algorithm's round, as counted by the engine.
struct Transfer {
  int from = 0, to = 0;
  std::size_t bytes = 0;
  int block = 0;        // first working-buffer slot sent
  int blocks = 1;       // slots sent
  bool reduce = false;  // the receiver combines instead of overwriting
  std::vector<int> src_slots, dst_slots;  // sender's slots read, receiver's written (in order)
  std::string attrs;    // an MSCCL message's channel, tbs, protocol (algo::Move::attrs)
};

// A rank's local copy in an algorithm's step: slot from[i] to slot to[i]
// of its working buffer, every source read before any destination written.
struct LocalMove {
  int rank = 0;
  std::vector<int> from, to;
  bool reduce = false;  // combined into the destination (an MSCCL file's re)
};

struct StepResult {
  OpSpec spec;
  std::vector<RankResult> ranks;
  Verification verify;
  double time_us = 0;  // slowest rank's op time
  double wait_us = 0;  // engine: from sending the op to the last rank's reply (measured)
  // wait_us split where every rank stamped its run (RankResult::got_at_us...;
  // all 0 where not), each part ending when the last rank ended it: the run
  // reaching every rank, the warm-up calls, the outputs poisoned in the
  // ranks, the timed calls, and the replies back (with the rank's last
  // work). They add up to wait_us.
  double reach_us = 0, warmup_us = 0, rank_poison_us = 0, timed_us = 0, replies_us = 0;
  // Across hosts (issue 33): the engine's time moving remote ranks' buffers
  // (inputs and poisoned outputs sent before the op, outputs fetched after
  // it; part of wait_us) and how many bytes that was. 0 on one machine.
  double wire_us = 0;
  uint64_t wire_bytes = 0;
  // An algorithm's round: ranks[r].output is rank r's working buffer after it.
  Said name;          // "reduce-scatter 2/3"; empty for a whole op
  std::string phase;  // "reduce-scatter"
  std::vector<Transfer> transfers;
  std::vector<LocalMove> local;  // a local step's copies (a step has these or transfers)
};

// An algorithm's textbook figures next to what was counted.
struct AlgoFormula {
  Said text;
  int rounds = 0;
  double bytes = 0;    // busiest rank's bytes sent by the formula
  bool exact = true;   // the schedule must send exactly that
};

struct BackendInfo {
  std::string name;       // "gloo" / "nccl"
  std::string version;
  Said devices;           // "CPU (2 cores)", "1 x NVIDIA H200 (139 GiB)"
  Said transport;         // "tcp 127.0.0.1", "socket over lo (NCCL_HOSTID per rank)"
  Said notes;             // how ops the backend lacks are done, fallbacks
};

// Where a rank ran, across hosts (issue 33): its host's name and its pid there.
struct RankPlace {
  int rank = 0;
  std::string host;
  long pid = -1;
};

struct Snapshot {
  uint64_t seq = 0;      // publication order, starts at 1
  uint64_t request = 0;  // the request this answers
  Program program = Program::single;
  OpSpec spec;
  BackendInfo backend;
  std::vector<StepResult> steps;  // 1, or 2 for all_reduce_decomposed
  bool verified = false;          // every step verified (and, decomposed, equals all_reduce)
  int64_t mismatches = 0;         // wrong elements over the steps, each counted once
  double time_us = 0;    // sum of the steps' op times
  double engine_us = 0;  // wall time of the whole request in the engine
  // all_reduce_decomposed: a real all_reduce on the same inputs, compared
  // byte for byte with the all-gather step's output.
  bool all_reduce_compared = false;
  int64_t all_reduce_diffs = 0;  // elements that differ
  Said error;            // non-empty: the request failed, steps may be empty
  bool rejected = false; // the request was refused before anything ran
                         // (invalid spec, backend unavailable): a usage error
  bool cancelled = false;  // Engine::cancel ended it (error says so)
  Said notice;           // e.g. "NCCL unavailable (...); using Gloo"
  // On the NCCL backend, a native op: what NCCL chose for it, from the
  // ranks' own log ("NCCL: RING · LL128 · channels 0–23"); empty elsewhere.
  Said nccl_choice;
  // ... and the communicator NCCL built, read from the same log: its rings,
  // trees and the transport of every link (the window draws them; run
  // prints them). Null elsewhere, or when the log said nothing.
  std::shared_ptr<const nccl_log::Log> nccl_log;
  // An algorithm run round by round (algo != "native"): steps are its rounds.
  std::string algo = "native";
  std::vector<uint64_t> bytes_sent, bytes_received;  // per rank, counted by the workers
  AlgoFormula formula;
  std::vector<RankResult> final_ranks;  // the output buffers after the last round
  // Every rank's working buffer before the first round ([rank][slot]),
  // decoded from its bytes (the inputs placed as the schedule's init says).
  std::vector<std::vector<BlockLabel>> start_labels;
  bool final_compared = false;  // compared byte for byte with the backend's own op
  int64_t final_diffs = 0;      // elements that differ
  // The first few differing elements: "rank 1 output element 5: 12 here, 13 native".
  std::vector<Said> final_diff_places;
  // What went wrong first, named by the round it hit: "round 3/6
  // (reduce-scatter 3/3): 2 slots differ from the reference", or the output
  // against the native op. Empty when everything checked out.
  Said problem;
  // Ranks on several hosts: one per rank, in rank order; empty on one host.
  std::vector<RankPlace> places;
};

}  // namespace collviz
