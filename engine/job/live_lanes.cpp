#include "engine/job/live_lanes.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <utility>

#include "engine/job/job.h"

namespace collviz::job {

namespace {

constexpr int kPollMs = 50;
constexpr std::uint64_t kWakeEveryNs = 16'000'000;  // at most ~60 wake-ups a second

std::uint64_t clockNs() {
  timespec t{};
  ::clock_gettime(CLOCK_REALTIME, &t);
  return std::uint64_t(t.tv_sec) * 1000000000ull + std::uint64_t(t.tv_nsec);
}

std::string laneName(const LiveComm* c, std::uint64_t id) {
  if (!c) return "comm " + std::to_string(id);
  if (!c->name.empty()) return c->name;
  if (id == tap::kWorldId) return "MPI_COMM_WORLD";
  if (c->kind == std::uint8_t(tap::CommKind::split))
    return "split(color=" + std::to_string(c->color) + ")";
  // Another constructor's: its kind and the agreed id, as collviz job names it (hex).
  char hex[24];
  std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(id));
  switch (static_cast<tap::CommKind>(c->kind)) {
    case tap::CommKind::dup: return std::string("dup (") + hex + ")";
    case tap::CommKind::create: case tap::CommKind::create_group: return std::string("create (") + hex + ")";
    case tap::CommKind::cart_create: case tap::CommKind::cart_sub: return std::string("cart (") + hex + ")";
    case tap::CommKind::split_type: return std::string("split_type (") + hex + ")";
    default: return std::string("comm ") + hex;
  }
}

}  // namespace

LiveLanes::LiveLanes(std::string dir, double hangAfterS, std::function<void()> wake)
    : dir_(std::move(dir)), hangAfterS_(hangAfterS), wake_(std::move(wake)),
      live_(std::make_unique<LiveCapture>(dir_, false)), startNs_(clockNs()) {
  thread_ = std::thread([this] { run(); });
}

LiveLanes::~LiveLanes() {
  stop_ = true;
  {
    std::lock_guard<std::mutex> l(sleepM_);
  }
  sleep_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void LiveLanes::view(const std::function<void(const LiveData&)>& f) const {
  std::lock_guard<std::recursive_mutex> l(m_);
  f(d_);
}

void LiveLanes::finish() { sleep_.notify_all(); }

void LiveLanes::run() {
  while (!stop_) {
    pollOnce();
    std::unique_lock<std::mutex> l(sleepM_);
    sleep_.wait_for(l, std::chrono::milliseconds(kPollMs), [this] { return stop_.load(); });
  }
}

LiveLane& LiveLanes::lane(std::uint64_t comm) {
  auto it = laneOf_.find(comm);
  if (it != laneOf_.end()) return d_.lanes[it->second];
  laneOf_[comm] = d_.lanes.size();
  LiveLane l;
  l.id = comm;
  // Its members as its files declared them (read before its calls).
  const LiveComm* c = live_->comm(comm);
  l.name = laneName(c, comm);
  if (c) l.ranks = c->ranks;
  d_.lanes.push_back(std::move(l));
  return d_.lanes.back();
}

// A call entered (first time seen) or returned: its tile in the ring (a
// call older than the ring is only counted), its member file's index.
void LiveLanes::apply(const std::vector<LiveCall>& calls, bool returned) {
  auto wasInFlight = [this](const LiveCall& c) { return inFlight_.count({c.file, c.offset}) != 0; };
  for (const LiveCall& c : calls) {
    LiveLane& ln = lane(c.comm);
    if (c.file >= 0 && c.seq % kIndexEvery == 0) {
      std::vector<std::uint64_t>& ix = ln.index[c.file];
      if (ix.size() == c.seq / kIndexEvery) ix.push_back(c.offset);
    }
    if (c.rank >= 0 && c.file >= 0) ln.memberFile[c.rank] = c.file;
    ln.calls = std::max<std::uint64_t>(ln.calls, std::uint64_t(c.seq) + 1);
    // The ring holds seqs [front, back]; a newer seq extends it.
    if (ln.ring.empty() || c.seq > ln.ring.back().seq) {
      std::uint32_t next = ln.ring.empty() ? (c.seq >= kLaneRing ? std::uint32_t(c.seq - kLaneRing + 1) : 0) : ln.ring.back().seq + 1;
      if (c.seq - next >= kLaneRing) next = std::uint32_t(c.seq - kLaneRing + 1), ln.ring.clear();
      for (; next <= c.seq; ++next) {
        LaneTile t;
        t.seq = next;
        ln.ring.push_back(t);
        if (ln.ring.size() > kLaneRing) ln.ring.pop_front();
      }
    }
    if (ln.ring.empty() || c.seq < ln.ring.front().seq) continue;  // older than the ring: counted only
    LaneTile& t = ln.ring[c.seq - ln.ring.front().seq];
    if (t.func == tap::Func::none) {
      t.func = c.func, t.flags = c.flags, t.dtype = c.dtype, t.op = c.op, t.root = c.root, t.count = c.inElems;
      t.firstEnter = c.tEnter;
    }
    if (!returned || !wasInFlight(c)) ++t.entered;
    if (returned) ++t.returned;
    if (c.tEnter < t.firstEnter || t.firstEnter == 0) t.firstEnter = c.tEnter;
    if (c.tEnter >= t.lastEnter) t.lastEnter = c.tEnter, t.lastRank = c.rank;
    // Every member has entered: the straggler tally counts who came last, once.
    if (!returned && !ln.ranks.empty() && t.entered == ln.ranks.size()) ++ln.lastCount[t.lastRank];
    if (returned && !wasInFlight(c) && !ln.ranks.empty() && t.entered == ln.ranks.size()) ++ln.lastCount[t.lastRank];
  }
}

void LiveLanes::pollOnce() {
  std::vector<LiveCall> returned, entered;
  // The calls in flight before this poll were counted as entered then.
  inFlight_.clear();
  for (const LiveCall& c : live_->inFlight()) inFlight_.insert({c.file, c.offset});
  live_->poll(&returned, &entered);
  const std::uint64_t now = clockNs();
  const bool changed = !returned.empty() || !entered.empty();
  {
    std::lock_guard<std::recursive_mutex> l(m_);
    apply(entered, false);
    apply(returned, true);
    // Members and hosts, once the files have said them.
    for (LiveLane& ln : d_.lanes) {
      if (ln.name.empty() || ln.ranks.empty()) {
        const LiveComm* c = live_->comm(ln.id);
        ln.name = laneName(c, ln.id);
        if (c) ln.ranks = c->ranks;
      }
      if (ln.hosts.size() != ln.ranks.size()) ln.hosts.assign(ln.ranks.size(), "");
      for (std::size_t k = 0; k < ln.ranks.size(); ++k)
        if (ln.hosts[k].empty())
          for (const LiveFile& f : live_->files())
            if (f.rank == ln.ranks[k]) ln.hosts[k] = f.host;
    }
    // Where each rank is.
    for (const LiveFile& f : live_->files()) {
      if (f.rank < 0 || f.rank > 1 << 20) continue;
      if (std::size_t(f.rank) >= d_.ranks.size()) d_.ranks.resize(std::size_t(f.rank) + 1);
      LiveRank& r = d_.ranks[std::size_t(f.rank)];
      r.rank = f.rank, r.host = f.host, r.finalized = f.finalized, r.nccl = f.nccl;
      r.inCall = false;
    }
    for (const LiveCall& c : returned)
      if (c.rank >= 0 && std::size_t(c.rank) < d_.ranks.size())
        d_.ranks[std::size_t(c.rank)].lastExitNs = std::max(d_.ranks[std::size_t(c.rank)].lastExitNs, c.tExit);
    for (const LiveCall& c : live_->inFlight()) {
      if (c.rank < 0 || std::size_t(c.rank) >= d_.ranks.size()) continue;
      LiveRank& r = d_.ranks[std::size_t(c.rank)];
      if (r.inCall && r.sinceNs <= c.tEnter) continue;  // the oldest call it is in
      r.inCall = true, r.call = c.name(), r.comm = c.comm, r.seq = c.seq, r.sinceNs = c.tEnter;
    }
    // Outside MPI: since its last return.
    for (LiveRank& r : d_.ranks)
      if (!r.inCall) r.call.clear(), r.sinceNs = r.lastExitNs;
    d_.entered = live_->entered();
    d_.returned = live_->returned();
    d_.files = live_->files().size();
    for (std::size_t i = d_.filePaths.size(); i < live_->files().size(); ++i) d_.filePaths.push_back(live_->files()[i].path);
    d_.fileHosts.resize(d_.filePaths.size());
    for (std::size_t i = 0; i < d_.fileHosts.size(); ++i) d_.fileHosts[i] = live_->files()[i].host;
    d_.nowNs = now;
    ++d_.polls;
  }
  judge(now);
  if (wake_ && (changed || hangSaid_) && now - lastWakeNs_ >= kWakeEveryNs) {
    lastWakeNs_ = now;
    wake_();
  }
}

// A hang as `collviz watch` judges it: no call returned for hangAfter
// seconds (from the entry of the oldest call in flight, not before), while
// a rank waits. The verdict is job::analyse's over the folder, at now.
void LiveLanes::judge(std::uint64_t now) {
  if (hangSaid_ && live_->lastExitNs() != saidAtExit_) {
    hangSaid_ = false;
    std::lock_guard<std::recursive_mutex> l(m_);
    d_.verdict = {};
  }
  const std::uint64_t quietFrom = std::max({live_->lastExitNs(), live_->oldestInFlightNs(), startNs_});
  const auto hangNs = std::uint64_t(hangAfterS_ * 1e9);
  if (hangSaid_ || live_->inFlightCount() == 0 || now <= quietFrom || now - quietFrom < hangNs) return;
  hangSaid_ = true;
  saidAtExit_ = live_->lastExitNs();
  LiveVerdict v;
  v.present = true;
  v.atNs = now;
  v.quietS = double(now - quietFrom) / 1e9;
  auto r = job::read({dir_});
  if (!r) {
    v.text = Said(r.error().text);
  } else {
    const Analysis a = analyse(*r, std::int64_t(now));
    v.text = a.verdict;
    v.ranks = a.verdictRanks;
    for (const Finding& f : a.findings) {
      if (f.kind == FindingKind::deadlock) v.cycles.push_back(f.ranks);
      for (int w : f.waiting)
        for (int m : f.ranks)
          if (w != m) v.edges.emplace_back(w, m);
    }
  }
  std::lock_guard<std::recursive_mutex> l(m_);
  d_.verdict = std::move(v);
}

}  // namespace collviz::job
