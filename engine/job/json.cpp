// A job as JSON (json.h): keys and values English, texts as `say` renders them.
#include "engine/job/json.h"

#include <algorithm>
#include <map>

namespace collviz::job {
namespace {

using nlohmann::json;

bool fromDump(const Job& job, const Call& c) {  // a per-rank file's (a dump, a capture): listed by rank
  return c.source >= 0 && std::size_t(c.source) < job.sources.size() && perRank(job.sources[std::size_t(c.source)].format);
}

std::string hex(std::string_view b) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s(b.size() * 2, '0');
  for (std::size_t i = 0; i < b.size(); ++i) {
    s[2 * i] = kDigits[static_cast<unsigned char>(b[i]) >> 4];
    s[2 * i + 1] = kDigits[static_cast<unsigned char>(b[i]) & 15];
  }
  return s;
}

template <typename T>
void put(json& j, const char* k, T v, T none) {
  if (v != none) j[k] = v;
}

}  // namespace

json toJson(const Job& job, const Call& c) {
  json j;
  j["rank"] = c.rank;
  j["group"] = c.group >= 0 ? job.groups[std::size_t(c.group)].id : "";
  j["seq"] = c.seq;
  j["op"] = job.str(c.op);
  j["name"] = job.str(c.name);
  if (c.p2p) j["p2p"] = true, j["peer"] = c.peer;
  put(j, "dtype", job.str(c.dtype), std::string_view());
  put(j, "output_dtype", job.str(c.outDtype), std::string_view());
  put(j, "input_shape", job.str(c.inShape), std::string_view());
  put(j, "output_shape", job.str(c.outShape), std::string_view());
  put<std::int64_t>(j, "input_elements", c.inElems, -1);
  put<std::int64_t>(j, "output_elements", c.outElems, -1);
  put<std::int64_t>(j, "bytes", c.bytes, -1);
  j["state"] = stateName(c.state);
  put<std::int64_t>(j, "time_created_ns", c.created, 0);
  put<std::int64_t>(j, "time_started_ns", c.started, 0);
  put<std::int64_t>(j, "time_completed_ns", c.completed, 0);
  if (c.durationMs >= 0) j["duration_ms"] = c.durationMs;
  put(j, "algorithm", job.str(c.algo), std::string_view());
  put(j, "protocol", job.str(c.proto), std::string_view());
  put<int>(j, "channels", c.channels, -1);
  if (c.busbw >= 0) j["busbw_gbs"] = c.busbw;
  if (c.algbw >= 0) j["algbw_gbs"] = c.algbw;
  if (const Captured* x = job.captured(c)) {  // a capture's call: what the tap kept of it
    j["time_entered_ns"] = c.started;
    j["time_exited_ns"] = x->exited ? json(c.completed) : json(nullptr);
    if (x->root >= 0) j["root"] = x->root;
    put(j, "redop", redopName(x->redop), std::string_view());
    j["in_place"] = x->inPlace();
    j["element_bytes"] = x->dtypeSize;
    if (x->exited) j["status"] = x->status;
    j["input_bytes"] = hex(job.inputBytes(c));
    j["output_bytes"] = x->exited ? json(hex(job.outputBytes(c))) : json(nullptr);
    if (x->flags & 16) j["bytes_left_out"] = true;  // tap::kBytesLeftOut: a buffer's bytes could not be kept
  }
  j["source"] = c.source;
  return j;
}

std::vector<std::vector<std::size_t>> lastCalls(const Job& job, int n) {
  std::map<int, std::vector<std::size_t>> by;
  for (std::size_t i = 0; i < job.calls.size(); ++i) {
    const Call& c = job.calls[i];
    if (!fromDump(job, c)) continue;
    auto& v = by[c.rank];
    v.push_back(i);
    auto later = [&](std::size_t a, std::size_t b) {
      const Call &x = job.calls[a], &y = job.calls[b];
      return x.created != y.created ? x.created > y.created : x.record > y.record;
    };
    std::sort(v.begin(), v.end(), later);  // kept short: at most n + 1
    if (v.size() > std::size_t(n)) v.resize(std::size_t(n));
  }
  std::vector<std::vector<std::size_t>> out;
  for (auto& [rank, v] : by) {
    std::reverse(v.begin(), v.end());  // oldest first
    out.push_back(std::move(v));
  }
  return out;
}

json toJson(const Job& job, const Analysis& a, const std::function<std::string(const Text&)>& say, bool allCalls, int lastPerRank) {
  auto text = [&](const Said& s) { return s.current() ? say(*s.current()) : std::string(s); };
  json j;
  j["verdict"] = text(a.verdict);
  j["verdict_ranks"] = a.verdictRanks;
  j["world_size"] = job.worldSize;
  json& files = j["files"] = json::array();
  for (const Source& s : job.sources) {
    json f;
    f["path"] = s.path;
    f["format"] = formatName(s.format);
    f["bytes"] = s.bytes;
    if (s.rank >= 0) f["rank"] = s.rank;
    put(f, "host", s.host, std::string());
    put(f, "version", s.version, std::string());
    put(f, "library", s.library, std::string());
    f["records"] = s.records;
    for (const Note& n : s.notes) f["notes"].push_back({{"text", text(n.text)}, {"count", n.count}});
    files.push_back(f);
  }
  j["hosts"] = job.hosts;
  json& ranks = j["ranks"] = json::array();
  for (const Rank& r : job.ranks) {
    json x;
    x["rank"] = r.rank;
    put(x, "host", r.host, std::string());
    put(x, "device", r.device, -1);
    put<std::int64_t>(x, "pid", r.pid, -1);
    put(x, "bus_id", r.busId, std::string());
    put(x, "gpu", r.gpu, std::string());
    x["dump"] = r.dump >= 0 ? json(job.sources[std::size_t(r.dump)].path) : json(nullptr);
    put(x, "world_size", r.worldSize, -1);
    if (r.health != Health::unknown) x["health"] = healthName(r.health), x["health_text"] = text(r.healthText);
    if (r.duplicates > 0) x["duplicates"] = r.duplicates;
    ranks.push_back(x);
  }
  json& groups = j["groups"] = json::array();
  for (const Group& g : job.groups)
    groups.push_back({{"id", g.id}, {"desc", g.desc}, {"ranks", g.ranks}, {"size", g.size}, {"comm_hash", g.commHash}, {"calls", g.calls}});
  json& findings = j["findings"] = json::array();
  for (const Finding& f : a.findings) {
    json x{{"kind", findingName(f.kind)}, {"text", text(f.text)}, {"ranks", f.ranks}};
    if (f.group >= 0) x["group"] = job.groups[std::size_t(f.group)].id;
    if (f.seq >= 0) x["seq"] = f.seq, x["op"] = job.str(f.op);
    if (!f.waiting.empty()) x["waiting"] = f.waiting;
    if (!f.field.empty()) x["field"] = f.field;
    findings.push_back(x);
  }
  j["missing_dumps"] = a.missingDumps;
  json& progress = j["progress"] = json::array();
  for (const GroupProgress& g : a.groups) {
    json x{{"group", job.groups[std::size_t(g.group)].id}, {"ranks", json::array()}};
    for (const Progress& p : g.ranks)
      x["ranks"].push_back({{"rank", p.rank}, {"dumped", p.dumped}, {"last_entered", p.lastEntered},
                            {"last_started", p.lastStarted}, {"last_completed", p.lastCompleted}});
    progress.push_back(x);
  }
  json& calls = j["calls"] = json::array();
  for (const Call& c : job.calls)
    if (allCalls || !fromDump(job, c)) calls.push_back(toJson(job, c));
  if (!allCalls)
    for (const auto& v : lastCalls(job, lastPerRank))
      for (std::size_t i : v) calls.push_back(toJson(job, job.calls[i]));
  json& tests = j["nccl_tests"] = json::array();
  for (const TestRun& t : job.tests) {
    json x{{"file", job.sources[std::size_t(t.source)].path}, {"test", t.test}, {"settings", t.settings}, {"avg_busbw_gbs", t.avgBusbw},
           {"out_of_bounds", t.outOfBounds}, {"wrong", t.wrongTotal}, {"rows", json::array()}};
    for (const TestRow& r : t.rows) {
      json row{{"bytes", r.bytes}, {"count", r.count}, {"type", r.type}, {"redop", r.redop}, {"root", r.root}};
      for (int p = 0; p < 2; ++p)
        row[p ? "in_place" : "out_of_place"] = {{"time_us", r.time[p]}, {"algbw_gbs", r.algbw[p]}, {"busbw_gbs", r.busbw[p]},
                                                {"wrong", r.wrong[p] < 0 ? json(nullptr) : json(r.wrong[p])}};
      x["rows"].push_back(row);
    }
    tests.push_back(x);
  }
  json& ras = j["ras"] = json::array();
  for (const RasReport& r : job.ras) {
    json x{{"file", job.sources[std::size_t(r.source)].path}, {"version", r.version}, {"communicators", json::array()}};
    for (const RasComm& c : r.comms)
      x["communicators"].push_back({{"hash", c.hash}, {"group", c.group}, {"size", c.size}, {"ranks_seen", c.ranksSeen},
                                    {"missing", c.missing}, {"nodes", c.nodes}, {"status", c.status}, {"errors", c.errors}});
    x["errors"] = english(r.errors);
    x["warnings"] = english(r.warnings);
    x["events"] = english(r.events);
    ras.push_back(x);
  }
  j["notes"] = json::array();
  for (const Note& n : job.notes) j["notes"].push_back({{"text", text(n.text)}, {"count", n.count}});
  return j;
}

}  // namespace collviz::job
