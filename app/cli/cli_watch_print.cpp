// What collviz watch prints: with --json one line per call on stdout (as it
// returns; at the end the calls that never did) and one per verdict; else a
// progress line now and then, the verdict, and a summary on stderr, the
// program's own output left alone. capture.json beside the capture files.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "app/cli/cli_input.h"
#include "app/cli/cli_watch.h"
#include "app/lang/lang.h"
#include "engine/job/job.h"

namespace collviz {

namespace {

using nlohmann::json;

std::string hex(const std::vector<std::uint8_t>& b) {
  static const char* d = "0123456789abcdef";
  std::string s;
  s.reserve(b.size() * 2);
  for (std::uint8_t v : b) s += d[v >> 4], s += d[v & 15];
  return s;
}

std::string hexId(std::uint64_t id) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(id));
  return buf;
}

std::string isoTime(std::uint64_t ns) {
  const std::time_t s = std::time_t(ns / 1000000000ull);
  std::tm tm{};
  ::gmtime_r(&s, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[96];
  std::snprintf(out, sizeof out, "%s.%03uZ", buf, unsigned((ns / 1000000ull) % 1000));
  return out;
}

void line(const std::string& s) { std::fprintf(stderr, "collviz watch: %s\n", s.c_str()); }

}  // namespace

void printCallLine(const job::LiveCapture& live, const job::LiveCall& c, bool returned) {
  json j;
  j["rank"] = c.rank;
  if (c.file >= 0 && std::size_t(c.file) < live.files().size()) {
    const job::LiveFile& f = live.files()[std::size_t(c.file)];
    j["host"] = f.host;
    j["pid"] = f.pid;
  }
  j["comm"] = hexId(c.comm);
  if (const job::LiveComm* m = live.comm(c.comm)) j["comm_ranks"] = m->ranks;
  j["seq"] = c.seq;
  j["call"] = c.name();
  j["op"] = tap::funcOp(c.func);
  j["dtype"] = tap::dtypeName(c.dtype);
  j["dtype_size"] = c.dtypeSize;
  if (c.op != tap::ROp::none) j["redop"] = tap::ropName(c.op);
  if (c.root >= 0) j["root"] = c.root;
  j["in_elems"] = c.inElems;
  j["out_elems"] = c.outElems;
  if (c.flags & tap::kInPlace) j["in_place"] = true;
  if (c.flags & tap::kFortran) j["fortran"] = true;
  if (c.flags & tap::kBytesLeftOut) j["bytes_left_out"] = true;
  j["t_enter"] = c.tEnter;
  j["returned"] = returned;
  if (returned) {
    j["t_exit"] = c.tExit;
    j["status"] = c.status;
  }
  j["input_bytes"] = hex(c.in);
  if (returned) j["output_bytes"] = hex(c.out);
  std::printf("%s\n", j.dump(-1, ' ', false, json::error_handler_t::replace).c_str());
}

WatchVerdict verdictNow(const std::string& dir, std::uint64_t nowNs, std::uint64_t lastExitNs) {
  WatchVerdict v;
  v.nowNs = nowNs;
  v.lastExitNs = lastExitNs;
  auto r = job::read({dir});
  if (!r) {
    v.english = r.error().message;
    v.text = render(r.error());
    v.findingsJson = "[]";
    return v;
  }
  const job::Job& jb = *r;
  const job::Analysis a = job::analyse(jb, std::int64_t(nowNs));
  v.text = render(a.verdict);
  v.english = std::string(a.verdict);
  v.ranks = a.verdictRanks;
  json f = json::array();
  for (const job::Finding& x : a.findings) {
    json y{{"kind", job::findingName(x.kind)}, {"text", render(x.text)}, {"ranks", x.ranks}};
    if (x.group >= 0) y["group"] = jb.groups[std::size_t(x.group)].id, y["group_name"] = job::groupName(jb, x.group);
    if (x.seq >= 0) y["seq"] = x.seq, y["op"] = jb.str(x.op);
    if (!x.waiting.empty()) y["waiting"] = x.waiting;
    f.push_back(y);
  }
  v.findingsJson = f.dump(-1, ' ', false, json::error_handler_t::replace);
  return v;
}

void printVerdict(const WatchVerdict& v, bool asJson) {
  if (asJson) {
    json j;
    j["verdict"] = v.text;
    j["verdict_ranks"] = v.ranks;
    j["findings"] = json::parse(v.findingsJson.empty() ? "[]" : v.findingsJson);
    j["quiet_s"] = double(std::int64_t(v.quietS * 1000)) / 1000;
    j["t_ns"] = v.nowNs;
    j["last_exit_ns"] = v.lastExitNs;
    std::printf("%s\n", j.dump(-1, ' ', false, json::error_handler_t::replace).c_str());
    std::fflush(stdout);
    return;
  }
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.1f", v.quietS);
  line(trf("a hang: no call has returned for {0} s", {secs}));
  std::fprintf(stderr, "  %s\n", trf("verdict: {0}", {v.text}).c_str());
  std::fflush(stderr);
}

void printProgress(const job::LiveCapture& live, double seconds) {
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.0f", seconds);
  std::size_t ranks = 0;
  for (const job::LiveFile& f : live.files()) ranks += f.rank >= 0 ? 1 : 0;
  line(trf("{0} s · {1} ranks · {2} calls returned · {3} in a call now",
           {secs, std::to_string(ranks), std::to_string(live.returned()), std::to_string(live.inFlightCount())}));
}

void printSummary(const job::LiveCapture& live, const WatchOptions& o, int status) {
  std::map<std::string, std::int64_t> perFunc;
  std::map<int, std::int64_t> perRank;
  for (const auto& [key, n] : live.counts()) {
    perFunc[key.second] += n.entered;
    perRank[key.first] += n.entered;
  }
  std::string funcs;
  for (const auto& [name, n] : perFunc) funcs += (funcs.empty() ? "" : ", ") + name + " " + std::to_string(n);
  line(trf("exit status {0} · {1} ranks · {2} calls", {std::to_string(status), std::to_string(perRank.size()), std::to_string(live.entered())}) +
       (funcs.empty() ? "" : " (" + funcs + ")"));
  for (const job::LiveFile& f : live.files()) {
    if (!f.problem.empty()) line(trf("{0} was not read whole: {1}", {printable(f.path), render(f.problem)}));
    if (f.lostRecords > 0)
      line(trf("rank {0} lost {1} records ({2})", {std::to_string(f.rank), std::to_string(f.lostRecords),
                                                    f.lostReason == std::uint32_t(tap::Lost::disk_full)  ? tr("the disk was full")
                                                    : f.lostReason == std::uint32_t(tap::Lost::size_cap) ? tr("the file reached its size cap")
                                                    : f.lostReason == std::uint32_t(tap::Lost::no_memory) ? tr("no memory")
                                                                                                           : tr("an error writing the file")}));
  }
  std::size_t never = live.inFlightCount();
  if (never > 0) line(trf("{0} calls never returned (in a call when the job ended)", {std::to_string(never)}));
  line(trf("the capture: {0} (collviz job {0})", {printable(o.out)}));
}

void printNothingSeen(const job::LiveCapture& live, const WatchOptions& o) {
  if (o.tapKind == "nccl") {
    if (live.files().empty())
      line(tr("the tap saw no NCCL call (no process wrote a capture file): the program may not use NCCL, may have NCCL "
              "linked in statically (a preloaded library cannot wrap it), or its launcher may have started the ranks "
              "without the environment it was given (LD_PRELOAD)"));
    else
      line(tr("the tap saw no NCCL call: the processes loaded the tap but made no NCCL collective"));
    return;
  }
  bool notOpenMpi = false;
  std::string library;
  for (const job::LiveFile& f : live.files())
    if (f.notOpenMpi) notOpenMpi = true, library = f.library;
  if (notOpenMpi)
    line(trf("the tap saw no MPI call: the ranks' MPI library is not Open MPI ({0}); collviz watch runs Open MPI programs", {printable(library)}));
  else if (live.files().empty())
    line(tr("the tap saw no MPI call (no rank wrote a capture file): the program may use another MPI than Open MPI, "
            "may be linked statically (a preloaded library cannot wrap it), or may not be an MPI program"));
  else
    line(tr("the tap saw no MPI call: the ranks started MPI but called no collective"));
}

void writeCaptureJson(const WatchOptions& o, std::uint64_t startNs, std::uint64_t endNs, int status, const WatchVerdict* verdict,
                      const job::LiveCapture& live, bool interrupted) {
  json j;
  j["command"] = o.command;
  j["launched"] = launchArgs(o);
  j["tap"] = o.tapKind;
  j["tap_path"] = o.tap;
  // The NCCL tap given through the command's environment (none under mpirun: -x, in "launched").
  json env = json::object();
  for (const auto& [name, value] : launchEnv(o, std::getenv("LD_PRELOAD"))) env[name] = value;
  j["environment"] = env;
  j["launcher_version"] = o.launcherVersion;
  j["launcher_pid"] = o.launcherPid;  // the job's process group
  j["start"] = isoTime(startNs);
  j["end"] = isoTime(endNs);
  j["exit_status"] = status;
  j["interrupted"] = interrupted;
  j["hang_after_s"] = o.hangAfterS;
  j["bytes"] = o.bytes;
  j["kill_on_hang"] = o.killOnHang;
  j["files"] = live.files().size();
  j["calls"] = live.entered();
  j["calls_returned"] = live.returned();
  j["verdict"] = verdict ? json(verdict->english) : json(nullptr);
  j["verdict_ranks"] = verdict ? json(verdict->ranks) : json::array();
  const std::string path = o.out + "/capture.json", tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::trunc);
    f << j.dump(1, ' ', false, json::error_handler_t::replace) << "\n";
    if (!f) {
      line(trf("cannot write {0}", {printable(path)}));
      std::remove(tmp.c_str());
      return;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    line(trf("cannot write {0}", {printable(path)}));
    std::remove(tmp.c_str());
  }
}

}  // namespace collviz
