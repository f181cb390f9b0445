// NCCL profiler-plugin traces read into a Job.
//  - The example plugin's Chrome trace (plugins/profiler/example/print_event.cc):
//    "[" then one event a line, "{}]" at the end; read leniently, as the
//    plugin writes it: older plugins leave values unquoted (`ncclFloat32`,
//    `0x262ca50`), a trace cut short has no "]". A collective is a "COLL"
//    begin event (SeqNum, CommHash, Rank, Count, Datatype, Algorithm,
//    Protocol, nChannels) and its end event of the same id; "P2P" the same
//    with Peer. Their end is when NCCL enqueued them, not when they were
//    done (plugin.cc says so): no time, no bandwidth from them.
//  - A plugin's JSON lines (profiler API v5 events, as the sample's plugin
//    writes them): "ncclProfileColl" events (commId, rank, details: func,
//    seq, algo, proto, channels, count, dtype), their kernel channels'
//    "ncclProfileKernelCh" events (the GPU time: first start to last stop),
//    "ProfilerInit" lifecycle records (nranks). A collective's own event
//    ends at its enqueue too: its time is its kernel channels' span.
// Bus bandwidth: bytes / time times nccl-tests' factor for the op.
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "engine/job/plain.h"
#include "engine/job/readers.h"

namespace collviz::job {
namespace {

using nlohmann::json;

// Quotes the bare words an older plugin leaves unquoted, so the line is JSON.
std::string lenient(std::string_view l) {
  std::string out;
  out.reserve(l.size() + 16);
  bool in = false;
  char prev = 0;  // the last non-space character outside strings
  for (std::size_t i = 0; i < l.size(); ++i) {
    const char c = l[i];
    if (in) {
      out += c;
      if (c == '\\' && i + 1 < l.size()) out += l[++i];
      else if (c == '"') in = false, prev = '"';
      continue;
    }
    if (c == '"') {
      in = true, out += c;
      continue;
    }
    const bool word = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' || c == '+';
    if (word && (prev == ':' || prev == '[' || prev == ',')) {
      std::size_t j = i;
      while (j < l.size() && (std::isalnum(static_cast<unsigned char>(l[j])) || l[j] == '_' || l[j] == '.' || l[j] == '-' || l[j] == '+')) ++j;
      const std::string tok(l.substr(i, j - i));
      const bool literal = tok == "true" || tok == "false" || tok == "null" ||
                           !json::parse(tok, nullptr, false).is_discarded();
      out += literal ? tok : "\"" + tok + "\"";
      prev = 'w';
      i = j - 1;
      continue;
    }
    if (!std::isspace(static_cast<unsigned char>(c))) prev = c;
    out += c;
  }
  return out;
}

std::string commOf(const json& v) {  // a decimal number (%lu) or a string
  if (v.is_number_unsigned()) return hashId(std::to_string(v.get<std::uint64_t>()), true);
  if (v.is_number_integer()) return hashId(std::to_string(v.get<std::int64_t>()), true);
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    return hashId(s, s.rfind("0x", 0) != 0);
  }
  return "?";
}

class Reader {
 public:
  Reader(const std::string& path, Format f) : job_(oneSource(path, f, 0)), b_(job_) {}

  Result<Job> chrome(std::string_view bytes) {
    std::map<std::pair<std::string, std::int64_t>, std::size_t> open;  // (cat, id) -> its call
    for (const std::string& raw : splitLines(bytes)) {
      std::string_view l = raw;
      while (!l.empty() && std::isspace(static_cast<unsigned char>(l.back()))) l.remove_suffix(1);
      while (!l.empty() && std::isspace(static_cast<unsigned char>(l.front()))) l.remove_prefix(1);
      if (!l.empty() && l.back() == ',') l.remove_suffix(1);
      if (!l.empty() && l.front() == '[') l.remove_prefix(1);
      if (!l.empty() && l.back() == ']') l.remove_suffix(1);
      if (l.empty() || l == "{}") continue;
      if (l.size() > (std::size_t(1) << 20) && !jsonDomFits(l, plainBudget(bytes.size()))) {  // an event is a few hundred bytes
        Builder::note(src().notes, say("a line whose values would take more than {0} MiB of memory: skipped", std::int64_t(plainBudget(bytes.size()) >> 20)));
        continue;
      }
      const json e = json::parse(lenient(l), nullptr, false);
      if (e.is_discarded() || !e.is_object()) {
        Builder::note(src().notes, say("a line that is not an event, even read leniently: skipped"));
        continue;
      }
      try {
        const std::string cat = e.value("cat", std::string()), ph = e.value("ph", std::string());
        if (cat != "COLL" && cat != "P2P") continue;
        const std::pair<std::string, std::int64_t> key{cat, e.value("id", std::int64_t(-1))};
        const double ts = e.value("ts", 0.0);
        if (ph == "e") {
          auto it = open.find(key);
          if (it != open.end() && ts > 0) {
            // Its end is when NCCL enqueued it (the plugin's own words), not when it
            // was done: no time is read from it.
            job_.calls[it->second].state = State::completed;
            open.erase(it);
          }
          continue;
        }
        if (ph != "b") continue;
        const json a = e.value("args", json::object());
        Call c;
        c.rank = a.value("Rank", -1);
        if (c.rank < 0 || c.rank > kMaxRank) continue;
        c.p2p = cat == "P2P";
        c.group = group(commOf(a.contains("CommHash") ? a["CommHash"] : json()));
        c.seq = c.p2p ? -1 : a.value("SeqNum", std::int64_t(-1));
        c.peer = a.value("Peer", -1);
        what(c, e.value("name", std::string("?")), a.value("Datatype", std::string()), a.value("Count", std::int64_t(-1)),
             a.value("Algorithm", std::string()), a.value("Protocol", std::string()), a.value("nChannels", -1));
        c.created = std::int64_t(ts * 1000);
        c.state = State::started;
        b_.rank(c.rank).pid = e.value("pid", std::int64_t(-1));
        open[key] = add(c);
      } catch (const json::exception&) {
        Builder::note(src().notes, say("an event with a field of the wrong type: skipped"));
      }
    }
    return finish();
  }

  Result<Job> lines(std::string_view bytes) {
    std::map<std::string, std::size_t> collAt;                  // eventAddr -> call
    std::map<std::string, std::pair<double, double>> kernels;   // parent eventAddr -> first start, last stop
    std::map<std::string, int> nranks;                          // comm -> nranks (ProfilerInit)
    for (const std::string& l : splitLines(bytes)) {
      if (l.find_first_not_of(" \t") == std::string::npos) continue;
      if (l.size() > (std::size_t(1) << 20) && !jsonDomFits(l, plainBudget(bytes.size()))) {
        Builder::note(src().notes, say("a line whose values would take more than {0} MiB of memory: skipped", std::int64_t(plainBudget(bytes.size()) >> 20)));
        continue;
      }
      const json e = json::parse(l, nullptr, false);
      if (e.is_discarded() || !e.is_object()) {
        Builder::note(src().notes, say("a line that is not an event: skipped"));
        continue;
      }
      try {
        const std::string type = e.value("type", std::string());
        const json d = e.value("details", json::object());
        if (type == "ProfilerLifecycle" && e.value("func", std::string()) == "ProfilerInit") {
          nranks[commOf(e.contains("commId") ? e["commId"] : json())] = d.value("nranks", -1);
          const int r = e.value("rank", -1);
          if (r >= 0 && r <= kMaxRank) b_.rank(r).pid = e.value("start", json::object()).value("pid", std::int64_t(-1));
          continue;
        }
        if (type == "ncclProfileKernelCh") {
          auto& k = kernels.try_emplace(e.value("parentObj", std::string()), 1e300, -1e300).first->second;
          k.first = std::min(k.first, e.value("start", json::object()).value("ts", 1e300));
          k.second = std::max(k.second, e.value("stop", json::object()).value("ts", -1e300));
          continue;
        }
        if (type != "ncclProfileColl" && type != "ncclProfileP2p") continue;
        Call c;
        c.rank = e.value("rank", -1);
        if (c.rank < 0 || c.rank > kMaxRank) continue;
        c.p2p = type == "ncclProfileP2p";
        c.group = group(commOf(e.contains("commId") ? e["commId"] : json()));
        c.seq = d.value("seq", std::int64_t(-1));
        c.peer = d.value("peer", -1);
        what(c, d.value("func", std::string("?")), d.value("dtype", std::string()), d.value("count", std::int64_t(-1)),
             d.value("algo", std::string()), d.value("proto", std::string()), d.value("channels", -1));
        const double start = e.value("start", json::object()).value("ts", 0.0), stop = e.value("stop", json::object()).value("ts", 0.0);
        c.created = std::int64_t(start * 1000);
        c.completed = stop > 0 ? std::int64_t(stop * 1000) : 0;
        c.state = stop > 0 ? State::completed : State::started;
        collAt[e.value("eventAddr", std::string())] = add(c);
      } catch (const json::exception&) {
        Builder::note(src().notes, say("an event with a field of the wrong type: skipped"));
      }
    }
    for (const auto& [addr, at] : collAt) {  // the GPU's time: the kernel channels' span
      auto k = kernels.find(addr);
      if (k != kernels.end() && k->second.second > k->second.first) job_.calls[at].durationMs = float((k->second.second - k->second.first) / 1000.0);
    }
    for (Group& g : job_.groups)
      if (auto n = nranks.find(g.id); n != nranks.end()) g.size = n->second;
    return finish();
  }

 private:
  Source& src() { return job_.sources[0]; }
  // What both formats say of a call: its op, dtype, count, algorithm, protocol, channels.
  void what(Call& c, const std::string& func, const std::string& dt, std::int64_t count, const std::string& algo,
            const std::string& proto, int channels) {
    c.name = b_.intern(clean(func, 64));
    c.op = b_.intern(plainOp(func));
    c.dtype = b_.intern(clean(dt, 32));
    c.inElems = c.outElems = count;
    c.bytes = count >= 0 ? count * ncclDtypeBytes(dt) : -1;
    c.algo = b_.intern(clean(algo, 32));
    c.proto = b_.intern(clean(proto, 32));
    c.channels = std::int16_t(std::clamp(channels, -1, 4096));
  }
  int group(const std::string& id) {
    const int g = b_.group(id);
    job_.groups[std::size_t(g)].commHash = id;
    return g;
  }
  std::size_t add(Call c) {
    c.source = 0;
    job_.calls.push_back(c);
    ++src().records;
    Group& g = job_.groups[std::size_t(c.group)];
    if (std::find(g.ranks.begin(), g.ranks.end(), c.rank) == g.ranks.end()) g.ranks.push_back(c.rank);
    return job_.calls.size() - 1;
  }
  Result<Job> finish() {
    if (src().records == 0) return Error(say("not an NCCL profiler trace: no collective or point-to-point event read"));
    for (Group& g : job_.groups) {
      std::sort(g.ranks.begin(), g.ranks.end());
      if (g.size < 0) g.size = int(g.ranks.size());
    }
    for (Call& c : job_.calls) {  // bandwidths from the bytes and the time
      if (c.bytes <= 0 || c.durationMs <= 0) continue;
      c.algbw = float(double(c.bytes) / (double(c.durationMs) * 1e6));
      const double f = busFactor(job_.str(c.op), job_.groups[std::size_t(c.group)].size);
      if (f > 0) c.busbw = float(c.algbw * f);
    }
    b_.finish(false);
    return std::move(job_);
  }

  Job job_;
  Builder b_;
};

}  // namespace

Result<Job> readProfiler(std::string_view bytes, const std::string& path, Format f) {
  Reader r(path, f);
  auto job = f == Format::nccl_profiler_trace ? r.chrome(bytes) : r.lines(bytes);
  if (job) job->sources[0].bytes = std::int64_t(bytes.size());
  return job;
}

}  // namespace collviz::job
