// NCCL Inspector (plugins/profiler/inspector/inspector_json.cc) read into a
// Job: one JSON object a line, each a completed collective ("coll_perf":
// coll, coll_sn, coll_msg_size_bytes, coll_exec_time_us, coll_algobw_gbs,
// coll_busbw_gbs, and with verbose dumps its kernel events, one a channel)
// or point-to-point op ("p2p_perf"), under its communicator's "header" (id,
// comm_name, rank, n_ranks, nnodes) and the process' "metadata" (format
// version, hostname, pid). A line that is not one is counted.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "engine/job/plain.h"
#include "engine/job/readers.h"

namespace collviz::job {

Result<Job> readInspector(std::string_view bytes, const std::string& path) {
  using nlohmann::json;
  Job job = oneSource(path, Format::nccl_inspector, std::int64_t(bytes.size()));
  Builder b(job);
  Source& s = job.sources[0];
  int largest = 0;
  for (const std::string& line : splitLines(bytes)) {
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    if (line.size() > (std::size_t(1) << 20) && !jsonDomFits(line, plainBudget(bytes.size()))) {  // a record is a few KB
      Builder::note(s.notes, say("a line whose values would take more than {0} MiB of memory: skipped", std::int64_t(plainBudget(bytes.size()) >> 20)));
      continue;
    }
    const json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("header")) {
      Builder::note(s.notes, say("a line that is not an Inspector record: skipped"));
      continue;
    }
    try {
    const json h = j.value("header", json::object()), m = j.value("metadata", json::object());
    const bool p2p = j.contains("p2p_perf");
    const json perf = j.value(p2p ? "p2p_perf" : "coll_perf", json::object());
    const std::string pre = p2p ? "p2p" : "coll";
    const int rank = h.value("rank", -1), n = h.value("n_ranks", -1);
    if (rank < 0 || rank > kMaxRank || perf.empty()) {
      Builder::note(s.notes, say("a record without its rank or its collective: skipped"));
      continue;
    }
    if (s.version.empty()) s.version = clean(m.value("inspector_output_format_version", std::string()), 16);
    largest = std::max(largest, n);
    Rank& r = b.rank(rank);
    if (r.host.empty()) r.host = clean(m.value("hostname", std::string()), 64);
    if (r.pid < 0) r.pid = m.value("pid", std::int64_t(-1));
    Call c;
    c.rank = rank;
    c.source = 0;
    c.group = b.group(hashId(h.value("id", std::string("?"))));
    Group& g = job.groups[std::size_t(c.group)];
    g.size = n;
    g.commHash = g.id;
    const std::string commName = h.value("comm_name", std::string());
    if (g.desc.empty() && !commName.empty() && commName != "unknown") g.desc = clean(commName, 128);
    if (std::find(g.ranks.begin(), g.ranks.end(), rank) == g.ranks.end()) g.ranks.push_back(rank);
    const std::string op = perf.value(pre, std::string("?"));
    c.name = b.intern(clean(op, 64));
    c.op = b.intern(plainOp(op));
    c.p2p = p2p;
    c.seq = perf.value(pre + "_sn", std::int64_t(-1));
    c.peer = p2p ? perf.value("p2p_peer", -1) : -1;
    c.bytes = perf.value(pre + "_msg_size_bytes", std::int64_t(-1));
    const double us = perf.value(pre + "_exec_time_us", -1.0);
    c.durationMs = us >= 0 ? float(us / 1000.0) : -1.0f;
    c.algbw = float(perf.value(pre + "_algobw_gbs", -1.0));
    c.busbw = float(perf.value(pre + "_busbw_gbs", -1.0));
    c.state = State::completed;
    if (perf.contains("event_trace_sn")) {
      const json k = perf["event_trace_sn"].value("kernel_events", json::array());
      if (k.is_array()) c.channels = std::int16_t(std::min<std::size_t>(k.size(), 4096));
    }
    if (job.calls.size() >= kMaxCalls) {
      Builder::note(s.notes, say("more than {0} entries: the rest not kept", std::int64_t(kMaxCalls)));
      break;
    }
    job.calls.push_back(c);
    ++s.records;
    } catch (const json::exception&) {  // a field of another type than Inspector writes
      Builder::note(s.notes, say("a record with a field of the wrong type: skipped"));
    }
  }
  if (s.records == 0) return Error(say("not NCCL Inspector output: no record read"));
  for (Group& g : job.groups) {
    std::sort(g.ranks.begin(), g.ranks.end());
    if (g.size > 0 && g.size < largest)
      Builder::note(s.notes, say("communicator {0} has {1} of the {2} ranks: its rank numbers are its own, read as the job's", g.id, g.size, largest));
  }
  b.finish(false);
  return job;
}

}  // namespace collviz::job
