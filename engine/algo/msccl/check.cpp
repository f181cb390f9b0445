// The checks of an MSCCL file (the table in docs/algorithms.md) and the
// graph of its steps: matching, cycles, rounds.
#include <algorithm>
#include <cstdint>
#include <map>
#include <tuple>

#include "engine/algo/msccl/graph.h"

namespace collviz::algo {

bool mscclSends(MscclType t) {
  return t == MscclType::s || t == MscclType::rcs || t == MscclType::rrs || t == MscclType::rrcs;
}
bool mscclReceives(MscclType t) {
  return t == MscclType::r || t == MscclType::rcs || t == MscclType::rrs || t == MscclType::rrc ||
         t == MscclType::rrcs;
}

namespace {

Text where(const MscclGpu& g, const MscclTb& t, const MscclStep& s) {
  return say("gpu {0} tb {1} step {2}", g.id, t.id, s.s);
}

// The chunks of buffer `buf` on gpu g. An in-place file may omit the output
// (o_chunks = 0): its o is then the op's output, a window of the one buffer.
std::int64_t chunksOf(const MscclAlgo& a, const MscclGpu& g, char buf) {
  if (buf == 'o' && a.inplace && g.o_chunks == 0)
    return std::int64_t(outputBlocks(a.op, a.ngpus, g.id, a.root)) * a.parts;
  return buf == 'i' ? g.i_chunks : buf == 'o' ? g.o_chunks : g.s_chunks;
}

// Before anything is sized by them: the chunk counts and the chunks the
// steps move, against the cap (the memory budget), in 64 bits.
Status checkSizes(const MscclAlgo& a, const MscclAt& at, std::int64_t cap) {
  if (a.nchunksperloop < 1 || a.nchunksperloop > cap)
    return at(a.line, say("nchunksperloop = {0}; allowed: 1 to {1} (the chunks the memory budget holds)",
                          a.nchunksperloop, cap));
  for (const MscclGpu& g : a.gpus) {
    for (const auto& [what, n] : {std::pair{"i_chunks", g.i_chunks}, std::pair{"o_chunks", g.o_chunks},
                                  std::pair{"s_chunks", g.s_chunks}})
      if (n < 0) return at(g.line, say("gpu {0}: {1} = {2}; allowed: 0 or more", g.id, what, n));
    const std::int64_t total = std::int64_t(g.i_chunks) + g.o_chunks + g.s_chunks;
    if (total > cap)
      return at(g.line, say("gpu {0}: i_chunks + o_chunks + s_chunks = {1}; allowed: up to {2} (the chunks the memory budget holds)",
                            g.id, total, cap));
  }
  return {};
}

// The chunks all steps move (each step's cnt is within its buffers by
// now): the lowering holds a slot list per step.
Status checkMoved(const MscclAlgo& a, const MscclAt& at, std::int64_t cap) {
  std::int64_t moved = 0;
  const std::int64_t moved_cap = cap * kMaxRanks;
  for (const MscclGpu& g : a.gpus)
    for (const MscclTb& t : g.tbs)
      for (const MscclStep& s : t.steps) {
        moved += std::max(0, s.cnt);
        if (moved > moved_cap)
          return at(s.line, say("the steps up to this one move {0} chunks in all; allowed: up to {1} (the memory budget)",
                                moved, moved_cap));
      }
  return {};
}

// The chunk counts the op gives rank r with `parts` chunks per block.
Status checkChunks(MscclAlgo& a, int root, const MscclAt& at) {
  const std::string op(name(a.op));
  int parts = 0;
  for (const MscclGpu& g : a.gpus) {
    const int in = inputBlocks(a.op, a.ngpus, g.id, root);
    if (in > 0 && parts == 0) {
      if (g.i_chunks <= 0 || g.i_chunks % in != 0)
        return at(g.line, say("gpu {0}: i_chunks = {1} does not split {2}'s {3} input block(s) on this rank; allowed: a positive multiple of {3}",
                              g.id, g.i_chunks, op, in));
      parts = g.i_chunks / in;
    }
  }
  if (parts == 0) parts = 1;
  a.parts = parts;
  int most = 0;
  for (const MscclGpu& g : a.gpus) {
    const int in = inputBlocks(a.op, a.ngpus, g.id, root) * parts;
    const int out = outputBlocks(a.op, a.ngpus, g.id, root) * parts;
    const Text shape = say("({0} on {1} ranks, root {2}, {3} chunk(s) per block)", op, a.ngpus, root, parts);
    if (g.i_chunks != in)
      return at(g.line, say("gpu {0}: i_chunks = {1}; allowed: {2} {3}", g.id, g.i_chunks, in, shape));
    if (g.o_chunks != out && !(a.inplace && g.o_chunks == 0))
      return at(g.line, a.inplace ? say("gpu {0}: o_chunks = {1}; allowed: {2} or 0 (in place) {3}", g.id,
                                        g.o_chunks, out, shape)
                                  : say("gpu {0}: o_chunks = {1}; allowed: {2} {3}", g.id, g.o_chunks, out, shape));
    if (g.s_chunks < 0)
      return at(g.line, say("gpu {0}: s_chunks = {1}; allowed: 0 or more", g.id, g.s_chunks));
    most = std::max({most, g.i_chunks, a.inplace && g.o_chunks == 0 ? out : g.o_chunks});
  }
  if (a.nchunksperloop != most)
    return at(a.line, say("nchunksperloop = {0}; the largest i_chunks or o_chunks is {1}, and nchunksperloop must equal it",
                          a.nchunksperloop, most));
  if (a.inplace && a.op != Op::all_reduce && a.op != Op::all_gather &&
      a.op != Op::reduce_scatter && a.op != Op::all_to_all && a.op != Op::broadcast)
    return at(a.line, say("inplace=\"1\" for {0} is not supported; allowed in place: allreduce, allgather, reduce_scatter, alltoall, broadcast",
                          op));
  return {};
}

Status checkStep(const MscclAlgo& a, const MscclGpu& g, const std::vector<int>& tb_index, const MscclTb& t,
                 const MscclStep& s, int index, const MscclAt& at) {
  const Text w = where(g, t, s);
  if (s.s != index)
    return at(s.line, say("{0}: steps of a threadblock are numbered 0, 1, 2, ... in order; this is step {1} of tb {2}",
                          w, index, t.id));
  // A nop moves nothing (the MSCCL runtime writes cnt="0" and offsets -1):
  // it is an ordering edge only. Every other step moves 1 or more chunks.
  if (s.type == MscclType::nop) {
    if (s.cnt < 0) return at(s.line, say("{0}: a nop with cnt = {1}; allowed: 0 or more (a nop moves nothing)", w, s.cnt));
  } else if (s.cnt < 1) {
    return at(s.line, say("{0}: cnt = {1}; allowed: 1 or more", w, s.cnt));
  }
  auto range = [&](char buf, int off, bool source) -> Status {
    const std::int64_t n = chunksOf(a, g, buf);
    if (off < 0 || std::int64_t(off) + s.cnt > n)
      return at(s.line, source ? say("{0}: source chunks {1}..{2} of buffer {3} are out of range; buffer {3} has {4} chunk(s) on gpu {5}",
                                     w, off, std::int64_t(off) + s.cnt - 1, std::string(1, buf), n, g.id)
                               : say("{0}: destination chunks {1}..{2} of buffer {3} are out of range; buffer {3} has {4} chunk(s) on gpu {5}",
                                     w, off, std::int64_t(off) + s.cnt - 1, std::string(1, buf), n, g.id));
    return {};
  };
  const bool sends = mscclSends(s.type), recvs = mscclReceives(s.type);
  // What a step reads and writes on its own gpu: a send reads src (a fused
  // step reads and writes dst), a receive writes dst, cpy/re read src and
  // write dst. A send's dst names the peer's chunk (not checked here).
  if (s.type != MscclType::nop) {
    if (s.type != MscclType::r && s.type != MscclType::rcs)
      if (Status st = range(s.srcbuf, s.srcoff, true); !st) return st;
    if (s.type != MscclType::s)
      if (Status st = range(s.dstbuf, s.dstoff, false); !st) return st;
  }
  if (sends && t.send < 0)
    return at(s.line, s.type == MscclType::s
                          ? say("{0}: a send in a threadblock with send=\"-1\"; the tb's send names the peer", w)
                          : say("{0}: a fused send in a threadblock with send=\"-1\"; the tb's send names the peer", w));
  if (recvs && t.recv < 0)
    return at(s.line, say("{0}: a receive in a threadblock with recv=\"-1\"; the tb's recv names the peer", w));
  if ((s.depid < 0) != (s.deps < 0))
    return at(s.line, say("{0}: depid = {1} and deps = {2}; both -1 (none) or both a step", w, s.depid, s.deps));
  if (s.depid >= 0) {
    const int di = s.depid < int(tb_index.size()) ? tb_index[std::size_t(s.depid)] : -1;
    if (di < 0) return at(s.line, say("{0}: depid = {1} is not a threadblock of gpu {2}", w, s.depid, g.id));
    const MscclTb* dt = &g.tbs[std::size_t(di)];
    if (s.deps >= int(dt->steps.size()))
      return at(s.line, say("{0}: deps = {1}, but tb {2} has {3} step(s)", w, s.deps, s.depid, dt->steps.size()));
  }
  return {};
}

}  // namespace

std::vector<int> mscclTbIndex(const MscclGpu& g) {
  int most = -1;
  for (const MscclTb& t : g.tbs) most = std::max(most, t.id);
  std::vector<int> index(std::size_t(most + 1), -1);
  for (int i = 0; i < int(g.tbs.size()); ++i)
    if (g.tbs[std::size_t(i)].id >= 0 && index[std::size_t(g.tbs[std::size_t(i)].id)] < 0)
      index[std::size_t(g.tbs[std::size_t(i)].id)] = i;
  return index;
}

Status checkMscclFile(MscclAlgo& a, int ranks, int root, const MscclAt& at, std::int64_t max_chunks) {
  if (Status st = checkSizes(a, at, std::min(max_chunks, kMscclMaxChunks)); !st) return st;
  const auto op = mscclOp(a.coll);
  if (a.coll == "custom")
    return at(a.line, say("coll=\"custom\": collviz checks a run against a known collective; allowed: {0}",
                          mscclCollNames()));
  if (!op)
    return at(a.line, say("coll=\"{0}\" is not a collective; allowed: {1}", a.coll, mscclCollNames()));
  a.op = *op;
  a.root = root;
  if (a.ngpus < kMinRanks || a.ngpus > kMaxRanks)
    return at(a.line, say("ngpus = {0}; allowed: {1} to {2}", a.ngpus, kMinRanks, kMaxRanks));
  if (ranks > 0 && ranks != a.ngpus)
    return at(a.line, say("ngpus = {0} but --ranks is {1}; the file runs on exactly ngpus ranks", a.ngpus, ranks));
  // The root is the caller's (--root, a step's root), not the file's: no FILE:LINE.
  if (root < 0 || root >= a.ngpus)
    return Error{say(kMscclRootOutOfRange, root, a.ngpus - 1, a.ngpus)};
  if (a.nchannels < 1)
    return at(a.line, say("nchannels = {0}; allowed: 1 or more", a.nchannels));
  if (a.proto != "Simple" && a.proto != "LL" && a.proto != "LL128")
    return at(a.line, say("proto=\"{0}\" is not a protocol; allowed: Simple, LL, LL128", a.proto));
  std::vector<int> seen(std::size_t(a.ngpus), 0);
  for (const MscclGpu& g : a.gpus) {
    if (g.id < 0 || g.id >= a.ngpus)
      return at(g.line, say("gpu id {0} is out of range; allowed: 0 to {1} (ngpus = {2})", g.id, a.ngpus - 1, a.ngpus));
    if (seen[std::size_t(g.id)]++)
      return at(g.line, say("gpu {0} appears twice", g.id));
  }
  for (int r = 0; r < a.ngpus; ++r)
    if (!seen[std::size_t(r)])
      return at(a.line, say("gpu {0} is missing; the file has {1} <gpu> of ngpus = {2}", r, a.gpus.size(), a.ngpus));
  std::sort(a.gpus.begin(), a.gpus.end(), [](const MscclGpu& x, const MscclGpu& y) { return x.id < y.id; });
  if (Status st = checkChunks(a, root, at); !st) return st;
  for (const MscclGpu& g : a.gpus) {
    std::map<int, int> ids;
    for (const MscclTb& t : g.tbs)
      if (t.id < 0 || t.id >= int(g.tbs.size()) + (1 << 16))
        return at(t.line, say("gpu {0} tb id {1}; allowed: 0 to {2}", g.id, t.id, int(g.tbs.size()) + (1 << 16) - 1));
    const std::vector<int> tb_index = mscclTbIndex(g);
    for (const MscclTb& t : g.tbs) {
      if (ids.count(t.id))
        return at(t.line, say("gpu {0} tb {1} appears twice (first at line {2})", g.id, t.id, ids[t.id]));
      ids[t.id] = t.line;
      for (int peer : {t.send, t.recv})
        if (peer < -1 || peer >= a.ngpus || peer == g.id)
          return at(t.line, say("gpu {0} tb {1}: peer {2} is not another gpu; allowed: -1 (none) or 0 to {3} except {0}",
                                g.id, t.id, peer, a.ngpus - 1));
      if (t.chan < 0 || t.chan >= a.nchannels)
        return at(t.line, say("gpu {0} tb {1}: chan = {2}; allowed: 0 to {3} (nchannels = {4})", g.id, t.id, t.chan,
                              a.nchannels - 1, a.nchannels));
      for (int i = 0; i < int(t.steps.size()); ++i)
        if (Status st = checkStep(a, g, tb_index, t, t.steps[std::size_t(i)], i, at); !st) return st;
    }
  }
  if (Status st = checkMoved(a, at, std::min(max_chunks, kMscclMaxChunks)); !st) return st;
  auto graph = mscclGraph(a, at);
  if (!graph) return graph.error();
  return {};
}

}  // namespace collviz::algo
