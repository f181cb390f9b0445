// The lines collviz reads, each from NCCL's format string (2.18-2.29):
//   graph/rings.cc   "Channel %02d/%02d :" then the ring (" %3d" each, at most
//                    20, in 2.18-2.22; " %*d" cut with "..." at 128 bytes, 2.23+)
//   graph/connect.cc "Ring %02d : %d -> %d -> %d", "Trees [%d] %d/%d/%d->%d->%d ..."
//   graph/trees.cc   "Tree %d : %d -> %d -> %d/%d/%d"
//   transport/*.cc   "Channel %02d/%d : %d[%d] -> %d[%d] [send] via NET/%s/%d%s%s%s",
//                    "... via P2P/...", "Channel %02d : ... via SHM/%s/%s",
//                    "CollNet %02d/%1d : %d [send] via COLLNET/%s/%d%s"
//   init.cc          "comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d",
//                    "%s comm %p rank %d nranks %d cudaDev %d nvmlDev %d busId %lx commId 0x%llx - Init COMPLETE",
//                    "%d coll channels, %d collnet channels, %d nvls channels, %d p2p channels, %d p2p channels per peer"
//   enqueue.cc       "%s: opCount %lx sendbuff %p recvbuff %p count %zu datatype %d op %d root %d comm %p [nranks=%d] stream %p",
//                    "%ld Bytes -> Algo %d proto %d time %f" (2.20-2.22, its op from the thread's
//                    "NCCL CALL ncclAllReduce(...)" line where one came before; 2.23 with "%s: " first),
//                    "%s: %ld Bytes -> Algo %s proto %s channel{Lo..Hi}={%d..%d}" (2.24+),
//                    "%s [Symmetric]: %ld Bytes -> Kernel %s nchannels %d nthreads %d nWorks %d" (2.28+)
#include <algorithm>

#include "engine/job/nccl_log/state.h"

namespace collviz::nccl_log {

namespace {

Outcome bad(Text why) { return {Kind::bad, std::move(why)}; }
Outcome ok() { return {Kind::read, {}}; }
Outcome overflow(std::string_view what) { return bad(say("a number too large in {0}", std::string(what.substr(0, 120)))); }

// "a[d]"
Num rankDev(std::string_view& s, std::int64_t& r, std::int64_t& d) {
  Num n = number(s, r);
  if (n != Num::ok) return n;
  if (!eat(s, "[")) return Num::none;
  if ((n = number(s, d)) != Num::ok) return n;
  return eat(s, "]") ? Num::ok : Num::none;
}

}  // namespace

Outcome Reader::State::channelLine(const Where& w, std::string_view s) {
  std::string_view all = s;
  std::int64_t ch = 0, of = -1;
  if (Num n = number(s, ch); n != Num::ok) return n == Num::over ? overflow(all) : Outcome{};
  if (eat(s, "/") && number(s, of) != Num::ok) return {};
  if (!eat(s, " :")) return {};
  if (findIn(s, " -> ") != std::string_view::npos) {  // a transport
    spaces(s);
    std::int64_t a = 0, ad = 0, b = 0, bd = 0;
    Num n = rankDev(s, a, ad);
    if (n == Num::over) return overflow(all);
    if (n != Num::ok || !eat(s, " -> ")) return {};
    if ((n = rankDev(s, b, bd)) != Num::ok) return n == Num::over ? overflow(all) : Outcome{};
    std::string_view dir;
    if (eat(s, " [send]")) dir = "send";
    else if (eat(s, " [receive]")) dir = "receive";
    if (!eat(s, " via ")) return {};
    const std::size_t slash = s.find('/');
    const std::string_view kind = s.substr(0, std::min<std::size_t>(slash, 16));
    // NET/<name, spaces allowed>/<dev>[(proxy)][/GDRDMA][(PCI)][/Shared]
    std::string_view net;
    std::int64_t netDev = -1, proxy = -1;
    if (kind == "NET") {
      std::string_view rest = s.substr(4);
      for (std::size_t i = 0; i < rest.size(); ++i) {
        if (rest[i] != '/' || i + 1 >= rest.size() || rest[i + 1] < '0' || rest[i + 1] > '9') continue;
        std::string_view d = rest.substr(i + 1);
        std::int64_t dev = 0;
        if (number(d, dev) != Num::ok || !(d.empty() || d[0] == '/' || d[0] == '(' || d[0] == ' ')) continue;
        net = rest.substr(0, i);
        netDev = dev;
        std::int64_t px = 0;
        if (eat(d, "(") && number(d, px) == Num::ok && eat(d, ")")) proxy = px;
        break;
      }
      if (net.empty()) return bad(say("a NET link with no device: {0}", std::string(all.substr(0, 160))));
    }
    int m = memberFor(w);
    if (m < 0) return ok();
    // A link read before (every channel's setup printed again): nothing to build.
    const LinkKey k{int(ch), of < 0 ? 0 : int(of), int(a), int(b), dir.empty() ? char(0) : dir[0]};
    auto& seen = linkSeen[std::size_t(m)];
    if (seen.count(k)) return ok();
    Member& mem = members[std::size_t(m)];
    if (mem.transports.size() >= kMaxTransports) return ++mem.transportsDropped, ++counts.dropped, ok();
    seen.insert(k);
    Transport t;
    t.channel = k.channel, t.conn = k.conn;
    t.from = int(a), t.fromDev = int(ad), t.to = int(b), t.toDev = int(bd);
    t.dir = std::string(dir);
    t.via = std::string(s.substr(0, 200));
    t.kind = std::string(kind);
    if (!net.empty()) t.net = std::string(net), t.netDev = int(netDev);
    if (proxy >= 0) t.proxy = int(proxy);
    t.gdr = s.find("/GDRDMA") != std::string_view::npos;
    mem.transports.push_back(std::move(t));
    return ok();
  }
  // A ring, in order from rank 0.
  if (of < 0) return {};
  std::vector<int>& order = ringScratch;
  order.clear();
  bool cut = false;
  for (;;) {
    spaces(s);
    if (s.empty()) break;
    if (eat(s, "...")) {
      cut = true;
      break;
    }
    std::int64_t v = 0;
    Num n = number(s, v);
    if (n == Num::over) return overflow(all);
    if (n == Num::ok && startsWith(s, "...")) {
      cut = true;  // "... 12 1..." : the cut may fall inside the last number, which is then not whole
      break;
    }
    if (n != Num::ok || (!s.empty() && s[0] != ' ')) {
      return bad(say("a ring line with a word that is not a rank: {0}", std::string(all.substr(0, 160))));
    }
    order.push_back(int(v));
  }
  std::vector<int>& sorted = sortScratch;
  sorted.assign(order.begin(), order.end());
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end() || (!sorted.empty() && sorted[0] < 0))
    return bad(say("channel {0}'s ring is not a permutation of the ranks: {1}", ch, std::string(all.substr(0, 160))));
  int m = memberFor(w);
  if (m < 0) return ok();
  // The same channel again (the comm set up again): the later line stands.
  std::vector<Ring>& rings = members[std::size_t(m)].rings;
  auto same = std::find_if(rings.begin(), rings.end(), [&](const Ring& x) { return x.channel == int(ch); });
  if (same != rings.end()) {
    ringLines[std::size_t(m)][std::size_t(same - rings.begin())] = lineNo;
    same->of = int(of), same->cut = cut;
    same->order.assign(order.begin(), order.end());  // in its own capacity: no allocation
  } else if (rings.size() < kMaxChannels) {
    Ring r;
    r.channel = int(ch), r.of = int(of), r.cut = cut, r.order = order;
    rings.push_back(std::move(r));
    ringLines[std::size_t(m)].push_back(lineNo);
  } else {
    ++counts.dropped;
  }
  return ok();
}

Outcome Reader::State::ringLine(const Where& w, std::string_view s) {
  std::string_view all = s;
  std::int64_t ch = 0, p = 0, me = 0, nx = 0;
  Num n = number(s, ch);
  if (n == Num::ok && eat(s, " : ") && (n = number(s, p)) == Num::ok && eat(s, " -> ") && (n = number(s, me)) == Num::ok &&
      eat(s, " -> ") && (n = number(s, nx)) == Num::ok) {
    int m = memberFor(w);
    if (m < 0) return ok();
    Member& mem = members[std::size_t(m)];
    if (mem.rank >= 0 && me != mem.rank)
      return bad(say("a Ring line of rank {0} in the lines of rank {1}: {2}", me, mem.rank, std::string(all.substr(0, 80))));
    if (mem.ringNeighbours.size() >= kMaxChannels && !mem.ringNeighbours.count(int(ch))) return ++counts.dropped, ok();
    mem.ringNeighbours[int(ch)] = {int(p), int(nx)};
    return ok();
  }
  return n == Num::over ? overflow(all) : Outcome{};
}

Outcome Reader::State::treesLine(const Where& w, std::string_view s) {
  // " [0] 1/4/-1->0->-1 [1] -1/-1/-1->0->3 ..."
  std::string_view all = s;
  std::map<int, Tree> got;
  for (;;) {
    spaces(s);
    if (s.empty()) break;
    std::int64_t c = 0, d[3] = {0, 0, 0}, me = 0, up = 0;
    Num n = Num::none;
    if (!eat(s, "[") || (n = number(s, c)) != Num::ok || !eat(s, "] ") || (n = number(s, d[0])) != Num::ok || !eat(s, "/") ||
        (n = number(s, d[1])) != Num::ok || !eat(s, "/") || (n = number(s, d[2])) != Num::ok || !eat(s, "->") ||
        (n = number(s, me)) != Num::ok || !eat(s, "->") || (n = number(s, up)) != Num::ok) {
      if (n == Num::over) return overflow(all);
      // The line is cut at 1023 bytes (connect.cc's buffer): keep what was whole.
      break;
    }
    Tree t;
    t.up = int(up), t.down = {int(d[0]), int(d[1]), int(d[2])};
    got[int(c)] = t;
  }
  if (got.empty()) return {};
  int m = memberFor(w);
  if (m < 0) return ok();
  auto& trees = members[std::size_t(m)].trees;
  for (auto& [c, t] : got) {
    if (trees.size() >= kMaxChannels && !trees.count(c)) ++counts.dropped;
    else trees[c] = t;
  }
  return ok();
}

Outcome Reader::State::treeLine(const Where& w, std::string_view s) {
  std::string_view all = s;
  std::int64_t c = 0, up = 0, me = 0, d[3] = {0, 0, 0};
  Num n = number(s, c);
  if (n == Num::ok && eat(s, " : ") && (n = number(s, up)) == Num::ok && eat(s, " -> ") && (n = number(s, me)) == Num::ok &&
      eat(s, " -> ") && (n = number(s, d[0])) == Num::ok && eat(s, "/") && (n = number(s, d[1])) == Num::ok && eat(s, "/") &&
      (n = number(s, d[2])) == Num::ok) {
    int m = memberFor(w);
    if (m < 0) return ok();
    Tree t;
    t.up = int(up), t.down = {int(d[0]), int(d[1]), int(d[2])};
    auto& trees = members[std::size_t(m)].trees;
    if (trees.size() >= kMaxChannels && !trees.count(int(c))) return ++counts.dropped, ok();
    trees[int(c)] = t;
    return ok();
  }
  return n == Num::over ? overflow(all) : Outcome{};
}

Outcome Reader::State::commLine(const Where& w, std::string_view s) {
  // "comm 0x... rank 0 nRanks 8 nNodes 2 ..." or "comm 0x... rank 0 nranks 8 cudaDev 0 ... - Init COMPLETE"
  std::string_view all = s;
  eat(s, "comm ");
  std::string ptr;
  if (hexNumber(s, ptr) != Num::ok) return {};
  bool complete = all.substr(all.size() >= 13 ? all.size() - 13 : 0) == "Init COMPLETE";
  bool destroy = all.find("Destroy COMPLETE") != std::string_view::npos;
  if (destroy) return ok();
  int m = memberByPtr(w, ptr, true);
  if (m < 0) return ok();
  Member& mem = members[std::size_t(m)];
  std::int64_t nRanks = -1, rank = -1;
  for (;;) {
    spaces(s);
    if (s.empty() || s[0] == '-') break;
    std::size_t sp = s.find(' ');
    if (sp == std::string_view::npos) break;
    std::string_view k = s.substr(0, sp);
    s.remove_prefix(sp + 1);
    std::string hex;
    if (k == "busId" || k == "commId" || k == "parent") {
      std::size_t e = s.find(' ');
      std::string v(s.substr(0, e));
      if (k == "busId") mem.busId = v;
      if (k == "commId") mem.commId = v;
      s.remove_prefix(e == std::string_view::npos ? s.size() : e);
      continue;
    }
    std::int64_t v = 0;
    Num n = number(s, v);
    if (n == Num::over) return overflow(all);
    if (n != Num::ok) break;
    if (k == "rank") rank = v;
    else if (k == "nranks" || k == "nRanks") nRanks = v;
    else if (k == "nNodes") mem.nNodes = int(v);
    else if (k == "localRanks") mem.localRanks = int(v);
    else if (k == "localRank") mem.localRank = int(v);
    else if (k == "cudaDev") mem.cudaDev = int(v);
    else if (k == "nvmlDev") mem.nvmlDev = int(v);
  }
  if (nRanks == 0 || (rank >= 0 && nRanks > 0 && rank >= nRanks) || rank < -1 || nRanks < -1)
    return bad(say("rank {0} of {1} ranks: a rank is from 0 to nRanks-1: {2}", rank, nRanks, std::string(all.substr(0, 160))));
  if (rank >= 0) mem.rank = int(rank);
  if (nRanks > 0) mem.nRanks = int(nRanks);
  if (complete) mem.complete = true;
  return ok();
}

Outcome Reader::State::channelsLine(const Where& w, std::string_view s) {
  // "24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p channels, 2 p2p channels per peer"
  std::string_view all = s;
  int m = memberFor(w);
  for (;;) {
    spaces(s);
    std::int64_t v = 0;
    Num n = number(s, v);
    if (n == Num::over) return overflow(all);
    if (n != Num::ok) break;
    std::size_t comma = s.find(',');
    std::string_view what = s.substr(0, comma);
    s.remove_prefix(comma == std::string_view::npos ? s.size() : comma + 1);
    if (m < 0) continue;
    Member& mem = members[std::size_t(m)];
    if (what == " coll channels") mem.collChannels = int(v);
    else if (what == " collnet channels") mem.collnetChannels = int(v);
    else if (what == " nvls channels") mem.nvlsChannels = int(v);
    else if (what == " p2p channels") mem.p2pChannels = int(v);
    else if (what == " p2p channels per peer") mem.p2pPerPeer = int(v);
  }
  return ok();
}

Outcome Reader::State::callLine(const Where& w, std::string_view s, std::size_t colon) {
  std::size_t c = rfindIn(s, " comm 0x");  // near the end: "comm %p [nranks=%d] stream %p"
  if (c != std::string_view::npos && c < colon) c = std::string_view::npos;
  if (c == std::string_view::npos) return {};
  std::string_view p = s.substr(c + 6);
  std::string ptr;
  if (hexNumber(p, ptr) != Num::ok) return {};
  std::size_t nr = rfindIn(s, "[nranks=");
  if (nr != std::string_view::npos && nr < c) nr = std::string_view::npos;
  if (nr != std::string_view::npos) {
    std::string_view q = s.substr(nr + 8);
    std::int64_t v = 0;
    if (number(q, v) == Num::over) return overflow(s);
  }
  int m = memberByPtr(w, ptr, false);
  if (m < 0) return ok();
  std::string_view op = s.substr(0, colon);
  if (!(lastCallCount && lastCallMember == m && op == lastCallOp)) {
    Member& mem = members[std::size_t(m)];
    auto it = mem.callsByOp.find(std::string(op));
    if (it == mem.callsByOp.end() && mem.callsByOp.size() < 64) it = mem.callsByOp.emplace(std::string(op), 0).first;
    if (it != mem.callsByOp.end()) lastCallCount = &it->second, lastCallMember = m, lastCallOp.assign(op);
    else lastCallCount = nullptr;
  }
  if (lastCallCount) ++*lastCallCount;
  // A choice NCCL printed on this thread just before: this call's.
  std::vector<int>* waiting = nullptr;
  const ProcKey thread = procKey(w, 't', std::uint64_t(w.tid));
  if (pendingLast.valid && pendingLast.thread == thread) {
    waiting = &pendingLast.choices;
  } else if (!pending.empty()) {
    auto pend = pending.find(thread);
    if (pend != pending.end()) waiting = &pend->second;
  }
  if (waiting) {
    for (int ci : *waiting)
      if (log.choices[std::size_t(ci)].op == op && choiceMember[std::size_t(ci)] < 0) choiceMember[std::size_t(ci)] = m;
    if (waiting == &pendingLast.choices) waiting->clear();
    else pending.erase(thread);
  }
  return ok();
}

Outcome Reader::State::tuningLine(const Where& w, std::string_view s, std::size_t arrow) {
  // Parsed into views; a Choice is built only for one not seen before.
  std::string_view all = s;
  std::string_view head = s.substr(0, arrow);  // "AllReduce: 8388608" or "8388608"
  std::size_t colon = head.find(": ");
  std::string_view bytes = colon == std::string_view::npos ? head : head.substr(colon + 2);
  std::string_view op = colon == std::string_view::npos ? std::string_view{} : head.substr(0, colon);
  bool sym = false, ce = false;
  if (op.size() > 12 && endsWith(op, " [Symmetric]")) op.remove_suffix(12), sym = true;
  if (op.size() > 14 && endsWith(op, " [Copy Engine]")) op.remove_suffix(14), ce = true;
  std::int64_t nbytes = 0;
  Num n = number(bytes, nbytes, INT64_MAX);
  if (n == Num::over) return overflow(all);
  if (n != Num::ok || !bytes.empty()) return {};
  // A line without its op (2.20-2.22): the op this thread called last, where
  // the log traces calls ("NCCL CALL ncclAllReduce(...)", callTrace).
  int calledMember = -1;
  if (op.empty() && !called.empty()) {
    if (auto it = called.find(procKey(w, 't', std::uint64_t(w.tid))); it != called.end())
      op = it->second.op, calledMember = it->second.member;
  }
  s.remove_prefix(arrow + 10);
  std::int64_t v = 0;
  std::string_view algo, proto;
  std::string& named = scratch;  // an algorithm's name made here ("symmetric ...", "algo 9")
  std::string protoNamed;
  int chLo = -1, chHi = -1;
  if (ce) {
    algo = "cudaMemcpy";
  } else if (sym) {
    // "Kernel %s nchannels %d nthreads %d nWorks %d"
    if (!eat(s, "Kernel ")) return {};
    std::size_t sp = s.find(' ');
    named.assign("symmetric ").append(s.substr(0, std::min<std::size_t>(sp, 80)));
    algo = named;
    std::size_t nc = s.find("nchannels ");
    if (nc != std::string_view::npos) {
      std::string_view q = s.substr(nc + 10);
      if ((n = number(q, v)) == Num::over) return overflow(all);
      if (n == Num::ok) chLo = 0, chHi = int(v) - 1;
    }
  } else {
    if (!eat(s, "Algo ")) return {};
    std::size_t sp = s.find(' ');
    std::string_view a = s.substr(0, sp);
    s.remove_prefix(sp == std::string_view::npos ? s.size() : sp);
    if (!eat(s, " proto ")) return {};
    sp = s.find(' ');
    std::string_view p = s.substr(0, sp);
    s.remove_prefix(sp == std::string_view::npos ? s.size() : sp);
    std::string_view an = a, pn = p;
    if (number(an, v) == Num::ok && an.empty()) named = algoName(v), algo = named;  // 2.18-2.23: NCCL's numbers
    else algo = a.substr(0, 32);
    if (number(pn, v) == Num::ok && pn.empty()) protoNamed = protoName(v), proto = protoNamed;
    else proto = p.substr(0, 32);
    std::size_t lo = s.find("={");
    if (lo != std::string_view::npos) {
      std::string_view q = s.substr(lo + 2);
      std::int64_t a1 = 0, a2 = 0;
      if ((n = number(q, a1)) == Num::ok && eat(q, "..") && (n = number(q, a2)) == Num::ok) chLo = int(a1), chHi = int(a2);
      if (n == Num::over) return overflow(all);
    }
  }
  // The choice's hash, checked against the stored choice (the next slot on a collision).
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&](std::string_view x) {
    for (char c : x) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;
  };
  mix(op), mix(algo), mix(proto);
  h ^= (std::uint64_t(nbytes) * 0x9E3779B97F4A7C15ull) ^ (std::uint64_t(std::uint32_t(chLo)) << 32 | std::uint32_t(chHi));
  int ci = -1;
  for (;; ++h) {
    auto it = choiceIndex.find(h);
    if (it == choiceIndex.end()) break;
    const Choice& c = log.choices[std::size_t(it->second)];
    if (c.bytes == nbytes && c.chLo == chLo && c.chHi == chHi && c.op == op && c.algo == algo && c.proto == proto) {
      ci = it->second;
      break;
    }
  }
  if (ci < 0) {
    if (log.choices.size() >= kMaxChoices) return ++counts.choicesDropped, ok();
    Choice ch;
    ch.op = std::string(op), ch.bytes = nbytes, ch.algo = std::string(algo), ch.proto = std::string(proto);
    ch.chLo = chLo, ch.chHi = chHi;
    ci = int(log.choices.size());
    log.choices.push_back(std::move(ch));
    choiceMember.push_back(-1);
    choiceIndex.emplace(h, ci);
  }
  ++log.choices[std::size_t(ci)].times;
  if (calledMember >= 0 && choiceMember[std::size_t(ci)] < 0) choiceMember[std::size_t(ci)] = calledMember;
  if (!op.empty()) {
    const ProcKey thread = procKey(w, 't', std::uint64_t(w.tid));
    if (!(pendingLast.valid && pendingLast.thread == thread)) {
      stashPending();
      pendingLast.valid = true, pendingLast.thread = thread;
      if (auto it = pending.find(thread); it != pending.end()) {
        pendingLast.choices = std::move(it->second);
        pending.erase(it);
      }
    }
    if (pendingLast.choices.size() < 8) pendingLast.choices.push_back(ci);
  }
  return ok();
}

Outcome Reader::State::nvlsLine(const Where& w, std::string_view s) {
  std::string_view all = s;
  std::string ptr;
  if (hexNumber(s, ptr) == Num::ok) {  // "NVLS comm 0x... headRank %d nHeads %d nvlsRanks ..."
    std::int64_t head = 0, heads = 0;
    Num n = Num::none;
    if (!eat(s, " headRank ") || (n = number(s, head)) != Num::ok || !eat(s, " nHeads ") || (n = number(s, heads)) != Num::ok)
      return n == Num::over ? overflow(all) : Outcome{};
    int m = memberByPtr(w, ptr, false);
    if (m >= 0) members[std::size_t(m)].nvlsHeadRank = int(head), members[std::size_t(m)].nvlsHeads = int(heads);
    return ok();
  }
  // " 1/2/-1->0->-1 3/-1/-1->0->2" (2.18: "d/d->r->up", two down ranks)
  int m = memberFor(w);
  if (m < 0) return ok();
  Member& mem = members[std::size_t(m)];
  ++mem.nvlsTrees;
  std::vector<Tree> got;
  for (;;) {
    spaces(s);
    if (s.empty()) break;
    Tree t;
    std::int64_t v = 0, me = 0;
    Num n = Num::ok;
    for (int i = 0; i < 3; ++i) {
      if ((n = number(s, v)) != Num::ok) break;
      t.down[std::size_t(i)] = int(v);
      if (!eat(s, "/")) break;
    }
    if (n != Num::ok || !eat(s, "->") || (n = number(s, me)) != Num::ok || !eat(s, "->") || (n = number(s, v)) != Num::ok)
      return n == Num::over ? overflow(all) : Outcome{};
    t.up = int(v);
    got.push_back(t);
  }
  mem.nvlsTree = std::move(got);
  return ok();
}

Outcome Reader::State::collnetLine(const Where& w, std::string_view s) {
  std::size_t via = s.find(" via COLLNET/");
  if (via == std::string_view::npos) return {};
  int m = memberFor(w);
  if (m >= 0) ++members[std::size_t(m)].collnetLines;
  return ok();
}

}  // namespace collviz::nccl_log
