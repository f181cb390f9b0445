// The checks of an MSCCL file (the table in docs/algorithms.md) and the
// graph of its steps: matching, cycles, rounds.
#include <algorithm>
#include <map>
#include <tuple>

#include "engine/algo/msccl_graph.h"

namespace collviz::algo {

bool mscclSends(MscclType t) {
  return t == MscclType::s || t == MscclType::rcs || t == MscclType::rrs || t == MscclType::rrcs;
}
bool mscclReceives(MscclType t) {
  return t == MscclType::r || t == MscclType::rcs || t == MscclType::rrs || t == MscclType::rrc ||
         t == MscclType::rrcs;
}

namespace {

std::string where(const MscclGpu& g, const MscclTb& t, const MscclStep& s) {
  return "gpu " + std::to_string(g.id) + " tb " + std::to_string(t.id) + " step " +
         std::to_string(s.s);
}

int chunksOf(const MscclGpu& g, char buf) {
  return buf == 'i' ? g.i_chunks : buf == 'o' ? g.o_chunks : g.s_chunks;
}

// The chunk counts the op gives rank r with `parts` chunks per block.
Status checkChunks(MscclAlgo& a, int root, const MscclAt& at) {
  const std::string op(name(a.op));
  int parts = 0;
  for (const MscclGpu& g : a.gpus) {
    const int in = inputBlocks(a.op, a.ngpus, g.id, root);
    if (in > 0 && parts == 0) {
      if (g.i_chunks <= 0 || g.i_chunks % in != 0)
        return at(g.line, "gpu " + std::to_string(g.id) + ": i_chunks = " + std::to_string(g.i_chunks) +
                              " does not split " + op + "'s " + std::to_string(in) +
                              " input block(s) on this rank; allowed: a positive multiple of " +
                              std::to_string(in));
      parts = g.i_chunks / in;
    }
  }
  if (parts == 0) parts = 1;
  a.parts = parts;
  int most = 0;
  for (const MscclGpu& g : a.gpus) {
    const int in = inputBlocks(a.op, a.ngpus, g.id, root) * parts;
    const int out = outputBlocks(a.op, a.ngpus, g.id, root) * parts;
    const std::string gpu = "gpu " + std::to_string(g.id) + ": ";
    const std::string shape = " (" + op + " on " + std::to_string(a.ngpus) + " ranks, root " +
                              std::to_string(root) + ", " + std::to_string(parts) +
                              " chunk(s) per block)";
    if (g.i_chunks != in)
      return at(g.line, gpu + "i_chunks = " + std::to_string(g.i_chunks) + "; allowed: " +
                            std::to_string(in) + shape);
    if (g.o_chunks != out && !(a.inplace && g.o_chunks == 0))
      return at(g.line, gpu + "o_chunks = " + std::to_string(g.o_chunks) + "; allowed: " +
                            std::to_string(out) + (a.inplace ? " or 0 (in place)" : "") + shape);
    if (g.s_chunks < 0)
      return at(g.line, gpu + "s_chunks = " + std::to_string(g.s_chunks) + "; allowed: 0 or more");
    most = std::max({most, g.i_chunks, g.o_chunks});
  }
  if (a.nchunksperloop != most)
    return at(a.line, "nchunksperloop = " + std::to_string(a.nchunksperloop) +
                          "; the largest i_chunks or o_chunks is " + std::to_string(most) +
                          ", and nchunksperloop must equal it");
  if (a.inplace && a.op != Op::all_reduce && a.op != Op::all_gather &&
      a.op != Op::reduce_scatter && a.op != Op::all_to_all && a.op != Op::broadcast)
    return at(a.line, "inplace=\"1\" for " + op +
                          " is not supported; allowed in place: allreduce, allgather, "
                          "reduce_scatter, alltoall, broadcast");
  return {};
}

Status checkStep(const MscclAlgo& a, const MscclGpu& g, const MscclTb& t, const MscclStep& s,
                 int index, const MscclAt& at) {
  const std::string w = where(g, t, s);
  if (s.s != index)
    return at(s.line, w + ": steps of a threadblock are numbered 0, 1, 2, ... in order; this is "
                          "step " + std::to_string(index) + " of tb " + std::to_string(t.id));
  if (s.cnt < 1) return at(s.line, w + ": cnt = " + std::to_string(s.cnt) + "; allowed: 1 or more");
  auto range = [&](char buf, int off, const char* what) -> Status {
    const int n = chunksOf(g, a.inplace && buf == 'o' && g.o_chunks == 0 ? 'i' : buf);
    if (off < 0 || off + s.cnt > n)
      return at(s.line, w + ": " + what + " chunks " + std::to_string(off) + ".." +
                            std::to_string(off + s.cnt - 1) + " of buffer " + std::string(1, buf) +
                            " are out of range; buffer " + std::string(1, buf) + " has " +
                            std::to_string(n) + " chunk(s) on gpu " + std::to_string(g.id));
    return {};
  };
  const bool sends = mscclSends(s.type), recvs = mscclReceives(s.type);
  // What a step reads and writes on its own gpu: a send reads src (a fused
  // step reads and writes dst), a receive writes dst, cpy/re read src and
  // write dst. A send's dst names the peer's chunk (not checked here).
  if (s.type != MscclType::nop) {
    if (s.type != MscclType::r && s.type != MscclType::rcs)
      if (Status st = range(s.srcbuf, s.srcoff, "source"); !st) return st;
    if (s.type != MscclType::s)
      if (Status st = range(s.dstbuf, s.dstoff, "destination"); !st) return st;
  }
  if (sends && t.send < 0)
    return at(s.line, w + ": a " + std::string(s.type == MscclType::s ? "send" : "fused send") +
                          " in a threadblock with send=\"-1\"; the tb's send names the peer");
  if (recvs && t.recv < 0)
    return at(s.line, w + ": a receive in a threadblock with recv=\"-1\"; the tb's recv names the peer");
  if ((s.depid < 0) != (s.deps < 0))
    return at(s.line, w + ": depid = " + std::to_string(s.depid) + " and deps = " +
                          std::to_string(s.deps) + "; both -1 (none) or both a step");
  if (s.depid >= 0) {
    auto dt = std::find_if(g.tbs.begin(), g.tbs.end(), [&](const MscclTb& x) { return x.id == s.depid; });
    if (dt == g.tbs.end())
      return at(s.line, w + ": depid = " + std::to_string(s.depid) + " is not a threadblock of gpu " +
                            std::to_string(g.id));
    if (s.deps >= int(dt->steps.size()))
      return at(s.line, w + ": deps = " + std::to_string(s.deps) + ", but tb " +
                            std::to_string(s.depid) + " has " + std::to_string(dt->steps.size()) +
                            " step(s)");
  }
  return {};
}

}  // namespace

Status checkMscclFile(MscclAlgo& a, int ranks, int root, const MscclAt& at) {
  const auto op = mscclOp(a.coll);
  if (a.coll == "custom")
    return at(a.line, "coll=\"custom\": collviz checks a run against a known collective; allowed: " +
                          std::string(mscclCollNames()));
  if (!op)
    return at(a.line, "coll=\"" + a.coll + "\" is not a collective; allowed: " + std::string(mscclCollNames()));
  a.op = *op;
  a.root = root;
  if (a.ngpus < kMinRanks || a.ngpus > kMaxRanks)
    return at(a.line, "ngpus = " + std::to_string(a.ngpus) + "; allowed: " +
                          std::to_string(kMinRanks) + " to " + std::to_string(kMaxRanks));
  if (ranks > 0 && ranks != a.ngpus)
    return at(a.line, "ngpus = " + std::to_string(a.ngpus) + " but --ranks is " +
                          std::to_string(ranks) + "; the file runs on exactly ngpus ranks");
  if (root < 0 || root >= a.ngpus)
    return at(a.line, "root " + std::to_string(root) + " is out of range; allowed: 0 to " +
                          std::to_string(a.ngpus - 1));
  if (a.nchannels < 1)
    return at(a.line, "nchannels = " + std::to_string(a.nchannels) + "; allowed: 1 or more");
  if (a.proto != "Simple" && a.proto != "LL" && a.proto != "LL128")
    return at(a.line, "proto=\"" + a.proto + "\" is not a protocol; allowed: Simple, LL, LL128");
  std::vector<int> seen(std::size_t(a.ngpus), 0);
  for (const MscclGpu& g : a.gpus) {
    if (g.id < 0 || g.id >= a.ngpus)
      return at(g.line, "gpu id " + std::to_string(g.id) + " is out of range; allowed: 0 to " +
                            std::to_string(a.ngpus - 1) + " (ngpus = " + std::to_string(a.ngpus) + ")");
    if (seen[std::size_t(g.id)]++)
      return at(g.line, "gpu " + std::to_string(g.id) + " appears twice");
  }
  for (int r = 0; r < a.ngpus; ++r)
    if (!seen[std::size_t(r)])
      return at(a.line, "gpu " + std::to_string(r) + " is missing; the file has " +
                            std::to_string(a.gpus.size()) + " <gpu> of ngpus = " + std::to_string(a.ngpus));
  std::sort(a.gpus.begin(), a.gpus.end(), [](const MscclGpu& x, const MscclGpu& y) { return x.id < y.id; });
  if (Status st = checkChunks(a, root, at); !st) return st;
  for (const MscclGpu& g : a.gpus) {
    std::map<int, int> ids;
    for (const MscclTb& t : g.tbs) {
      const std::string w = "gpu " + std::to_string(g.id) + " tb " + std::to_string(t.id);
      if (ids.count(t.id))
        return at(t.line, w + " appears twice (first at line " + std::to_string(ids[t.id]) + ")");
      ids[t.id] = t.line;
      for (int peer : {t.send, t.recv})
        if (peer < -1 || peer >= a.ngpus || peer == g.id)
          return at(t.line, w + ": peer " + std::to_string(peer) + " is not another gpu; allowed: -1 (none) or 0 to " +
                                std::to_string(a.ngpus - 1) + " except " + std::to_string(g.id));
      if (t.chan < 0 || t.chan >= a.nchannels)
        return at(t.line, w + ": chan = " + std::to_string(t.chan) + "; allowed: 0 to " +
                              std::to_string(a.nchannels - 1) + " (nchannels = " + std::to_string(a.nchannels) + ")");
      for (int i = 0; i < int(t.steps.size()); ++i)
        if (Status st = checkStep(a, g, t, t.steps[std::size_t(i)], i, at); !st) return st;
    }
  }
  auto graph = mscclGraph(a, at);
  if (!graph) return graph.error();
  return {};
}

}  // namespace collviz::algo
