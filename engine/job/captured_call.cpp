// A captured call as every member saw it (captured_call.h), from a finished
// capture read into a Job: the Job keeps one Call per rank and record, its
// kept bytes beside it (Job::captured), so the call is gathered from the
// group's calls of that seq (Job::calls is sorted by group, p2p, seq, rank:
// found by bisection) and its shape read back from the names the reader
// interned (tap::funcName, tap::dtypeName).
#include "engine/job/captured_call.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <tuple>

#include "engine/job/job.h"

namespace collviz::job {

namespace {

tap::DType dtypeNamed(std::string_view name) {
  for (int d = 1; d < int(tap::DType::count_); ++d)
    if (name == tap::dtypeName(tap::DType(d))) return tap::DType(d);
  return tap::DType::unknown;
}

tap::Func funcNamed(std::string_view name) {
  for (int f = 1; f < 128; ++f)
    for (bool nb : {false, true})
      if (*tap::funcName(tap::Func(f), nb) && name == tap::funcName(tap::Func(f), nb)) return tap::Func(f);
  return tap::Func::none;
}

bool holdsCapture(const Job& job) {
  for (const Source& s : job.sources)
    if (s.capture) return true;
  return false;
}

// The group's calls of one seq (collectives first; p2p where none).
std::pair<const Call*, const Call*> callsOf(const Job& job, int group, std::int64_t seq) {
  for (bool p2p : {false, true}) {
    const auto key = std::make_tuple(group, p2p, seq);
    auto lo = std::partition_point(job.calls.begin(), job.calls.end(),
                                   [&](const Call& c) { return std::make_tuple(c.group, c.p2p, c.seq) < key; });
    auto hi = std::partition_point(lo, job.calls.end(), [&](const Call& c) { return std::make_tuple(c.group, c.p2p, c.seq) == key; });
    if (lo != hi) return {&*lo, &*lo + (hi - lo)};
  }
  return {nullptr, nullptr};
}

// "MPI_COMM_WORLD (0x1), split(color=0) of MPI_COMM_WORLD (0x100000000)": the groups, at most 12.
std::string groupsList(const Job& job) {
  std::string s;
  for (std::size_t g = 0; g < job.groups.size(); ++g) {
    if (g == 12) return s + ", …";
    s += (g ? ", " : "") + groupName(job, int(g));
  }
  return s;
}

bool parseHex(std::string_view t, std::uint64_t* v) {
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) t.remove_prefix(2);
  if (t.empty() || t.size() > 16 || t.find_first_not_of("0123456789abcdefABCDEF") != std::string_view::npos) return false;
  *v = std::strtoull(std::string(t).c_str(), nullptr, 16);
  return true;
}

}  // namespace

std::string CapturedCall::hostsText() const {
  std::vector<std::string> hosts;
  for (const CapturedRank& r : ranks)
    if (!r.host.empty() && std::find(hosts.begin(), hosts.end(), r.host) == hosts.end()) hosts.push_back(r.host);
  std::string s;
  for (const std::string& h : hosts) s += (s.empty() ? "" : ", ") + h;
  return s;
}

std::pair<std::int64_t, std::int64_t> seqRange(const Job& job, int group) {
  const auto key = std::make_tuple(group, false);
  auto lo = std::partition_point(job.calls.begin(), job.calls.end(), [&](const Call& c) { return std::make_tuple(c.group, c.p2p) < key; });
  auto hi = std::partition_point(lo, job.calls.end(), [&](const Call& c) { return std::make_tuple(c.group, c.p2p) == key; });
  if (lo == hi) return {-1, -1};
  return {lo->seq, (hi - 1)->seq};
}

Result<CapturedCall> capturedCall(const Job& job, int group, std::uint32_t seq) {
  if (!holdsCapture(job)) return Error(say("the files hold no collviz capture: a call's grid reads a capture folder (collviz watch's)"));
  if (group < 0 || std::size_t(group) >= job.groups.size())
    return Error(say("no communicator number {0}: the capture has {1}", group, groupsList(job)));
  const Group& g = job.groups[std::size_t(group)];
  const auto [first, last] = callsOf(job, group, seq);
  if (!first) {
    const auto [lo, hi] = seqRange(job, group);
    if (lo < 0) return Error(say("{0} has no collective call", groupName(job, group)));
    return Error(say("{0} has no call {1}: it has calls {2}..{3}", groupName(job, group), std::int64_t(seq), lo, hi));
  }
  CapturedCall out;
  out.commName = g.desc;
  out.seq = seq;
  if (!parseHex(g.id, &out.commId)) out.commId = 0;
  std::vector<int> members = g.ranks;
  for (const Call* c = first; c != last; ++c)  // a member no communicator record listed (it should not happen): added
    if (std::find(members.begin(), members.end(), c->rank) == members.end()) members.push_back(c->rank);
  out.ranks.resize(members.size());
  for (std::size_t i = 0; i < members.size(); ++i) {
    CapturedRank& r = out.ranks[i];
    r.worldRank = members[i], r.commRank = int(i);
    if (const Rank* rk = job.rank(members[i])) r.host = rk->host;
  }
  bool shaped = false;
  for (const Call* c = first; c != last; ++c) {
    const Captured* x = job.captured(*c);
    if (!x) continue;
    const std::size_t i = std::size_t(std::find(members.begin(), members.end(), c->rank) - members.begin());
    CapturedRank& r = out.ranks[i];
    if (r.present) continue;  // a second record of one rank: the first kept
    if (!shaped) {
      shaped = true;
      out.func = funcNamed(job.str(c->name));
      out.nonblocking = x->flags & tap::kNonblocking;
      out.dtype = dtypeNamed(job.str(c->dtype));
      out.dtypeSize = x->dtypeSize;
      out.op = tap::ROp(x->redop);
      out.root = x->root;
    }
    r.present = true;
    r.returned = x->exited;
    r.tEnter = std::uint64_t(std::max<std::int64_t>(0, c->started));
    r.tExit = x->exited ? std::uint64_t(std::max<std::int64_t>(0, c->completed)) : 0;
    r.status = x->status;
    r.flags = x->flags;
    r.inElems = std::uint64_t(std::max<std::int64_t>(0, c->inElems));
    r.outElems = std::uint64_t(std::max<std::int64_t>(0, c->outElems));
    const std::string_view in = job.inputBytes(*c), o = job.outputBytes(*c);
    r.in.assign(in.begin(), in.end());
    r.out.assign(o.begin(), o.end());
  }
  if (!shaped) return Error(say("{0}'s call {1} comes from no capture file", groupName(job, group), std::int64_t(seq)));
  return out;
}

Result<CapturedCall> capturedCallById(const Job& job, std::uint64_t commId, std::uint32_t seq) {
  for (std::size_t g = 0; g < job.groups.size(); ++g)
    if (std::uint64_t id = 0; parseHex(job.groups[g].id, &id) && id == commId) return capturedCall(job, int(g), seq);
  char hex[24];
  std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(commId));
  return Error(say("no communicator {0}: the capture has {1}", std::string(hex), groupsList(job)));
}

Result<int> captureGroup(const Job& job, std::string_view comm) {
  while (!comm.empty() && comm.front() == ' ') comm.remove_prefix(1);
  while (!comm.empty() && comm.back() == ' ') comm.remove_suffix(1);
  std::vector<int> named;
  for (std::size_t g = 0; g < job.groups.size(); ++g)
    if (comm == job.groups[g].desc || comm == groupName(job, int(g))) named.push_back(int(g));
  if (named.size() == 1) return named[0];
  if (std::uint64_t id = 0; parseHex(comm, &id))
    for (std::size_t g = 0; g < job.groups.size(); ++g)
      if (std::uint64_t gid = 0; parseHex(job.groups[g].id, &gid) && gid == id) return int(g);
  if (named.size() > 1) {
    std::string ids;
    for (int g : named) ids += (ids.empty() ? "" : ", ") + job.groups[std::size_t(g)].id;
    return Error(say("{0} communicators are named {1}: give one's id ({2})", int(named.size()), std::string(comm), ids));
  }
  return Error(say("no communicator {0}: the capture has {1}", std::string(comm), groupsList(job)));
}

Result<CapturedCall> capturedCallAt(const Job& job, std::string_view at) {
  const std::size_t colon = at.rfind(':');
  const std::string_view seqText = colon == std::string_view::npos ? std::string_view() : at.substr(colon + 1);
  if (colon == std::string_view::npos || seqText.empty() || seqText.size() > 9 || seqText.find_first_not_of("0123456789") != std::string_view::npos)
    return Error(say("--call {0}: give COMM:SEQ, a communicator as collviz job lists it and a call's number (MPI_COMM_WORLD:0, 0x1:12)",
                     std::string(at)));
  auto g = captureGroup(job, at.substr(0, colon));
  if (!g) return g.error();
  return capturedCall(job, *g, std::uint32_t(std::strtoul(std::string(seqText).c_str(), nullptr, 10)));
}

}  // namespace collviz::job
