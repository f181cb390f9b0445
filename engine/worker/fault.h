// Fault injection, for tests and for lectures: COLLVIZ_FAULT in
// collviz-rank's environment makes the rank misbehave in one chosen way, so
// that what a broken collective looks like can be shown, and every check
// downstream (verification, the CLI's exit code, bench's #wrong, the marks
// in the window and the exports) can be shown to catch it.
//
//   skip              return without calling the collective
//   skip_after_first  call it the first time, skip every call after that
//   corrupt           flip the low bit of one output element (the middle one)
//   swap              exchange the first and last output blocks (one block:
//                     its first and last elements)
//   delay_ms:N        reply N ms after the collective finished, asleep (a
//                     straggler; beyond the deadline the engine names the
//                     rank as hung: it made no progress)
//   busy_ms:N         reply N ms after the collective finished, working on
//                     the CPU all that time (a slow rank; beyond the step's
//                     deadline the engine calls it slow, not hung, and
//                     suggests a --deadline-ms)
//   late_ms:N         sleep N ms before the collective (a rank that arrives
//                     late, asleep, while its peers wait inside the call:
//                     MPI's poll, so their CPU time grows while this rank's
//                     does not; beyond the deadline it is the one named hung)
//   round_skip_recv:K   inside round K of an algorithm (--algo, not native):
//                       what the rank receives is dropped (the messages
//                       still arrive, so no peer waits; the slots keep what
//                       they held)
//   round_skip_reduce:K inside round K: only the data that is to be combined
//                       is dropped (received or a local `re`; copies still
//                       land)
//   round_corrupt:K     after round K: flip the low bit of one element (the
//                       middle one of the first slot the rank received into)
//   round_swap:K        after round K: exchange the rank's first and last
//                       slots (one slot: its first and last elements)
//                       The round faults act in the round runner
//                       (worker/round_runner.h), so on Gloo and NCCL alike;
//                       K past the schedule's last round is an error.
//   rank:K,<fault>    only rank K misbehaves (a rank that skips leaves its
//                     peers waiting: the group times out and is restarted)
//
// The output is poisoned before the last call (engine/verify/poison.h), as the
// communicators do, so a skipped call cannot leave an earlier call's bytes.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "engine/text.h"
#include "engine/worker/communicator.h"

namespace collviz {

struct Fault {
  enum class Kind : uint8_t { none, skip, skip_after_first, corrupt, swap, delay, busy, late, round };
  Kind kind = Kind::none;
  int rank = -1;  // -1: every rank
  int delay_ms = 0;  // delay, busy and late
  RoundFault round;  // kind round: which fault, in which round
  std::string text;  // as given
};

// "" is no fault. Errors name what was wrong and what is allowed.
Result<Fault> parseFault(const std::string& text, int ranks);

// Whether `f` acts on a run of `s` (nullptr: a native run, the backend's own
// call): a fault that would do nothing there is refused, naming what it can
// apply to, so a run never shows "wrong by design" beside a clean verdict.
// The round_* faults act on an algorithm's rounds only (round_skip_recv:K
// where a rank it hits receives in round K, round_skip_reduce:K where one
// combines); skip_after_first counts the backend's collective calls, and an
// algorithm run makes one (the native op its output is compared with).
Status faultFits(const Fault& f, const algo::Schedule* s);

// A communicator with the fault applied on its rank. The fault starts as
// COLLVIZ_FAULT's and may be replaced per run (the window's "break it" menu
// sends it with the run); a new one starts counting calls again.
class FaultyCommunicator final : public Communicator {
 public:
  FaultyCommunicator(std::unique_ptr<Communicator> inner, Fault f)
      : inner_(std::move(inner)), f_(std::move(f)) {}
  void setFault(Fault f);
  const Fault& fault() const { return f_; }

  Status init(int rank, int size, ControlStore& store, int timeout_ms) override;
  Result<OpTiming> run(const OpSpec& s, const void* in, void* out,
                       const RunOptions& o) override;
  BackendInfo describe() const override;
  BackendCaps caps() const override { return inner_->caps(); }
  void idle(bool waiting) override { inner_->idle(waiting); }
  // The round_* faults go to the round runner with the options; the others
  // act on collective calls only, and an algorithm's rounds run as they are.
  Result<RoundsTiming> runRounds(const algo::Schedule& s, int from, int to, const void* in,
                                 void* work, const RunOptions& o) override;

 private:
  bool hits() const { return f_.kind != Fault::Kind::none && (f_.rank < 0 || f_.rank == rank_); }
  void corrupt(const OpSpec& s, std::byte* out) const;
  void swap(const OpSpec& s, std::byte* out);

  std::unique_ptr<Communicator> inner_;
  Fault f_;
  int rank_ = 0;
  long calls_ = 0;  // collective calls asked for under this fault, skipped or not
  bool warned_ = false;
};

}  // namespace collviz
