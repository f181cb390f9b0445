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
  return say("allowed: skip, skip_after_first, corrupt, swap, delay_ms:N, busy_ms:N, late_ms:N (N = 1 to 600000), "
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
  } else if (mode.rfind("late_ms:", 0) == 0) {
    const auto ms = number(mode.substr(8), 1, 600000);
    if (!ms) return bad(say("delay '{0}' is not a whole number of ms in range", mode.substr(8)));
    f.kind = Fault::Kind::late;
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

namespace {

// Whether rank `r` receives (reduce: combines, received or local) in round k.
bool acts(const algo::Round& round, int r, bool reduce) {
  for (const algo::Move& m : round.moves)
    if (m.to == r && !m.src.empty() && (!reduce || m.reduce)) return true;
  if (reduce)
    for (const auto* list : {&round.before, &round.after})
      for (const algo::LocalCopy& c : *list)
        if (c.rank == r && c.reduce && !c.src.empty()) return true;
  return false;
}

// "2, 4, 6" (at most 12, then "…").
std::string roundList(const std::vector<int>& ks) {
  std::string out;
  for (std::size_t i = 0; i < ks.size() && i < 12; ++i) out += (i ? ", " : "") + std::to_string(ks[i]);
  if (ks.size() > 12) out += ", …";
  return out;
}

}  // namespace

Status faultFits(const Fault& f, const algo::Schedule* s) {
  if (f.kind == Fault::Kind::none) return {};
  if (!s) {
    if (f.kind == Fault::Kind::round)
      return Error{say("COLLVIZ_FAULT={0}: a round fault acts on an algorithm's rounds (--algo, "
                       "--algo-file); this run is the backend's own call (allowed here: skip, "
                       "skip_after_first, corrupt, swap, delay_ms:N, busy_ms:N, late_ms:N)",
                       f.text)};
    return {};
  }
  const int rounds = int(s->rounds.size());
  if (f.kind == Fault::Kind::skip_after_first)
    return Error{say("COLLVIZ_FAULT={0}: skip_after_first skips the backend's collective calls after "
                     "the first, and an algorithm's run ({1} {2}) makes one, so it would skip nothing "
                     "(allowed with --algo: round_skip_recv:K, round_skip_reduce:K, round_corrupt:K, "
                     "round_swap:K with K = 1 to {3}; skip_after_first with --algo native)",
                     f.text, s->algo, name(s->spec.op), rounds)};
  if (f.kind != Fault::Kind::round) return {};
  const int k = f.round.round;
  if (k > rounds)
    return Error{say("COLLVIZ_FAULT={0}: round {1} is past the last; {2} {3} at N={4} has {5} round(s) "
                     "(allowed: 1 to {5})",
                     f.text, k, s->algo, name(s->spec.op), s->spec.ranks, rounds)};
  const bool recv = f.round.kind == RoundFault::Kind::skip_recv;
  if (!recv && f.round.kind != RoundFault::Kind::skip_reduce) return {};
  auto hit = [&](int round) {
    for (int r = 0; r < s->spec.ranks; ++r)
      if ((f.rank < 0 || f.rank == r) && acts(s->rounds[std::size_t(round)], r, !recv)) return true;
    return false;
  };
  if (hit(k - 1)) return {};
  std::vector<int> where;
  for (int j = 0; j < rounds; ++j)
    if (hit(j)) where.push_back(j + 1);
  const std::string who = f.rank < 0 ? std::string() : std::to_string(f.rank);
  const Text none = where.empty() ? say("none") : lit(roundList(where));
  if (recv)
    return Error{f.rank < 0
                     ? say("COLLVIZ_FAULT={0}: round_skip_recv: no rank receives in round {1} of {2} {3} "
                           "at N={4}, so nothing would be dropped (rounds where one receives: {5})",
                           f.text, k, s->algo, name(s->spec.op), s->spec.ranks, none)
                     : say("COLLVIZ_FAULT={0}: round_skip_recv: rank {1} receives nothing in round {2} of "
                           "{3} {4} at N={5}, so nothing would be dropped (rounds where it receives: {6})",
                           f.text, who, k, s->algo, name(s->spec.op), s->spec.ranks, none)};
  return Error{f.rank < 0
                   ? say("COLLVIZ_FAULT={0}: round_skip_reduce: round {1} of {2} {3} at N={4} has no "
                         "reduce, so nothing would be dropped (rounds with a reduce: {5})",
                         f.text, k, s->algo, name(s->spec.op), s->spec.ranks, none)
                   : say("COLLVIZ_FAULT={0}: round_skip_reduce: rank {1} combines nothing in round {2} "
                         "of {3} {4} at N={5}, so nothing would be dropped (rounds where it combines: "
                         "{6})",
                         f.text, who, k, s->algo, name(s->spec.op), s->spec.ranks, none)};
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
  if (f_.kind == Fault::Kind::late) std::this_thread::sleep_for(std::chrono::milliseconds(f_.delay_ms));
  for (int c = 0; c < warmup + iters; ++c) {
    const bool skip =
        f_.kind == Fault::Kind::skip || (f_.kind == Fault::Kind::skip_after_first && calls_ > 0);
    ++calls_;
    // As the communicators do: the checked output is the timed calls', never
    // the warm-up's (the engine poisoned it before the run).
    if (c == warmup && wrote) poisonBytes(out, out_bytes, s.dtype);
    if (skip) continue;
    RunOptions one_call;
    one_call.meet = c == warmup;  // the ranks meet where an unsplit run would
    auto one = inner_->run(s, in, out, one_call);
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
  if (f_.kind == Fault::Kind::late && hits()) std::this_thread::sleep_for(std::chrono::milliseconds(f_.delay_ms));
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
