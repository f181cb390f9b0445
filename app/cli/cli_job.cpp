// collviz job FILE|DIR...: a real job's files read back (engine/job): what
// each file was, the ranks by host, the process groups, the verdict (who
// waits for whom), what else was found, each rank's last collectives, and
// the tables of the NCCL tools (RAS, Inspector and profiler calls,
// nccl-tests). --json: the same as one document (engine/job/json.h).
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/cli.h"
#include "app/cli/cli_commands.h"
#include "app/cli/cli_common.h"
#include "app/cli/cli_input.h"
#include "app/cli/cli_job.h"

#include <cctype>
#include "app/lang/lang.h"
#include "engine/job/captured_call.h"
#include "engine/job/job.h"
#include "engine/job/json.h"
#include "tap/capture_format.h"

namespace collviz {
namespace {

using namespace job;

std::string n(std::int64_t v) { return std::to_string(v); }

std::string sized(const Job& j, const Call& c) {
  std::string s(j.str(c.inShape));
  if (s.empty() && c.bytes >= 0) s = n(c.bytes) + " B";
  std::string dt(j.str(c.dtype));
  return s.empty() ? dt : dt.empty() ? s : s + " " + dt;
}

void printSources(const Job& j) {
  std::printf("\n%s\n", trf("files read:", {}).c_str());
  for (const Source& s : j.sources) {
    std::string what = render(formatText(s.format));
    if (s.rank >= 0) what += " · rank " + n(s.rank);
    if (!s.host.empty()) what += " · " + trf("host {0}", {s.host});
    if (!s.version.empty()) what += " · " + trf("format {0}", {s.version});
    // A bare version is NCCL's (Flight Recorder, RAS); a capture names its library itself ("Open MPI v4.1.4, …").
    if (!s.library.empty())
      what += std::isdigit(static_cast<unsigned char>(s.library[0])) ? " · NCCL " + s.library : " · " + s.library;
    what += " · " + trf("{0} records", {n(s.records)});
    std::printf("  %s\n", trf("{0}: {1}", {s.path, what}).c_str());
    for (const Note& note : s.notes)
      std::printf("    %s\n", note.count > 1 ? trf("{0} (×{1})", {render(note.text), n(note.count)}).c_str() : render(note.text).c_str());
  }
  for (const Note& note : j.notes)
    std::printf("  %s\n", note.count > 1 ? trf("{0} (×{1})", {render(note.text), n(note.count)}).c_str() : render(note.text).c_str());
}

void printRanks(const Job& j) {
  if (j.ranks.empty()) return;
  std::printf("\n%s\n", trf("ranks by host:", {}).c_str());
  std::map<std::string, std::vector<int>> byHost;
  for (const Rank& r : j.ranks) byHost[r.host].push_back(r.rank);
  for (const auto& [host, ranks] : byHost)
    std::printf("  %s\n", trf("{0}: {1}", {host.empty() ? tr("(host not named)") : host, render(rankList(ranks))}).c_str());
  for (const Rank& r : j.ranks) {
    if (r.device < 0 && r.pid < 0 && r.health == Health::unknown) continue;
    std::string s = "rank " + n(r.rank);
    if (r.device >= 0) s += " · " + trf("device {0}", {n(r.device)});
    if (!r.busId.empty()) s += " [" + r.busId + "]";
    if (!r.gpu.empty()) s += " " + r.gpu;
    if (r.pid >= 0) s += " · pid " + n(r.pid);
    if (r.health != Health::unknown) s += " · " + trf("NCCL RAS: {0}", {healthWord(r.health)});
    std::printf("  %s\n", s.c_str());
  }
}

void printGroups(const Job& j, bool all) {
  if (j.groups.empty()) return;
  std::printf("\n%s\n", trf("process groups and communicators ({0}):", {n(std::int64_t(j.groups.size()))}).c_str());
  std::vector<const Group*> order;  // by description, then by number
  for (const Group& g : j.groups) order.push_back(&g);
  auto num = [](const std::string& id) { return id.find_first_not_of("0123456789") == std::string::npos && id.size() < 10 ? std::stol(id) : -1L; };
  std::stable_sort(order.begin(), order.end(), [&](const Group* a, const Group* b) {
    return a->desc != b->desc ? a->desc < b->desc : num(a->id) != num(b->id) ? num(a->id) < num(b->id) : a->id < b->id;
  });
  std::size_t shown = 0;
  bool capture = false;
  for (const Source& src : j.sources) capture = capture || src.capture;
  for (const Group* gp : order) {
    const Group& g = *gp;
    if (!all && shown++ == 48) {
      std::printf("  %s\n", trf("... {0} more (--all lists them)", {n(std::int64_t(j.groups.size()) - 48)}).c_str());
      break;
    }
    const std::string ranks = !g.ranks.empty() ? render(rankList(g.ranks)) : g.size > 0 ? trf("{0} ranks, not named", {n(g.size)}) : "?";
    std::string calls = trf("{0} calls", {n(g.calls)});
    // A capture's: the numbers `export --call ID:SEQ` takes.
    if (const auto [lo, hi] = job::seqRange(j, int(gp - j.groups.data())); capture && lo >= 0) calls += " · " + trf("seq {0}..{1}", {n(lo), n(hi)});
    std::printf("  %-10s %-44s %s · %s\n", g.id.c_str(), g.desc.c_str(), ranks.c_str(), calls.c_str());
  }
}

void printFindings(const Job& j, const Analysis& a) {
  std::printf("\n%s\n", trf("verdict: {0}", {render(a.verdict)}).c_str());
  if (a.findings.empty()) return;
  std::printf("\n%s\n", trf("found:", {}).c_str());
  for (const Finding& f : a.findings) std::printf("  - %s\n", render(f.text).c_str());
  // Where each rank of the first stuck group stands.
  for (const Finding& f : a.findings) {
    if (f.kind != FindingKind::hang) continue;
    for (const GroupProgress& g : a.groups) {
      if (g.group != f.group) continue;
      std::printf("\n%s\n", trf("{0}: where each rank stands:", {groupName(j, g.group)}).c_str());
      for (const job::Progress& p : g.ranks) {
        std::string where = !p.dumped                                      ? tr("no dump")
                            : std::find(f.ranks.begin(), f.ranks.end(), p.rank) != f.ranks.end() ? trf("never entered #{0}", {n(f.seq)})
                            : std::find(f.waiting.begin(), f.waiting.end(), p.rank) != f.waiting.end() ? trf("waits in #{0}", {n(f.seq)})
                                                                                                      : "";
        std::printf("  %s\n", trf("{0}: entered {1}, completed {2}  {3}", {"rank " + n(p.rank), p.lastEntered >= 0 ? n(p.lastEntered) : "—",
                                                                           p.lastCompleted >= 0 ? n(p.lastCompleted) : "—", where})
                                  .c_str());
      }
    }
    break;
  }
}

void printLastCalls(const Job& j) {
  const auto last = lastCalls(j, 3);
  if (last.empty()) return;
  std::printf("\n%s\n", trf("each rank's last collectives (Flight Recorder, oldest first):", {}).c_str());
  for (const auto& v : last) {
    if (v.empty()) continue;
    std::printf("  %s:\n", ("rank " + n(j.calls[v[0]].rank)).c_str());
    for (std::size_t i : v) {
      const Call& c = j.calls[i];
      std::printf("    %-16s #%-8lld %-44s %-10s %s\n", std::string(j.str(c.op)).c_str(), static_cast<long long>(c.seq), groupName(j, c.group).c_str(),
                  tr(std::string(stateName(c.state))).c_str(), sized(j, c).c_str());
    }
  }
}

int runJob(const std::vector<std::string>& paths, bool asJson, bool all) {
  auto r = job::read(paths);
  if (!r.ok()) return fail("job", r.error(), kExitFailed);
  const Job& j = *r;
  const Analysis a = analyse(j);
  if (asJson) {
    // The Job's strings are valid UTF-8 (engine/job safe.cpp); a translation's too: replace, never throw, whatever is left.
    std::printf("%s\n", toJson(j, a, [](const Text& t) { return render(t); }, all).dump(1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return kExitOk;
  }
  std::map<Format, int> kinds;
  for (const Source& s : j.sources) ++kinds[s.format];
  std::string what;
  for (const auto& [f, k] : kinds) what += (what.empty() ? "" : ", ") + n(k) + " × " + render(formatText(f));
  std::printf("%s\n", trf("collviz job: {0} files ({1}) · {2} ranks · {3} groups · {4} calls",
                          {n(std::int64_t(j.sources.size())), what, n(std::int64_t(j.ranks.size())), n(std::int64_t(j.groups.size())),
                           n(std::int64_t(j.calls.size()))})
                          .c_str());
  printFindings(j, a);
  printSources(j);
  printRanks(j);
  printGroups(j, all);
  printLastCalls(j);
  printNcclCalls(j, all);
  printRas(j);
  printNcclTests(j);
  return kExitOk;
}

}  // namespace

namespace {

// A folder collviz watch wrote (its tap-*.cvtap files): `job --window` opens
// the watch window on it, the same picture as watch --window.
bool isCaptureFolder(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) return false;
  for (std::filesystem::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind("tap-", 0) == 0 && it->path().extension() == tap::kFileSuffix) return true;
  }
  return false;
}

}  // namespace

void addJobCommand(CLI::App& app, std::function<int()>& action, WindowRequest* window) {
  auto paths = std::make_shared<std::vector<std::string>>();
  auto asJson = std::make_shared<bool>(false);
  auto all = std::make_shared<bool>(false);
  auto inWindow = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("job", "Read a real job's traces (Flight Recorder dumps, NCCL RAS, Inspector, profiler, nccl-tests) and say who waits for whom");
  cmd->add_option("files", *paths, "Files or folders (one dump per rank: a folder), or - for stdin")->required();
  cmd->add_flag("--json", *asJson, "Print one JSON document on stdout");
  cmd->add_flag("--all", *all, "List every group and call (else the first ones)");
  cmd->add_flag("--window", *inWindow, "Open the job in the window (File → Open job traces…), one file or folder");
  cmd->callback([&action, paths, asJson, all, inWindow, window] {
    if (*inWindow && *asJson) {  // the window prints nothing: --json would be dropped without a word
      action = [] { return fail("job", say("--window and --json: give one (--json prints the job on stdout, --window opens it)"), kExitUsage); };
      return;
    }
    if (*inWindow && window) {
      if (paths->size() != 1) {
        action = [] { return fail("job", say("--window opens one file or folder"), kExitUsage); };
        return;
      }
      action = [paths, window]() -> int {  // read here first: a file that does not read is said on the terminal
        if (isCaptureFolder(paths->front())) {  // the watch window reads it as it reads a live one (not whole, here)
          window->open = true;
          window->capture = paths->front();
          return kExitOk;
        }
        auto r = job::read(*paths);
        if (!r.ok()) return fail("job", r.error(), kExitFailed);
        window->open = true;
        window->job = paths->front();
        return kExitOk;
      };
      return;
    }
    action = [paths, asJson, all]() -> int { return runJob(*paths, *asJson, *all); };
  });
}

}  // namespace collviz
