// The NCCL tools' tables of `collviz job` (cli_job.h).
#include <cstdio>
#include <string>

#include "app/cli/cli_job.h"
#include "app/lang/lang.h"

namespace collviz {
namespace {

using namespace job;

std::string n(std::int64_t v) { return std::to_string(v); }

std::string num(double v, int digits = 2) {
  if (v < 0) return "-";
  char b[32];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

// A capture's call counts where the tap's profiler plugin joined it (an algorithm).
bool fromNcclTool(const Job& j, const Call& c) {
  if (c.source < 0) return false;
  const Format f = j.sources[std::size_t(c.source)].format;
  return f == Format::nccl_inspector || f == Format::nccl_profiler_trace || f == Format::nccl_profiler_lines ||
         (f == Format::capture && c.algo != 0);
}

}  // namespace

void printNcclCalls(const Job& j, bool all) {
  std::size_t total = 0;
  for (const Call& c : j.calls) total += fromNcclTool(j, c) ? 1 : 0;
  if (total == 0) return;
  std::printf("\n%s\n", trf("NCCL's calls (Inspector, profiler): time, bandwidth, algorithm, protocol, channels:", {}).c_str());
  std::printf("  %-6s %-20s %-16s %8s %14s %12s %10s %-10s %-8s %s\n", "rank", tr("communicator"), tr("op"), tr("seq"), tr("bytes"),
              tr("time (us)"), tr("busbw"), tr("algorithm"), tr("protocol"), tr("channels"));
  std::size_t shown = 0;
  for (const Call& c : j.calls) {
    if (!fromNcclTool(j, c)) continue;
    if (!all && shown++ == 40) {
      std::printf("  %s\n", trf("... {0} more (--all lists them)", {n(std::int64_t(total) - 40)}).c_str());
      break;
    }
    const std::string group = c.group >= 0 ? j.groups[std::size_t(c.group)].id : "?";
    const std::string peer = c.p2p && c.peer >= 0 ? "→" + n(c.peer) : "";
    std::printf("  %-6d %-20s %-16s %8s %14s %12s %10s %-10s %-8s %s\n", c.rank, group.c_str(),
                (std::string(j.str(c.op)) + peer).c_str(), c.seq >= 0 ? n(c.seq).c_str() : "-", c.bytes >= 0 ? n(c.bytes).c_str() : "-",
                num(c.durationMs >= 0 ? c.durationMs * 1000.0 : -1, 1).c_str(), num(c.busbw).c_str(),
                j.str(c.algo).empty() ? "-" : std::string(j.str(c.algo)).c_str(), j.str(c.proto).empty() ? "-" : std::string(j.str(c.proto)).c_str(),
                c.channels >= 0 ? n(c.channels).c_str() : "-");
  }
}

void printRas(const Job& j) {
  for (const RasReport& r : j.ras) {
    std::printf("\n%s\n", trf("NCCL RAS ({0}{1}):", {j.sources[std::size_t(r.source)].path, r.version.empty() ? "" : ", NCCL " + r.version}).c_str());
    if (!r.comms.empty()) {
      std::printf("  %-20s %-6s %6s %6s %6s %-10s %s\n", tr("communicator"), tr("group"), tr("ranks"), tr("seen"), tr("nodes"), tr("status"), tr("errors"));
      for (const RasComm& c : r.comms)
        std::printf("  %-20s %-6s %6s %6s %6s %-10s %s\n", c.hash.empty() ? "-" : c.hash.c_str(), c.group.empty() ? "-" : c.group.c_str(),
                    c.size >= 0 ? n(c.size).c_str() : "-", c.ranksSeen >= 0 ? n(c.ranksSeen).c_str() : "-", c.nodes >= 0 ? n(c.nodes).c_str() : "-",
                    c.status.c_str(), c.errors.c_str());
    }
    for (const Said& e : r.errors) std::printf("  %s\n", trf("error: {0}", {render(e)}).c_str());
    for (const Said& w : r.warnings) std::printf("  %s\n", trf("warning: {0}", {render(w)}).c_str());
    for (const Said& e : r.events) std::printf("  %s\n", trf("event: {0}", {render(e)}).c_str());
  }
  bool any = false;
  for (const Rank& x : j.ranks) any = any || (x.health != Health::unknown);
  if (j.ras.empty() || !any) return;
  std::printf("  %s\n", tr("ranks:"));
  for (const Rank& x : j.ranks)
    if (x.health != Health::unknown)
      std::printf("    %s\n", trf("{0}: {1}", {"rank " + n(x.rank), healthWord(x.health) + (x.healthText.empty() ? "" : " — " + render(x.healthText))}).c_str());
}

void printNcclTests(const Job& j) {
  for (const TestRun& t : j.tests) {
    const std::string& file = j.sources[std::size_t(t.source)].path;
    std::printf("\n%s\n", t.test.empty() ? trf("nccl-tests ({0}):", {file}).c_str() : trf("nccl-tests {0} ({1}):", {t.test, file}).c_str());
    if (!t.settings.empty()) std::printf("  %s\n", t.settings.c_str());
    std::printf("  %12s %12s %8s %6s %5s | %9s %8s %8s %7s | %9s %8s %8s %7s\n", tr("size (B)"), tr("count"), tr("type"), tr("redop"), tr("root"),
                tr("time (us)"), tr("algbw"), tr("busbw"), tr("#wrong"), tr("time (us)"), tr("algbw"), tr("busbw"), tr("#wrong"));
    for (const TestRow& r : t.rows) {
      auto wrong = [](std::int64_t w) { return w < 0 ? std::string("N/A") : std::to_string(w); };
      const bool bad = r.wrong[0] > 0 || r.wrong[1] > 0;
      std::printf("  %12lld %12lld %8s %6s %5d | %9s %8s %8s %7s | %9s %8s %8s %7s%s\n", static_cast<long long>(r.bytes),
                  static_cast<long long>(r.count), r.type.c_str(), r.redop.c_str(), r.root, num(r.time[0], 1).c_str(), num(r.algbw[0]).c_str(),
                  num(r.busbw[0]).c_str(), wrong(r.wrong[0]).c_str(), num(r.time[1], 1).c_str(), num(r.algbw[1]).c_str(), num(r.busbw[1]).c_str(),
                  wrong(r.wrong[1]).c_str(), bad ? (std::string("  ← ") + tr("wrong values")).c_str() : "");
    }
    std::string tail;
    if (t.avgBusbw >= 0) tail += trf("average bus bandwidth {0} GB/s", {num(t.avgBusbw, 3)});
    if (t.outOfBounds >= 0) tail += (tail.empty() ? "" : " · ") + trf("{0} values out of bounds", {n(t.outOfBounds)});
    tail += (tail.empty() ? "" : " · ") + trf("{0} wrong in all", {n(t.wrongTotal)});
    std::printf("  %s\n", tail.c_str());
  }
}

}  // namespace collviz
