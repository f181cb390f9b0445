// What a read log says, in short: the sentence, a channel's ring, a link's
// transport, and the JSON (nccl_log.h, json.h).
#include <algorithm>
#include <set>

#include "engine/job/nccl_log/json.h"

namespace collviz::nccl_log {

// NCCL's algorithm and protocol numbers in its tuning lines, by name.
std::string algoName(std::int64_t n) {
  static const char* const kNames[] = {"TREE", "RING", "COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS", "NVLS_TREE", "PAT"};
  return n >= 0 && n < 7 ? kNames[n] : "algo " + std::to_string(n);
}

std::string protoName(std::int64_t n) {
  static const char* const kNames[] = {"LL", "LL128", "SIMPLE"};
  return n >= 0 && n < 3 ? kNames[n] : "proto " + std::to_string(n);
}

namespace {

// "P2P/CUMEM", "SHM/direct", "NET/AWS Libfabric": a transport's kind and first word.
std::string shortVia(const Transport& t) {
  if (t.kind == "NET") return "NET/" + t.net;
  std::size_t a = t.via.find('/');
  if (a == std::string::npos) return t.via;
  std::size_t b = t.via.find('/', a + 1);
  return t.via.substr(0, b);
}

Text list(const std::set<std::string>& s) {
  std::string out;
  for (const std::string& v : s) out += (out.empty() ? "" : ", ") + v;
  return lit(out);
}

}  // namespace

Text sentence(const Comm& c) {
  int ranks = c.nRanks > 0 ? c.nRanks : int(c.members.size());
  Text t;
  if (c.nNodes == 1) t = say("{0} ranks on 1 node", ranks);
  else if (c.nNodes > 1) t = say("{0} ranks on {1} nodes", ranks, c.nNodes);
  else t = say("{0} ranks", ranks);
  int rings = c.collChannels > 0 ? c.collChannels : int(c.rings.size());
  for (const Member& m : c.members)  // no "Channel NN/MM" line (not rank 0): its own "Ring" lines
    rings = std::max(rings, int(m.ringNeighbours.size()));
  if (rings > 0) t = say("{0} · {1}", t, rings == 1 ? say("1 ring") : say("{0} rings", rings));
  std::set<std::string> inter, intra;
  for (const Member& m : c.members)
    for (const Transport& tr : m.transports) (tr.kind == "NET" || tr.kind == "COLLNET" ? inter : intra).insert(shortVia(tr));
  if (!inter.empty()) t = say("{0} · {1}", t, say("inter-node links through {0}", list(inter)));
  if (!intra.empty()) t = say("{0} · {1}", t, say("intra-node links through {0}", list(intra)));
  return t;
}

std::vector<int> ringOrder(const Comm& c, int channel) {
  for (const Ring& r : c.rings)
    if (r.channel == channel && !r.cut) return r.order;
  // From the members' own "Ring" lines: follow next from rank 0.
  int n = c.nRanks;
  if (n <= 0) return {};
  std::vector<int> next(std::size_t(n), -1);
  for (const Member& m : c.members) {
    auto it = m.ringNeighbours.find(channel);
    if (it != m.ringNeighbours.end() && m.rank >= 0 && m.rank < n) next[std::size_t(m.rank)] = it->second[1];
  }
  std::vector<int> order;
  int r = 0;
  std::vector<bool> seen(std::size_t(n), false);
  while (r >= 0 && r < n && !seen[std::size_t(r)]) {
    seen[std::size_t(r)] = true;
    order.push_back(r);
    r = next[std::size_t(r)];
  }
  if (int(order.size()) != n || r != 0) return {};
  return order;
}

std::string linkKind(const Comm& c, int from, int to) {
  for (const Member& m : c.members)
    for (const Transport& t : m.transports)
      if (t.from == from && t.to == to) return shortVia(t);
  return "";
}

nlohmann::json toJson(const Log& log, const std::function<std::string(const Text&)>& say_) {
  using nlohmann::json;
  json j;
  j["files"] = log.files;
  j["version"] = log.version;
  j["settings"] = log.settings;
  j["networks"] = log.networks;
  const Counts& k = log.counts;
  j["lines"] = {{"bytes", k.bytes},          {"lines", k.lines},     {"nccl", k.ncclLines}, {"info", k.info},
                {"warn", k.warn},            {"read", k.read},       {"other", k.other},    {"foreign", k.foreign},
                {"interleaved", k.interleaved}, {"too_long", k.tooLong}, {"bad", k.bad}, {"dropped", k.dropped}};
  json comms = json::array();
  for (const Comm& c : log.comms) {
    json jc;
    jc["comm_id"] = c.commId;
    jc["ranks"] = c.nRanks;
    jc["nodes"] = c.nNodes;
    jc["coll_channels"] = c.collChannels;
    jc["hosts"] = c.hosts;
    jc["sentence"] = say_(sentence(c));
    json rings = json::array();
    for (const Ring& r : c.rings) rings.push_back({{"channel", r.channel}, {"of", r.of}, {"order", r.order}, {"cut", r.cut}});
    jc["rings"] = rings;
    json members = json::array();
    for (const Member& m : c.members) {
      json jm = {{"rank", m.rank}, {"host", m.host}, {"pid", m.pid}, {"dev", m.dev}, {"comm", m.ptr},
                 {"file", m.file}, {"cuda_dev", m.cudaDev}, {"nvml_dev", m.nvmlDev}, {"bus_id", m.busId},
                 {"local_rank", m.localRank}, {"local_ranks", m.localRanks}, {"init_complete", m.complete}};
      json trees = json::object();
      for (const auto& [ch, t] : m.trees) trees[std::to_string(ch)] = {{"up", t.up}, {"down", t.down}};
      jm["trees"] = trees;
      json nb = json::object();
      for (const auto& [ch, pn] : m.ringNeighbours) nb[std::to_string(ch)] = {{"prev", pn[0]}, {"next", pn[1]}};
      jm["ring_neighbours"] = nb;
      json links = json::array();
      for (const Transport& t : m.transports) {
        json jt = {{"channel", t.channel}, {"conn", t.conn}, {"from", t.from}, {"to", t.to}, {"kind", t.kind}, {"via", t.via}};
        if (!t.dir.empty()) jt["dir"] = t.dir;
        if (!t.net.empty()) jt["net"] = t.net, jt["net_dev"] = t.netDev, jt["gdr"] = t.gdr;
        if (t.proxy >= 0) jt["proxy"] = t.proxy;
        links.push_back(jt);
      }
      jm["transports"] = links;
      if (m.transportsDropped) jm["transports_dropped"] = m.transportsDropped;
      jm["channels"] = {{"coll", m.collChannels}, {"collnet", m.collnetChannels}, {"nvls", m.nvlsChannels},
                        {"p2p", m.p2pChannels}, {"p2p_per_peer", m.p2pPerPeer}};
      jm["calls"] = m.callsByOp;
      if (m.nvlsHeads >= 0) jm["nvls"] = {{"head_rank", m.nvlsHeadRank}, {"heads", m.nvlsHeads}};
      members.push_back(jm);
    }
    jc["members"] = members;
    jc["calls"] = c.callsByOp;
    json dis = json::array();
    for (const Said& d : c.disagreements) dis.push_back(d.current() ? say_(*d.current()) : std::string(d));
    jc["disagreements"] = dis;
    comms.push_back(jc);
  }
  j["comms"] = comms;
  json choices = json::array();
  for (const Choice& c : log.choices)
    choices.push_back({{"op", c.op}, {"bytes", c.bytes}, {"algo", c.algo}, {"proto", c.proto}, {"channel_lo", c.chLo},
                       {"channel_hi", c.chHi}, {"times", c.times}, {"comm", c.comm}});
  j["collectives"] = choices;
  auto samples = [&](const std::vector<Sample>& v) {
    json a = json::array();
    for (const Sample& s : v)
      a.push_back({{"file", s.file}, {"line", s.line}, {"what", s.what.current() ? say_(*s.what.current()) : std::string(s.what)}});
    return a;
  };
  j["bad"] = samples(log.bad);
  j["warnings"] = samples(log.warnings);
  json missing = json::array();
  for (const Said& m : log.missing) missing.push_back(m.current() ? say_(*m.current()) : std::string(m));
  j["not_said"] = missing;
  return j;
}

std::optional<Choice> lastChoice(const std::string& dir, Op op) {
  if (dir.empty()) return std::nullopt;
  auto log = read({dir});
  if (!log.ok()) return std::nullopt;
  return lastChoice(*log, op);
}

std::optional<Choice> lastChoice(const Log& log, Op op) {
  static const std::pair<Op, const char*> kNames[] = {{Op::all_reduce, "AllReduce"}, {Op::all_gather, "AllGather"},
                                                      {Op::reduce_scatter, "ReduceScatter"}, {Op::broadcast, "Broadcast"},
                                                      {Op::reduce, "Reduce"}};
  const char* want = nullptr;
  for (const auto& [o, n] : kNames)
    if (o == op) want = n;
  if (!want) return std::nullopt;
  std::optional<Choice> got;
  for (const Choice& c : log.choices)
    if (c.op == want) got = c;
  return got;
}

Text choiceText(const Choice& c) {
  return say("NCCL: {0} · {1} · channels {2}", c.algo, c.proto.empty() ? std::string("—") : c.proto,
             c.chLo >= 0 ? std::to_string(c.chLo) + "–" + std::to_string(c.chHi) : std::string("?"));
}

std::string commLabel(const Comm& c) {
  if (!c.commId.empty()) return c.commId;
  for (const Member& m : c.members)
    if (!m.ptr.empty()) return m.ptr;
  return "?";
}

}  // namespace collviz::nccl_log
