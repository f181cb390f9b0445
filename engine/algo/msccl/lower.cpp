// An MSCCL file lowered to a Schedule: the rounds of its graph
// (msccl_graph.cpp), its chunks as slots (msccl.h).
#include <algorithm>
#include <cstdint>
#include <mutex>

#include "engine/algo/msccl/graph.h"

namespace collviz::algo {

MscclLayout mscclLayout(const MscclAlgo& a, int rank) {
  const MscclGpu& g = a.gpus[std::size_t(rank)];
  MscclLayout l;
  if (!a.inplace) {
    l.in = 0;
    l.out = g.i_chunks;
    l.scratch = g.i_chunks + g.o_chunks;
  } else {
    // One buffer: the output is a window of the input or the other way round.
    const int out = outputBlocks(a.op, a.ngpus, rank, 0) * a.parts;
    int big = std::max(g.i_chunks, out);
    if (a.op == Op::all_gather) l.in = rank * g.i_chunks;
    if (a.op == Op::reduce_scatter) l.out = rank * out;
    l.scratch = big;
  }
  l.slots = l.scratch + g.s_chunks;
  return l;
}

namespace {

std::string typeName(MscclType t) {
  switch (t) {
    case MscclType::s: return "s";
    case MscclType::r: return "r";
    case MscclType::rcs: return "rcs";
    case MscclType::rrs: return "rrs";
    case MscclType::rrc: return "rrc";
    case MscclType::rrcs: return "rrcs";
    case MscclType::cpy: return "cpy";
    case MscclType::re: return "re";
    case MscclType::nop: return "nop";
  }
  return "?";
}

int slotOf(const MscclLayout& l, char buf, int off) {
  return (buf == 'i' ? l.in : buf == 'o' ? l.out : l.scratch) + off;
}

std::vector<int> slotsOf(const MscclLayout& l, char buf, int off, int cnt) {
  return slotRange(slotOf(l, buf, off), cnt);
}

// Lockstep rounds: a message carries what its sender holds at the start of
// its round; MSCCL's send carries what the chunk held when the send was
// posted (its `round` in the graph). A sender that writes the chunk in
// between would send different data here: refuse such a file.
Status checkInFlight(const MscclAlgo& a, const MscclGraph& gr, const Schedule& sch) {
  const std::uint64_t slots = std::uint64_t(sch.slots);
  // (rank * slots + slot, k): written during round k+1, or by the local
  // copies before round k+2 (read before its messages). Sorted, so the
  // check is linear in the writes and messages, not rounds x slots.
  std::vector<std::pair<std::uint64_t, int>> written;
  for (std::size_t k = 0; k < sch.rounds.size(); ++k) {
    const Round& r = sch.rounds[k];
    auto mark = [&](std::size_t round, int rank, const std::vector<int>& dst) {
      for (int d : dst) written.push_back({std::uint64_t(rank) * slots + std::uint64_t(d), int(round)});
    };
    for (const Move& m : r.moves) mark(k, m.to, m.dst);
    for (const LocalCopy& c : r.after) mark(k, c.rank, c.dst);
    if (k > 0)
      for (const LocalCopy& c : r.before) mark(k - 1, c.rank, c.dst);
  }
  std::sort(written.begin(), written.end());
  // Is (rank, slot) written in a round index in [from, to)?
  auto writtenIn = [&](int rank, int slot, int from, int to) {
    const std::uint64_t key = std::uint64_t(rank) * slots + std::uint64_t(slot);
    auto it = std::lower_bound(written.begin(), written.end(), std::make_pair(key, from));
    return it != written.end() && it->first == key && it->second < to ? it->second + 1 : 0;
  };
  for (const MscclMessage& m : gr.messages) {
    const MscclNode& sn = gr.nodes[std::size_t(m.send_node)];
    const int posted = sn.round, sent = gr.nodes[std::size_t(m.recv_node)].round;
    if (sent <= posted) continue;
    const MscclTb& tb = a.gpus[std::size_t(sn.gpu)].tbs[std::size_t(sn.tb)];
    const MscclStep& x = tb.steps[std::size_t(sn.step)];
    const MscclLayout l = mscclLayout(a, m.from);
    const std::vector<int> src = x.type == MscclType::s ? slotsOf(l, x.srcbuf, x.srcoff, x.cnt)
                                                        : slotsOf(l, x.dstbuf, x.dstoff, x.cnt);
    for (int slot : src)
      if (const int k = writtenIn(m.from, slot, posted - 1, sent - 1); k > 0)
          return Error{say("{0}:{1}: {2}", a.path, x.line,
                           say("gpu {0} tb {1} step {2} is posted in round {3} but gpu {4} can receive it only in round {5}, and gpu {0} overwrites what it sends in round {6}: collviz's lockstep rounds would send the new data where MSCCL's buffered send carries the old; order the overwrite after the receive (depid/deps)",
                               m.from, tb.id, x.s, posted, m.to, sent, k))};
  }
  return {};
}

}  // namespace

Status checkMscclRun(const MscclAlgo& a, const OpSpec& s) {
  const std::string algo = mscclAlgoName(a);
  if (s.op != a.op)
    return Error{say("algo {0} ({1}) runs {2}, not {3}; allowed: op {2}", algo, a.path, name(a.op), name(s.op))};
  if (s.ranks != a.ngpus)
    return Error{say("algo {0} ({1}) runs on {2} ranks (ngpus), not {3}; allowed: ranks {2}", algo, a.path, a.ngpus,
                     s.ranks)};
  if (usesRoot(s.op) && s.root != a.root)
    return Error{say("algo {0} ({1}) was read for root {2}, not {3}; allowed: root {2}", algo, a.path, a.root,
                     s.root)};
  if (s.elems % a.parts != 0)
    return Error{say("elems {0} does not split into algo {1} ({2})'s {3} chunks per block; allowed: a multiple of {3}",
                     s.elems, algo, a.path, a.parts)};
  return {};
}

namespace {
std::mutex registry_mu;
std::vector<std::shared_ptr<const MscclAlgo>> registry;
}  // namespace

void registerMscclFile(std::shared_ptr<const MscclAlgo> a) {
  std::lock_guard<std::mutex> lock(registry_mu);
  const std::string n = mscclAlgoName(*a);
  std::erase_if(registry, [&](const auto& x) { return mscclAlgoName(*x) == n; });
  registry.push_back(std::move(a));
}

std::shared_ptr<const MscclAlgo> findMscclFile(std::string_view name) {
  std::lock_guard<std::mutex> lock(registry_mu);
  for (const auto& x : registry)
    if (mscclAlgoName(*x) == name) return x;
  return nullptr;
}

std::vector<std::shared_ptr<const MscclAlgo>> mscclFiles() {
  std::lock_guard<std::mutex> lock(registry_mu);
  return registry;
}

Result<Schedule> lowerMscclFile(const MscclAlgo& a, const OpSpec& s) {
  if (Status st = checkMscclRun(a, s); !st) return st.error();
  auto graph = mscclGraph(a, [&](int line, const Text& what) { return Error{say("{0}:{1}: {2}", a.path, line, what)}; });
  if (!graph) return graph.error();
  const MscclGraph& gr = *graph;
  std::vector<MscclLayout> layout;
  int slots = 0;
  for (int r = 0; r < a.ngpus; ++r) {
    layout.push_back(mscclLayout(a, r));
    slots = std::max(slots, layout.back().slots);
  }
  Schedule sch = emptySchedule(s, mscclAlgoName(a), slots);
  sch.parts = a.parts;
  sch.file = a.path;
  for (int r = 0; r < a.ngpus; ++r) {
    const MscclLayout& l = layout[std::size_t(r)];
    for (int c = 0; c < a.gpus[std::size_t(r)].i_chunks; ++c)
      sch.init[std::size_t(r)][std::size_t(l.in + c)] = c;
    sch.output[std::size_t(r)] = slotRange(l.out, outputBlocks(s.op, s.ranks, r, s.root) * a.parts);
  }
  const int rounds = std::max(1, gr.rounds);
  for (int k = 1; k <= rounds; ++k) addRound(sch, "msccl", k, rounds);
  auto stepOf = [&](int node) -> const MscclStep& {
    const MscclNode& n = gr.nodes[std::size_t(node)];
    return a.gpus[std::size_t(n.gpu)].tbs[std::size_t(n.tb)].steps[std::size_t(n.step)];
  };
  for (int v : gr.order) {
    const MscclNode& n = gr.nodes[std::size_t(v)];
    const MscclStep& st = stepOf(v);
    const MscclLayout& here = layout[std::size_t(n.gpu)];
    if (n.kind == MscclNode::Kind::local) {
      if (st.type == MscclType::nop) continue;
      LocalCopy c{n.gpu, slotsOf(here, st.srcbuf, st.srcoff, st.cnt),
                  slotsOf(here, st.dstbuf, st.dstoff, st.cnt), st.type == MscclType::re};
      Round& round = sch.rounds[std::size_t(std::max(1, n.round) - 1)];
      (n.round == 0 ? round.before : round.after).push_back(std::move(c));
      continue;
    }
    // A message is placed with its receive; a send that has none is never
    // dropped (the graph refuses it first; this holds if that ever slips).
    if (n.kind == MscclNode::Kind::send && n.message < 0)
      return Error{say("{0}:{1}: gpu {2} sends to gpu {3} on channel {4} and nothing receives it: not lowered", a.path,
                       st.line, n.gpu, a.gpus[std::size_t(n.gpu)].tbs[std::size_t(n.tb)].send,
                       a.gpus[std::size_t(n.gpu)].tbs[std::size_t(n.tb)].chan)};
    if (n.kind != MscclNode::Kind::recv) continue;
    const MscclMessage& m = gr.messages[std::size_t(n.message)];
    const MscclStep& x = stepOf(m.send_node);
    const MscclLayout& there = layout[std::size_t(m.from)];
    // A plain send reads its source; a fused one what it just received
    // (rcs, rrcs: the copy at dst; rrs: its sum, held at dst).
    const std::vector<int> src = x.type == MscclType::s ? slotsOf(there, x.srcbuf, x.srcoff, x.cnt)
                                                        : slotsOf(there, x.dstbuf, x.dstoff, x.cnt);
    const std::vector<int> dst = slotsOf(here, st.dstbuf, st.dstoff, st.cnt);
    const bool reduces = st.type == MscclType::rrs || st.type == MscclType::rrc ||
                         st.type == MscclType::rrcs;
    const std::vector<int> mine = slotsOf(here, st.srcbuf, st.srcoff, st.cnt);
    Round& round = sch.rounds[std::size_t(n.round - 1)];
    addMove(round, m.from, m.to, src, reduces && mine == dst, dst);
    const MscclNode& sn = gr.nodes[std::size_t(m.send_node)];
    const MscclTb& stb = a.gpus[std::size_t(sn.gpu)].tbs[std::size_t(sn.tb)];
    const MscclTb& rtb = a.gpus[std::size_t(n.gpu)].tbs[std::size_t(n.tb)];
    round.moves.back().channel = stb.chan;
    round.moves.back().attrs = "chan " + std::to_string(stb.chan) + " · tb " + std::to_string(stb.id) +
                               " " + typeName(x.type) + " → tb " + std::to_string(rtb.id) + " " +
                               typeName(st.type) + " · " + a.proto;
    // dst = received (op) src, src elsewhere: the received data lands at
    // dst, then src is combined into it.
    if (reduces && mine != dst) round.after.push_back({m.to, mine, dst, true});
  }
  if (Status st = checkInFlight(a, gr, sch); !st) return st.error();
  return sch;
}

}  // namespace collviz::algo
