// PyTorch's Flight Recorder dump (one rank's ring buffer of collectives) read
// into a Job: as torch/csrc/distributed/c10d/FlightRecorderDetail.hpp writes
// it, format 2.x, pickled (dump_dict: pg_status' numbers as numbers, None
// for no time) or JSON (dump_json: pg_status' numbers as strings, 0 for no
// time, a group as a list), with `nccl_version` (up to 2.9) or
// `comm_lib_version` (2.10 on). Which rank a dump is: the one rank every
// group of its pg_config holds, else the number its file name ends in
// (`_dump_5`, `host1_nccl_trace_rank_5`); a host before the name's prefix is
// the rank's host.
#include <algorithm>
#include <charconv>
#include <limits>

#include "engine/job/plain.h"
#include "engine/job/readers.h"

namespace collviz::job {
namespace {

enum Field : std::int8_t {
  f_none = -1, f_record_id, f_pg_id, f_process_group, f_collective_seq_id, f_p2p_seq_id, f_op_id, f_profiling_name,
  f_time_created_ns, f_duration_ms, f_input_sizes, f_input_dtypes, f_output_sizes, f_output_dtypes, f_state,
  f_time_discovered_started_ns, f_time_discovered_completed_ns, f_is_p2p,
};
constexpr std::string_view kFields[] = {
    "record_id", "pg_id", "process_group", "collective_seq_id", "p2p_seq_id", "op_id", "profiling_name",
    "time_created_ns", "duration_ms", "input_sizes", "input_dtypes", "output_sizes", "output_dtypes", "state",
    "time_discovered_started_ns", "time_discovered_completed_ns", "is_p2p",
};

std::int64_t mulSat(std::int64_t a, std::int64_t b) {
  if (a < 0 || b < 0) return -1;
  if (b != 0 && a > std::numeric_limits<std::int64_t>::max() / b) return std::numeric_limits<std::int64_t>::max();
  return a * b;
}

// Ranks from pg_config's "ranks": a string "[0, 1, 2]" (as torch writes it)
// or a list of numbers.
bool parseRanks(const Plain& p, std::uint32_t v, std::vector<int>& out) {
  out.clear();
  if (p.isSeq(v)) {
    for (std::uint32_t x : p.children(v)) {
      std::int64_t r;
      if (!p.integer(x, r) || r < 0 || r > kMaxRank || out.size() >= kMaxJobRanks) return false;
      out.push_back(int(r));
    }
    return true;
  }
  const std::string_view s = p.str(v);
  if (s.size() < 2 || s.front() != '[' || s.back() != ']') return false;
  const char* c = s.data() + 1;
  const char* end = s.data() + s.size() - 1;
  while (c < end) {
    while (c < end && (*c == ' ' || *c == ',')) ++c;
    if (c == end) break;
    int r = 0;
    auto [next, ec] = std::from_chars(c, end, r);
    if (ec != std::errc() || r < 0 || r > kMaxRank || out.size() >= kMaxJobRanks) return false;
    out.push_back(r);
    c = next;
  }
  return true;
}

class Converter {
 public:
  Converter(const Plain& p, const std::string& path, Format f) : p_(p), job_(oneSource(path, f, 0)), b_(job_) {
    fieldOf_.assign(p.strs.size(), -2);
  }

  Result<Job> run() {
    if (!p_.isDict(p_.root)) return Error(say("not a Flight Recorder dump: its top is not a dict"));
    std::uint32_t v;
    Source& src = job_.sources[0];
    if (p_.find(p_.root, "version", v)) src.version = clean(p_.str(v), 32);
    if (p_.find(p_.root, "comm_lib_version", v) || p_.find(p_.root, "nccl_version", v)) src.library = clean(p_.str(v), 64);
    std::uint32_t entries = 0, config = 0;
    const bool hasEntries = p_.find(p_.root, "entries", entries);
    const bool hasConfig = p_.find(p_.root, "pg_config", config);
    if (src.version.empty() || (!hasEntries && !hasConfig))
      return Error(say("not a Flight Recorder dump: no \"version\" with \"entries\" or \"pg_config\""));
    if (src.version.rfind("2.", 0) != 0)
      Builder::note(src.notes, say("format version {0}: read as 2.x (PyTorch 2.4 to 2.10 write 2.x); a field of another version may be missed", src.version));
    if (hasConfig) readConfig(config);
    if (!whoAmI()) return Error(say("which rank this dump is of is not known: its groups do not tell one rank, and its file name ends in no number"));
    if (hasEntries) {
      if (!p_.isSeq(entries)) return Error(say("not a Flight Recorder dump: \"entries\" is not a list"));
      job_.calls.reserve(std::min(p_.children(entries).size(), kMaxCalls));
      for (std::uint32_t e : p_.children(entries)) entry(e);
    }
    if (p_.find(p_.root, "pg_status", v)) readStatus(v);
    src.records = std::int64_t(job_.calls.size());
    b_.finish(false);
    return std::move(job_);
  }

 private:
  void readConfig(std::uint32_t config) {
    if (!p_.isDict(config)) return Builder::note(job_.sources[0].notes, say("\"pg_config\" is not a dict: the groups' ranks are not known"));
    const auto& kv = p_.children(config);
    std::vector<int> ranks;
    for (std::size_t i = 0; i + 1 < kv.size(); i += 2) {
      const std::uint32_t g = kv[i + 1];
      std::uint32_t name, desc, rv;
      const std::string id = clean(p_.find(g, "name", name) ? p_.str(name) : p_.str(kv[i]), 128);
      Group& grp = job_.groups[std::size_t(b_.group(id))];
      if (p_.find(g, "desc", desc)) grp.desc = clean(p_.str(desc), 128);
      if (p_.find(g, "ranks", rv) && parseRanks(p_, rv, ranks)) {
        grp.ranks = ranks;
        grp.size = int(ranks.size());
        if (grp.desc == "default_pg" || (worldSize_ < 0 && id == "0")) worldSize_ = grp.size;
      } else {
        Builder::note(job_.sources[0].notes, say("group {0}: its ranks are not a list of rank numbers: not known", id));
      }
    }
  }

  // The rank: the one all its groups hold, else the file name's number.
  bool whoAmI() {
    Source& src = job_.sources[0];
    std::vector<int> common;
    bool first = true;
    for (const Group& g : job_.groups) {
      if (g.ranks.empty()) continue;
      std::vector<int> sorted = g.ranks;
      std::sort(sorted.begin(), sorted.end());
      if (first) common = sorted, first = false;
      else {
        std::vector<int> both;
        std::set_intersection(common.begin(), common.end(), sorted.begin(), sorted.end(), std::back_inserter(both));
        common.swap(both);
      }
    }
    int named = -1;
    std::string host;
    const bool hasName = rankFromName(src.path, named, host);
    src.host = host;
    if (common.size() == 1) {
      rank_ = common[0];
      if (hasName && named != rank_)
        Builder::note(src.notes, say("its file name says rank {0}, its groups say rank {1}: rank {1}", named, rank_));
    } else if (hasName) {
      rank_ = named;
      if (!first && std::find(common.begin(), common.end(), named) == common.end())
        Builder::note(src.notes, say("its file name says rank {0}, but not every group of its pg_config holds rank {0}", named));
    } else {
      return false;
    }
    src.rank = rank_;
    Rank& r = b_.rank(rank_);
    r.dump = 0;
    r.worldSize = worldSize_;
    if (!host.empty()) r.host = host;
    for (Group& g : job_.groups)
      if (!g.ranks.empty() && std::find(g.ranks.begin(), g.ranks.end(), rank_) == g.ranks.end())
        Builder::note(src.notes, say("group {0} of its pg_config does not hold rank {1}", g.id, rank_));
    return true;
  }

  std::int8_t field(std::uint32_t key) {
    if (!p_.isStr(key)) return f_none;
    std::int8_t& f = fieldOf_[p_[key].ref];
    if (f == -2) {
      f = f_none;
      const std::string_view k = p_.str(key);
      for (std::size_t i = 0; i < std::size(kFields); ++i)
        if (kFields[i] == k) f = std::int8_t(i);
    }
    return f;
  }

  Name internStr(std::uint32_t s, std::size_t max) {  // a string value, interned once per distinct string
    if (!p_.isStr(s)) return 0;
    const std::uint32_t ref = p_[s].ref;
    auto it = strName_.find(ref);
    if (it != strName_.end()) return it->second;
    const Name n = b_.intern(clean(p_.str(s), max));
    if (strName_.size() < 65536) strName_.emplace(ref, n);
    return n;
  }

  // "4096x1x5120" per tensor, ";" between tensors (the first 4), and the elements of all.
  Name shape(std::uint32_t sizes, std::int64_t& elems) {
    elems = -1;
    if (!p_.isSeq(sizes)) return 0;
    std::string s;
    std::int64_t total = 0;
    std::size_t t = 0;
    for (std::uint32_t tensor : p_.children(sizes)) {
      if (!p_.isSeq(tensor)) return 0;
      std::int64_t n = 1;
      if (t < 4) s += t ? ";" : "";
      bool firstDim = true;
      for (std::uint32_t d : p_.children(tensor)) {
        std::int64_t x;
        if (!p_.integer(d, x) || x < 0) return 0;
        n = mulSat(n, x);
        if (t < 4) s += (firstDim ? "" : "x") + std::to_string(x), firstDim = false;
      }
      total = n > std::numeric_limits<std::int64_t>::max() - total ? std::numeric_limits<std::int64_t>::max() : total + n;
      ++t;
    }
    if (t > 4) s += ";+" + std::to_string(t - 4);
    elems = total;
    return b_.intern(s);
  }

  void entry(std::uint32_t e) {
    Source& src = job_.sources[0];
    if (!p_.isDict(e)) return Builder::note(src.notes, say("an entry that is not a dict: skipped"));
    Call c;
    c.rank = rank_;
    c.source = 0;
    std::int64_t coll = -1, p2p = -1, x;
    std::uint32_t pg = 0, name = 0, inDt = 0, outDt = 0;
    bool hasPg = false;
    const auto& kv = p_.children(e);
    for (std::size_t i = 0; i + 1 < kv.size(); i += 2) {
      const std::uint32_t v = kv[i + 1];
      switch (field(kv[i])) {
        case f_record_id: if (p_.integer(v, x)) c.record = x; break;
        case f_pg_id: if (p_.integer(v, x)) localPg_ = x; break;
        case f_process_group: pg = v, hasPg = true; break;
        case f_collective_seq_id: if (p_.integer(v, x)) coll = x; break;
        case f_p2p_seq_id: if (p_.integer(v, x)) p2p = x; break;
        case f_profiling_name: name = v; break;
        case f_time_created_ns: if (p_.integer(v, x)) c.created = x; break;
        case f_duration_ms: { double d; if (p_.real(v, d)) c.durationMs = float(d); break; }
        case f_input_sizes: c.inShape = shape(v, c.inElems); break;
        case f_output_sizes: c.outShape = shape(v, c.outElems); break;
        case f_input_dtypes: inDt = v; break;
        case f_output_dtypes: outDt = v; break;
        case f_state: {
          const std::string_view s = p_.str(v);
          c.state = s == "completed" ? State::completed : s == "started" ? State::started : s == "scheduled" ? State::scheduled : State::unknown;
          if (c.state == State::unknown) Builder::note(src.notes, say("an entry's state {0} is none of scheduled, started, completed", clean(s, 32)));
          break;
        }
        case f_time_discovered_started_ns: if (p_.integer(v, x)) c.started = x; break;
        case f_time_discovered_completed_ns: if (p_.integer(v, x)) c.completed = x; break;
        case f_is_p2p: c.p2p = p_[v].kind == Plain::Kind::boolean && p_[v].i; break;
        default: break;
      }
    }
    // The group: its name (the same on every rank), from the entry's ("name", "desc").
    std::string gid;
    if (hasPg && p_.isSeq(pg) && !p_.children(pg).empty()) gid = clean(p_.str(p_.children(pg)[0]), 128);
    if (gid.empty()) return Builder::note(src.notes, say("an entry without its process group: skipped"));
    c.group = b_.group(gid);
    Group& g = job_.groups[std::size_t(c.group)];
    if (g.desc.empty() && p_.children(pg).size() > 1) g.desc = clean(p_.str(p_.children(pg)[1]), 128);
    if (localPg_ >= 0) localOf_.emplace(localPg_, c.group);
    localPg_ = -1;
    c.seq = c.p2p ? p2p : coll;
    c.name = internStr(name, 128);
    c.op = opOf(name);
    const std::uint32_t dt = !p_.children(inDt).empty() ? p_.children(inDt)[0] : !p_.children(outDt).empty() ? p_.children(outDt)[0] : 0;
    c.dtype = dt ? internStr(dt, 32) : 0;
    if (!p_.children(outDt).empty()) c.outDtype = internStr(p_.children(outDt)[0], 32);
    if (c.p2p) c.peer = peerOf(p_.str(name), g);
    if (job_.calls.size() >= kMaxCalls) return Builder::note(src.notes, say("more than {0} entries: the rest not kept", std::int64_t(kMaxCalls)));
    job_.calls.push_back(c);
  }

  Name opOf(std::uint32_t name) {
    if (!p_.isStr(name)) return 0;
    auto it = opName_.find(p_[name].ref);
    if (it != opName_.end()) return it->second;
    const Name n = b_.intern(plainOp(p_.str(name)));
    if (opName_.size() < 65536) opName_.emplace(p_[name].ref, n);
    return n;
  }

  // "nccl:send 0->3" / "nccl:recv 0<-3": the peer's rank in the group, as a global rank.
  static int peerOf(std::string_view name, const Group& g) {
    std::size_t a = name.find("->");
    if (a == std::string_view::npos) a = name.find("<-");
    if (a == std::string_view::npos) return -1;
    int peer = -1;
    auto [end, ec] = std::from_chars(name.data() + a + 2, name.data() + name.size(), peer);
    (void)end;
    if (ec != std::errc() || peer < 0) return -1;
    return std::size_t(peer) < g.ranks.size() ? g.ranks[std::size_t(peer)] : -1;
  }

  void readStatus(std::uint32_t st) {
    const auto& kv = p_.children(st);
    for (std::size_t i = 0; i + 1 < kv.size(); i += 2) {
      PgStatus s;
      s.rank = rank_;
      if (!p_.integer(kv[i], s.localId)) continue;
      std::uint32_t v;
      std::int64_t x;
      if (p_.find(kv[i + 1], "last_enqueued_collective", v) && p_.integer(v, x)) s.lastEnqueued = x;
      if (p_.find(kv[i + 1], "last_started_collective", v) && p_.integer(v, x)) s.lastStarted = x;
      if (p_.find(kv[i + 1], "last_completed_collective", v) && p_.integer(v, x)) s.lastCompleted = x;
      auto it = localOf_.find(s.localId);
      s.group = it == localOf_.end() ? -1 : it->second;
      job_.status.push_back(s);
    }
  }

  const Plain& p_;
  Job job_;
  Builder b_;
  int rank_ = -1, worldSize_ = -1;
  std::int64_t localPg_ = -1;
  std::vector<std::int8_t> fieldOf_;
  std::unordered_map<std::uint32_t, Name> strName_, opName_;
  std::unordered_map<std::int64_t, int> localOf_;
};

}  // namespace

Result<Job> readFlightRecorder(std::string_view bytes, const std::string& path, Format f) {
  thread_local Plain plain;  // its memory reused from file to file
  Status st = f == Format::flight_recorder_json ? readJsonPlain(bytes, plain) : readPickle(bytes, plain);
  Result<Job> job = st ? Converter(plain, path, f).run() : Result<Job>(st.error());
  // A large file's room not kept, refused or not (what the next file of
  // this thread may take is counted without it).
  if (plain.nodes.capacity() > (std::size_t(8) << 20) || plain.used > (std::size_t(64) << 20)) plain = Plain{};
  if (job) job->sources[0].bytes = std::int64_t(bytes.size());
  return job;
}

}  // namespace collviz::job
