// The graph of an MSCCL file's steps: sends matched with receives in order
// per (channel, sender, receiver), what each part of a step waits on, a
// cycle (a file that can never finish), and the rounds (docs/algorithms.md).
#include <algorithm>
#include <map>
#include <tuple>

#include "engine/algo/msccl/graph.h"

namespace collviz::algo {
namespace {

struct Edge {
  int to = 0, weight = 0;
};

Text stepName(const MscclAlgo& a, const MscclNode& n) {
  const MscclGpu& g = a.gpus[std::size_t(n.gpu)];
  const MscclTb& t = g.tbs[std::size_t(n.tb)];
  return say("gpu {0} tb {1} step {2}", g.id, t.id, t.steps[std::size_t(n.step)].s);
}

}  // namespace

Result<MscclGraph> mscclGraph(const MscclAlgo& a, const MscclAt& at) {
  MscclGraph gr;
  // Nodes: a receive part, then a send part, or one local node per step.
  std::vector<std::vector<std::vector<std::pair<int, int>>>> ends(a.gpus.size());  // first, last node
  using Key = std::tuple<int, int, int>;  // (channel, sender, receiver)
  std::map<Key, std::vector<int>> sends, recvs;       // nodes in order
  std::map<Key, std::pair<int, int>> send_tb, recv_tb;  // the one tb (index, line) per key
  for (int gi = 0; gi < int(a.gpus.size()); ++gi) {
    const MscclGpu& g = a.gpus[std::size_t(gi)];
    ends[std::size_t(gi)].resize(g.tbs.size());
    for (int ti = 0; ti < int(g.tbs.size()); ++ti) {
      const MscclTb& t = g.tbs[std::size_t(ti)];
      for (int si = 0; si < int(t.steps.size()); ++si) {
        const MscclStep& s = t.steps[std::size_t(si)];
        const int first = int(gr.nodes.size());
        auto claim = [&](std::map<Key, std::pair<int, int>>& owners, const Key& k,
                         bool receive) -> Status {
          auto [it, fresh] = owners.emplace(k, std::make_pair(ti, t.line));
          const int peer = std::get<1>(k) == g.id ? std::get<2>(k) : std::get<1>(k);
          if (!fresh && it->second.first != ti)
            return at(t.line, receive ? say("gpu {0}: two threadblocks receive from gpu {1} on channel {2} (lines {3} and {4}): their order is undefined",
                                            g.id, peer, std::get<0>(k), it->second.second, t.line)
                                      : say("gpu {0}: two threadblocks send to gpu {1} on channel {2} (lines {3} and {4}): their order is undefined",
                                            g.id, peer, std::get<0>(k), it->second.second, t.line));
          return {};
        };
        if (mscclReceives(s.type)) {
          const Key k{t.chan, t.recv, g.id};
          if (Status st = claim(recv_tb, k, true); !st) return st.error();
          recvs[k].push_back(int(gr.nodes.size()));
          gr.nodes.push_back({MscclNode::Kind::recv, gi, ti, si});
        }
        if (mscclSends(s.type)) {
          const Key k{t.chan, g.id, t.send};
          if (Status st = claim(send_tb, k, false); !st) return st.error();
          sends[k].push_back(int(gr.nodes.size()));
          gr.nodes.push_back({MscclNode::Kind::send, gi, ti, si});
        }
        if (!mscclReceives(s.type) && !mscclSends(s.type))
          gr.nodes.push_back({MscclNode::Kind::local, gi, ti, si});
        ends[std::size_t(gi)][std::size_t(ti)].push_back({first, int(gr.nodes.size()) - 1});
      }
    }
  }
  auto stepOf = [&](int node) -> const MscclStep& {
    const MscclNode& n = gr.nodes[std::size_t(node)];
    return a.gpus[std::size_t(n.gpu)].tbs[std::size_t(n.tb)].steps[std::size_t(n.step)];
  };
  // Matching, in order per key.
  for (const auto& [k, list] : sends) {
    const auto r = recvs.find(k);
    const std::size_t got = r == recvs.end() ? 0 : r->second.size();
    if (got < list.size())
      return at(stepOf(list[got]).line,
                say("{0} sends message {1} to gpu {2} on channel {3}, which receives only {4} from gpu {5} on that channel: no matching receive",
                    stepName(a, gr.nodes[std::size_t(list[got])]), got + 1, std::get<2>(k), std::get<0>(k), got,
                    std::get<1>(k)));
  }
  for (const auto& [k, list] : recvs) {
    const auto s = sends.find(k);
    const std::size_t got = s == sends.end() ? 0 : s->second.size();
    if (got < list.size())
      return at(stepOf(list[got]).line,
                say("{0} receives message {1} from gpu {2} on channel {3}, which sends only {4} to gpu {5} on that channel: no matching send",
                    stepName(a, gr.nodes[std::size_t(list[got])]), got + 1, std::get<1>(k), std::get<0>(k), got,
                    std::get<2>(k)));
    for (std::size_t i = 0; i < list.size(); ++i) {
      const int sn = s->second[i], rn = list[i];
      if (stepOf(sn).cnt != stepOf(rn).cnt)
        return at(stepOf(rn).line, say("{0} receives cnt = {1} chunk(s), but its matching send ({2}, line {3}) sends cnt = {4}",
                                       stepName(a, gr.nodes[std::size_t(rn)]), stepOf(rn).cnt,
                                       stepName(a, gr.nodes[std::size_t(sn)]), stepOf(sn).line, stepOf(sn).cnt));
      const int m = int(gr.messages.size());
      gr.messages.push_back({std::get<1>(k), std::get<2>(k), sn, rn});
      gr.nodes[std::size_t(sn)].message = gr.nodes[std::size_t(rn)].message = m;
    }
  }
  // What waits on what: earlier steps of the tb and depid/deps (a step waits
  // on the whole step: its last node); a fused send on its own receive; a
  // receive on its matching send. Weight 1: the data must have arrived, so
  // the next round; 0: the same round (after a send is posted, or local work
  // after local work).
  std::vector<std::vector<Edge>> out(gr.nodes.size());
  std::vector<int> indegree(gr.nodes.size(), 0);
  auto edge = [&](int from, int to, int w) {
    out[std::size_t(from)].push_back({to, w});
    ++indegree[std::size_t(to)];
  };
  for (int gi = 0; gi < int(a.gpus.size()); ++gi) {
    const MscclGpu& g = a.gpus[std::size_t(gi)];
    const std::vector<int> tb_index = mscclTbIndex(g);  // linear: no search per step
    for (int ti = 0; ti < int(g.tbs.size()); ++ti) {
      const auto& tb_ends = ends[std::size_t(gi)][std::size_t(ti)];
      for (int si = 0; si < int(tb_ends.size()); ++si) {
        const auto [first, last] = tb_ends[std::size_t(si)];
        const MscclStep& s = g.tbs[std::size_t(ti)].steps[std::size_t(si)];
        const bool local = gr.nodes[std::size_t(first)].kind == MscclNode::Kind::local;
        auto waitOn = [&](int pred_last) {
          const bool after_send = gr.nodes[std::size_t(pred_last)].kind == MscclNode::Kind::send;
          edge(pred_last, first, local || after_send ? 0 : 1);
        };
        if (si > 0) waitOn(tb_ends[std::size_t(si - 1)].second);
        if (s.depid >= 0) {
          const int dt = tb_index[std::size_t(s.depid)];
          waitOn(ends[std::size_t(gi)][std::size_t(dt)][std::size_t(s.deps)].second);
        }
        if (first != last) edge(first, last, 1);  // a fused step: receive, then send
      }
    }
  }
  for (const MscclMessage& m : gr.messages) edge(m.send_node, m.recv_node, 0);
  // Kahn's order; a node left over is on or behind a cycle.
  std::vector<int> ready;
  for (int v = 0; v < int(gr.nodes.size()); ++v) {
    gr.nodes[std::size_t(v)].round = gr.nodes[std::size_t(v)].kind == MscclNode::Kind::local ? 0 : 1;
    if (indegree[std::size_t(v)] == 0) ready.push_back(v);
  }
  std::reverse(ready.begin(), ready.end());
  while (!ready.empty()) {
    const int v = ready.back();
    ready.pop_back();
    gr.order.push_back(v);
    const int rv = gr.nodes[std::size_t(v)].round;
    for (const Edge& e : out[std::size_t(v)]) {
      int& r = gr.nodes[std::size_t(e.to)].round;
      r = std::max(r, rv + e.weight);
      if (--indegree[std::size_t(e.to)] == 0) ready.push_back(e.to);
    }
  }
  if (gr.order.size() != gr.nodes.size()) {
    // Walk back along unfinished waits until a node repeats: it is on the cycle.
    std::vector<std::vector<int>> in(gr.nodes.size());
    for (int v = 0; v < int(gr.nodes.size()); ++v)
      for (const Edge& e : out[std::size_t(v)]) in[std::size_t(e.to)].push_back(v);
    std::vector<char> done(gr.nodes.size(), 0), seen(gr.nodes.size(), 0);
    for (int v : gr.order) done[std::size_t(v)] = 1;
    int v = int(std::find(done.begin(), done.end(), 0) - done.begin());
    while (!seen[std::size_t(v)]) {
      seen[std::size_t(v)] = 1;
      for (int p : in[std::size_t(v)])
        if (!done[std::size_t(p)]) {
          v = p;
          break;
        }
    }
    return at(stepOf(v).line, say("{0} is on a dependency cycle: through depid/deps, the earlier steps of its threadblock and the sends its receives match, it waits on itself and can never run",
                                  stepName(a, gr.nodes[std::size_t(v)])));
  }
  for (const MscclNode& n : gr.nodes) gr.rounds = std::max(gr.rounds, n.round);
  return gr;
}

}  // namespace collviz::algo
