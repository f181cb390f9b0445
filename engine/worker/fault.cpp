#include "engine/worker/fault.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>
#include <utility>

#include "engine/algo/schedule.h"
#include "engine/verify/poison.h"

namespace collviz {
namespace {

Text allowed() {
  return say("allowed: skip, skip_after_first, corrupt, swap, delay_ms:N, busy_ms:N (N = 1 to 600000), "
             "round_skip_recv:K, round_skip_reduce:K, round_corrupt:K, round_swap:K (K = an algorithm's "
             "round, from 1), each optionally after rank:R, (e.g. rank:1,swap)");
}

struct RoundMode {
  const char* word;
  RoundFault::Kind kind;
};
constexpr RoundMode kRoundModes[] = {
    {"round_skip_recv:", RoundFault::Kind::skip_recv},
    {"round_skip_reduce:", RoundFault::Kind::skip_reduce},
    {"round_corrupt:", RoundFault::Kind::corrupt},
    {"round_swap:", RoundFault::Kind::swap},
};

// A whole decimal number in [lo, hi], or nullopt.
std::optional<int> number(const std::string& s, int lo, int hi) {
  if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  const int v = std::atoi(s.c_str());
  if (v < lo || v > hi) return std::nullopt;
  return v;
}

// Keeps the CPU busy for `d`: the process's CPU time grows all the while,
// which is what tells the engine a rank is working rather than stuck.
void spin(std::chrono::milliseconds d) {
  const auto end = std::chrono::steady_clock::now() + d;
  volatile unsigned long long sink = 0;
  while (std::chrono::steady_clock::now() < end)
    for (int i = 0; i < 10000; ++i) sink = sink + 1;
}

}  // namespace

Result<Fault> parseFault(const std::string& text, int ranks) {
  Fault f;
  f.text = text;
  if (text.empty()) return f;
  std::string mode = text;
  auto bad = [&](Text what) { return Error{say("COLLVIZ_FAULT={0}: {1}; {2}", text, std::move(what), allowed())}; };
  if (mode.rfind("rank:", 0) == 0) {
    const auto comma = mode.find(',');
    if (comma == std::string::npos) return bad(say("rank:K must be followed by ,<fault>"));
    const auto k = number(mode.substr(5, comma - 5), 0, ranks - 1);
    if (!k)
      return bad(say("rank '{0}' is not a rank of this group (0 to {1})", mode.substr(5, comma - 5), ranks - 1));
    f.rank = *k;
    mode = mode.substr(comma + 1);
  }
  if (mode == "skip") f.kind = Fault::Kind::skip;
  else if (mode == "skip_after_first") f.kind = Fault::Kind::skip_after_first;
  else if (mode == "corrupt") f.kind = Fault::Kind::corrupt;
  else if (mode == "swap") f.kind = Fault::Kind::swap;
  else if (mode.rfind("delay_ms:", 0) == 0) {
    const auto ms = number(mode.substr(9), 1, 600000);
    if (!ms) return bad(say("delay '{0}' is not a whole number of ms in range", mode.substr(9)));
    f.kind = Fault::Kind::delay;
    f.delay_ms = *ms;
  } else if (mode.rfind("busy_ms:", 0) == 0) {
    const auto ms = number(mode.substr(8), 1, 600000);
    if (!ms) return bad(say("busy time '{0}' is not a whole number of ms in range", mode.substr(8)));
    f.kind = Fault::Kind::busy;
    f.delay_ms = *ms;
  } else {
    for (const RoundMode& m : kRoundModes) {
      const std::string word = m.word;
      if (mode.rfind(word, 0) != 0) continue;
      const auto k = number(mode.substr(word.size()), 1, 100000);
      if (!k)
        return bad(say("round '{0}' is not a round number (1, 2, ...)", mode.substr(word.size())));
      f.kind = Fault::Kind::round;
      f.round = {m.kind, *k};
      return f;
    }
    return bad(say("unknown fault '{0}'", mode));
  }
  return f;
}

void FaultyCommunicator::setFault(Fault f) {
  if (f.text == f_.text) return;
  f_ = std::move(f);
  calls_ = 0;
}

Status FaultyCommunicator::init(int rank, int size, ControlStore& store, int timeout_ms) {
  rank_ = rank;
  return inner_->init(rank, size, store, timeout_ms);
}

Result<OpTiming> FaultyCommunicator::run(const OpSpec& s, const void* in, void* out,
                                         const RunOptions& o) {
  if (!hits() || f_.kind == Fault::Kind::round) return inner_->run(s, in, out, o);
  const int warmup = std::max(0, o.warmup), iters = std::max(1, o.iters);
  const std::size_t out_bytes = out ? outputBytes(s, rank_) : 0;
  OpTiming t;
  bool wrote = false;
  for (int c = 0; c < warmup + iters; ++c) {
    const bool skip =
        f_.kind == Fault::Kind::skip || (f_.kind == Fault::Kind::skip_after_first && calls_ > 0);
    ++calls_;
    // As the communicators do: the checked output is the last call's, never
    // an earlier call's of this run (the engine poisoned it before the run).
    if (c == warmup + iters - 1 && wrote) poisonBytes(out, out_bytes, s.dtype);
    if (skip) continue;
    auto one = inner_->run(s, in, out, RunOptions{0, 1});
    if (!one) return one;
    wrote = true;
    if (c >= warmup) t.op_us += one->op_us / iters;
    t.copy_us += one->copy_us;
  }
  if (out_bytes && f_.kind == Fault::Kind::corrupt) corrupt(s, static_cast<std::byte*>(out));
  if (out_bytes && f_.kind == Fault::Kind::swap) swap(s, static_cast<std::byte*>(out));
  if (f_.kind == Fault::Kind::delay)
    std::this_thread::sleep_for(std::chrono::milliseconds(f_.delay_ms));
  if (f_.kind == Fault::Kind::busy) spin(std::chrono::milliseconds(f_.delay_ms));
  return t;
}

Result<RoundsTiming> FaultyCommunicator::runRounds(const algo::Schedule& s, int from, int to,
                                                   const void* in, void* work,
                                                   const RunOptions& o) {
  if (f_.kind != Fault::Kind::round) return inner_->runRounds(s, from, to, in, work, o);
  // Every rank refuses alike (the fault text is the same for all), so no
  // peer is left waiting for one that refused.
  const int rounds = int(s.rounds.size());
  if (f_.round.round > rounds)
    return Error{say("COLLVIZ_FAULT={0}: round {1} is past the last; {2} {3} at N={4} has {5} round(s) "
                     "(allowed: 1 to {5})",
                     f_.text, f_.round.round, s.algo, name(s.spec.op), s.spec.ranks, rounds)};
  if (!hits()) return inner_->runRounds(s, from, to, in, work, o);
  RunOptions with = o;
  with.round_fault = f_.round;
  return inner_->runRounds(s, from, to, in, work, with);
}

BackendInfo FaultyCommunicator::describe() const {
  BackendInfo b = inner_->describe();
  if (f_.kind != Fault::Kind::none)
    b.notes = joined({say("FAULT INJECTED: COLLVIZ_FAULT={0} (results are wrong on purpose)", f_.text),
                      text_detail::arg(b.notes)});
  return b;
}

void FaultyCommunicator::corrupt(const OpSpec& s, std::byte* out) const {
  const std::size_t count = outputBytes(s, rank_) / dtypeSize(s.dtype);
  out[count / 2 * dtypeSize(s.dtype)] ^= std::byte{1};  // little endian: the lowest bit
}

void FaultyCommunicator::swap(const OpSpec& s, std::byte* out) {
  const std::size_t sz = dtypeSize(s.dtype), e = std::size_t(s.elems);
  const int blocks = outputBlocks(s.op, s.ranks, rank_, s.root);
  if (blocks >= 2) {
    std::swap_ranges(out, out + e * sz, out + std::size_t(blocks - 1) * e * sz);
  } else if (e >= 2) {
    std::swap_ranges(out, out + sz, out + (e - 1) * sz);
  } else if (!warned_) {
    std::fprintf(stderr, "collviz-rank %d: COLLVIZ_FAULT=swap: one block of one element, "
                         "nothing to exchange\n", rank_);
    warned_ = true;
  }
}

}  // namespace collviz
