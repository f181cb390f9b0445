#include "engine/worker/round_runner.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

namespace collviz {
namespace {

// A message's slots in runs that are consecutive on both sides, so sender
// and receiver cut it into the same pieces.
struct Run {
  int src = 0, dst = 0, count = 0;
};
std::vector<Run> runsOf(const algo::Move& m) {
  std::vector<Run> out;
  for (std::size_t i = 0; i < m.src.size(); ++i) {
    if (!out.empty() && m.src[i] == out.back().src + out.back().count &&
        m.dst[i] == out.back().dst + out.back().count) {
      ++out.back().count;
      continue;
    }
    out.push_back({m.src[i], m.dst[i], 1});
  }
  return out;
}

// `move`: the message's place among the round's messages from the same
// sender to the same receiver (one rank's part of a schedule keeps all of a
// pair's messages, in order, so both ends count alike).
uint64_t tagOf(int round, int move, int piece) {
  return (uint64_t(round) << 24) | (uint64_t(move & 0xFFF) << 12) | uint64_t(piece & 0xFFF);
}

// Every rank, slot and input piece the schedule names is inside its
// buffers: a schedule from a file or a message is never trusted to be.
Status checkSlots(const algo::Schedule& s, int rank) {
  const int n = s.spec.ranks, slots = s.slots;
  auto bad = [&](Text what) {
    return Error{say("the schedule {0} cannot run on rank {1}: {2} (allowed: ranks 0 to {3}, slots 0 to {4})",
                     s.algo, rank, std::move(what), n - 1, slots - 1)};
  };
  if (n < 1 || rank < 0 || rank >= n) return bad(say("rank {0} is not one of its {1} ranks", rank, n));
  if (slots < 1 || s.slotBytes() == 0) return bad(say("it has no slots"));
  if (int(s.init.size()) != n || int(s.output.size()) != n)
    return bad(say("it starts {0} and ends {1} ranks' buffers, not {2}", s.init.size(), s.output.size(), n));
  const std::size_t pieces = inputBytes(s.spec, rank) / s.slotBytes();
  const auto& init = s.init[std::size_t(rank)];
  if (int(init.size()) != slots) return bad(say("its start fills {0} slots, not {1}", init.size(), slots));
  for (int k = 0; k < slots; ++k)
    if (init[std::size_t(k)] < -1 || (init[std::size_t(k)] >= 0 && std::size_t(init[std::size_t(k)]) >= pieces))
      return bad(say("slot {0} starts from input piece {1}; the input has {2}", k, init[std::size_t(k)], pieces));
  for (int k : s.output[std::size_t(rank)])
    if (k < 0 || k >= slots) return bad(say("output slot {0} is out of range", k));
  auto inRange = [&](const std::vector<int>& v) {
    return std::all_of(v.begin(), v.end(), [&](int k) { return k >= 0 && k < slots; });
  };
  for (std::size_t r = 0; r < s.rounds.size(); ++r) {
    const algo::Round& round = s.rounds[r];
    for (const algo::Move& m : round.moves) {
      if (m.from < 0 || m.from >= n || m.to < 0 || m.to >= n)
        return bad(say("round {0} sends from rank {1} to rank {2}", r + 1, m.from, m.to));
      if (m.src.size() != m.dst.size() || !inRange(m.src) || !inRange(m.dst))
        return bad(say("round {0}: a message from rank {1} to rank {2} names a slot out of range", r + 1,
                       m.from, m.to));
    }
    for (const auto* list : {&round.before, &round.after})
      for (const algo::LocalCopy& c : *list)
        if (c.rank < 0 || c.rank >= n || c.src.size() != c.dst.size() || !inRange(c.src) || !inRange(c.dst))
          return bad(say("round {0}: a local copy on rank {1} names a slot out of range", r + 1, c.rank));
  }
  return {};
}

}  // namespace

RoundRunner::RoundRunner(const algo::Schedule& s, int rank, RoundFault fault)
    : s_(s), rank_(rank), status_(checkSlots(s, rank)), slot_(s.slotBytes()) {
  if (!status_) return;
  std::size_t recv_area = 0;
  std::size_t copy_slots = 0;
  for (int k = 0; k < int(s.rounds.size()); ++k) {
    const algo::Round& round = s.rounds[std::size_t(k)];
    Plan plan;
    const bool faulty = fault.round == k + 1;
    const bool drop_all = faulty && fault.kind == RoundFault::Kind::skip_recv;
    const bool drop_reduce = faulty && fault.kind == RoundFault::Kind::skip_reduce;
    std::size_t widest = 0;  // the largest group: its sources pass through scratch
    auto groups = [&](const std::vector<algo::LocalCopy>& list, Copies& out) {
      for (const auto& c : list) {
        if (c.rank != rank || c.src.empty()) continue;
        if (drop_reduce && c.reduce) continue;  // a local `re` is dropped too
        CopyGroup g;
        g.reduce = c.reduce;
        for (std::size_t i = 0; i < c.src.size(); ++i) g.moves.push_back({c.src[i], c.dst[i]});
        widest = std::max(widest, g.moves.size());
        out.push_back(std::move(g));
      }
    };
    groups(round.before, plan.before);
    groups(round.after, plan.after);
    copy_slots = std::max(copy_slots, widest);
    std::set<int> sending;  // slots this rank sends this round: never received into directly
    for (const auto& m : round.moves)
      if (m.from == rank) sending.insert(m.src.begin(), m.src.end());
    std::size_t used = 0;
    int first_written = -1;  // the first slot a receive writes this round
    std::map<std::pair<int, int>, int> nth;  // messages so far per (sender, receiver)
    for (const algo::Move& m : round.moves) {
      if (m.from != rank && m.to != rank) continue;
      const int mi = nth[{m.from, m.to}]++;
      const auto runs = runsOf(m);
      for (int pi = 0; pi < int(runs.size()); ++pi) {
        const Run& run = runs[std::size_t(pi)];
        const std::size_t bytes = std::size_t(run.count) * slot_;
        if (m.from == rank) {
          plan.sends.push_back({m.to, {false, std::size_t(run.src) * slot_, bytes}, tagOf(k, mi, pi)});
          continue;
        }
        if (first_written < 0) first_written = run.dst;
        if (drop_all || (drop_reduce && m.reduce)) {  // received into scratch, never used
          plan.recvs.push_back({m.from, {true, used, bytes}, tagOf(k, mi, pi)});
          used += bytes;
          continue;
        }
        bool overlaps = false;
        for (int j = 0; j < run.count; ++j) overlaps = overlaps || sending.count(run.dst + j);
        if (!m.reduce && !overlaps) {
          plan.recvs.push_back({m.from, {false, std::size_t(run.dst) * slot_, bytes}, tagOf(k, mi, pi)});
          continue;
        }
        plan.recvs.push_back({m.from, {true, used, bytes}, tagOf(k, mi, pi)});
        plan.combines.push_back({used, std::size_t(run.dst) * slot_, bytes, m.reduce});
        used += bytes;
      }
    }
    if (faulty && (fault.kind == RoundFault::Kind::corrupt || fault.kind == RoundFault::Kind::swap)) {
      plan.fault_after = fault.kind;
      if (fault.kind == RoundFault::Kind::swap) copy_slots = std::max<std::size_t>(copy_slots, 2);  // swaps through scratch
      const std::size_t esize = dtypeSize(s.spec.dtype);
      plan.corrupt_at = std::size_t(std::max(0, first_written)) * slot_ +
                        std::size_t(s.slotElems() / 2) * esize;  // little endian: the lowest bit
    }
    recv_area = std::max(recv_area, used);
    plans_.push_back(std::move(plan));
  }
  copy_area_ = recv_area;
  scratch_bytes_ = recv_area + copy_slots * slot_;
}

// round_corrupt and round_swap, once the round is done (worker/fault.h).
void RoundRunner::breakAfter(RoundDevice& d, const Plan& plan, std::byte* work,
                             std::byte* scratch) const {
  if (plan.fault_after == RoundFault::Kind::corrupt) {
    d.flipLowBit(work + plan.corrupt_at);
    return;
  }
  const int slots = s_.slots;
  if (slots >= 2) {
    CopyGroup swap;
    swap.moves = {{0, slots - 1}, {slots - 1, 0}};
    runCopies(d, Copies{swap}, work, scratch);
    return;
  }
  const std::size_t esize = dtypeSize(s_.spec.dtype), e = std::size_t(s_.spec.elems);
  if (e < 2) return;  // one slot of one element: nothing to exchange
  std::byte* tmp = scratch + copy_area_;
  std::byte* last = work + (e - 1) * esize;
  d.copy(tmp, work, esize);
  d.copy(work, last, esize);
  d.copy(last, tmp, esize);
}

void RoundRunner::start(RoundDevice& d, std::byte* work, const std::byte* in) const {
  if (!status_) return;
  const auto& init = s_.init[std::size_t(rank_)];
  for (int k = 0; k < int(init.size()); ++k) {
    std::byte* slot = work + std::size_t(k) * slot_;
    if (init[std::size_t(k)] >= 0) d.load(slot, in + std::size_t(init[std::size_t(k)]) * slot_, slot_);
    else d.zero(slot, slot_);
  }
}

void RoundRunner::runCopies(RoundDevice& d, const Copies& c, std::byte* work,
                            std::byte* scratch) const {
  std::byte* tmp = scratch + copy_area_;
  const std::size_t elems = slot_ / dtypeSize(s_.spec.dtype);
  for (const CopyGroup& g : c) {
    for (std::size_t i = 0; i < g.moves.size(); ++i)
      d.copy(tmp + i * slot_, work + std::size_t(g.moves[i].first) * slot_, slot_);
    for (std::size_t i = 0; i < g.moves.size(); ++i) {
      std::byte* dst = work + std::size_t(g.moves[i].second) * slot_;
      if (g.reduce) d.reduce(dst, tmp + i * slot_, elems);
      else d.copy(dst, tmp + i * slot_, slot_);
    }
  }
}

Status RoundRunner::round(RoundDevice& d, int k, std::byte* work, std::byte* scratch,
                          RoundCounts& counts) const {
  if (!status_) return status_;
  if (k < 0 || k >= rounds()) return Error{say("round {0} is outside the schedule's {1}", k + 1, rounds())};
  const Plan& plan = plans_[std::size_t(k)];
  runCopies(d, plan.before, work, scratch);
  auto posts = [&](const std::vector<Xfer>& xs, uint64_t& total) {
    std::vector<RoundDevice::Post> out;
    for (const Xfer& x : xs) {
      out.push_back({x.peer, (x.span.scratch ? scratch : work) + x.span.offset, x.span.bytes, x.tag});
      total += x.span.bytes;
    }
    return out;
  };
  const auto sends = posts(plan.sends, counts.sent);
  const auto recvs = posts(plan.recvs, counts.received);
  if (!sends.empty() || !recvs.empty())
    if (Status st = d.exchange(sends, recvs); !st) return st;
  const std::size_t esize = dtypeSize(s_.spec.dtype);
  for (const Combine& c : plan.combines) {
    if (c.reduce) d.reduce(work + c.to, scratch + c.from, c.bytes / esize);
    else d.copy(work + c.to, scratch + c.from, c.bytes);
  }
  runCopies(d, plan.after, work, scratch);
  if (plan.fault_after != RoundFault::Kind::none) breakAfter(d, plan, work, scratch);
  return {};
}

void RoundRunner::finish(RoundDevice& d, std::byte* work) const {
  if (!status_ || !s_.average) return;
  const std::size_t elems = std::size_t(s_.slotElems());
  for (int k : s_.output[std::size_t(rank_)])
    d.divide(work + std::size_t(k) * slot_, elems, s_.spec.ranks);
}

Result<RoundsTiming> runRoundRange(RoundDevice& d, const RoundRunner& runner, int from, int to,
                                   std::byte* work, std::byte* scratch, const std::byte* in,
                                   const RunOptions& o) {
  if (!runner.status()) return runner.status().error();
  if (from < 0 || to > runner.rounds() || from > to)
    return Error{say("rounds {0} to {1} are outside the schedule's {2}", from, to, runner.rounds())};
  RoundsTiming t;
  double total_us = 0;
  for (int it = 0; it < o.warmup + o.iters; ++it) {
    RoundCounts counts;
    const auto t0 = std::chrono::steady_clock::now();
    if (from == 0) runner.start(d, work, in);
    for (int k = from; k < to; ++k)
      if (Status st = runner.round(d, k, work, scratch, counts); !st)
        return Error{say("round {0}: {1}", k + 1, st.text())};
    if (to == runner.rounds()) runner.finish(d, work);
    if (Status st = d.sync(); !st) return st.error();
    const auto t1 = std::chrono::steady_clock::now();
    if (it >= o.warmup) total_us += std::chrono::duration<double, std::micro>(t1 - t0).count();
    t.sent = counts.sent;
    t.received = counts.received;
  }
  t.op_us = o.iters > 0 ? total_us / o.iters : 0.0;
  return t;
}

}  // namespace collviz
