// collviz nccl-log FILE|DIR...|-: what NCCL built and chose, read from its
// own NCCL_DEBUG=INFO log (engine/job/nccl_log): communicators, rings,
// trees, transports, channels and each collective's algorithm and protocol;
// what the log does not say, with the NCCL_DEBUG_SUBSYS that would add it.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/cli_commands.h"
#include "app/cli/cli.h"
#include "app/cli/cli_common.h"
#include "app/cli/cli_input.h"
#include "app/lang/lang.h"
#include "engine/job/nccl_log/json.h"
#include "engine/job/nccl_log/nccl_log.h"

namespace collviz {
namespace {

using namespace nccl_log;

std::string n(std::int64_t v) { return std::to_string(v); }

std::string orderText(const std::vector<int>& v, bool cut) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : " ") + std::to_string(x);
  return cut ? s + " ..." : s;
}

void progress(std::int64_t done, std::int64_t total, void*) {
  static std::int64_t last = 0;
  if (total < (64LL << 20) || done - last < (32LL << 20)) return;
  last = done;
  std::fprintf(stderr, "\r%s", trf("reading: {0} of {1} MiB", {n(done >> 20), n(total >> 20)}).c_str());
  if (done >= total) std::fprintf(stderr, "\n");
}

void printComm(const Log& log, std::size_t ci, bool allRings) {
  const Comm& c = log.comms[ci];
  std::printf("\n%s\n", trf("communicator {0}: {1}", {commLabel(c), render(sentence(c))}).c_str());
  std::string hosts;
  for (const std::string& h : c.hosts) hosts += (hosts.empty() ? "" : ", ") + h;
  std::printf("  %s\n", trf("hosts: {0}", {hosts}).c_str());
  for (const Member& m : c.members)
    std::printf("  %s\n", trf("rank {0}: {1}:{2} [{3}] comm {4} busId {5} ({6})",
                              {n(m.rank), m.host, n(m.pid), n(m.dev), m.ptr, m.busId.empty() ? "?" : m.busId, m.file})
                              .c_str());
  if (!c.rings.empty()) {
    std::printf("  %s\n", trf("rings (channel: ranks in ring order, from rank 0's lines):", {}).c_str());
    std::size_t shown = 0;
    for (const Ring& r : c.rings) {
      if (!allRings && shown == 8) {
        std::printf("    %s\n", trf("... {0} more (--all-rings lists them)", {n(std::int64_t(c.rings.size()) - 8)}).c_str());
        break;
      }
      std::printf("    %02d: %s\n", r.channel, orderText(r.order, r.cut).c_str());
      ++shown;
    }
  }
  for (const Member& m : c.members) {
    if (m.trees.empty()) continue;
    std::string t;
    int shown = 0;
    for (const auto& [ch, tr] : m.trees) {
      if (shown++ == 4) break;
      t += (t.empty() ? "" : "  ") + std::string("[") + n(ch) + "] " + n(tr.down[0]) + "/" + n(tr.down[1]) + "/" + n(tr.down[2]) +
           "->" + n(m.rank) + "->" + n(tr.up);
    }
    std::printf("  %s\n", trf("rank {0}'s trees on {1} channels (children->rank->parent): {2}", {n(m.rank), n(std::int64_t(m.trees.size())), t}).c_str());
  }
  std::map<std::string, int> via;
  for (const Member& m : c.members)
    for (const Transport& t : m.transports) ++via[t.via];
  if (!via.empty()) {
    std::string s;
    for (const auto& [v, k] : via) s += (s.empty() ? "" : ", ") + n(k) + " × " + v;
    std::printf("  %s\n", trf("links: {0}", {s}).c_str());
  }
  for (const auto& [op, k] : c.callsByOp) std::printf("  %s\n", trf("calls: {0} × {1}", {n(k), op}).c_str());
  for (const Said& d : c.disagreements) std::printf("  %s\n", trf("the files disagree: {0}", {render(d)}).c_str());
}

int runNcclLog(const std::vector<std::string>& paths, bool asJson, bool allRings) {
  auto r = nccl_log::read(paths, isatty(2) ? progress : nullptr, nullptr);
  if (!r.ok()) return fail("nccl-log", r.error(), kExitFailed);
  const Log& log = *r;
  if (asJson) {
    std::printf("%s\n", toJson(log, [](const Text& t) { return render(t); }).dump(1).c_str());
    return kExitOk;
  }
  const Counts& k = log.counts;
  std::printf("%s\n", trf(log.files.size() == 1 ? "collviz nccl-log: 1 file · NCCL {1} · {2} lines: {3} NCCL INFO, {4} WARN, {5} read"
                                                : "collviz nccl-log: {0} files · NCCL {1} · {2} lines: {3} NCCL INFO, {4} WARN, {5} read",
                          {n(std::int64_t(log.files.size())), log.version.empty() ? "?" : log.version, n(k.lines), n(k.info), n(k.warn), n(k.read)})
                          .c_str());
  std::printf("%s\n", trf("not read: {0} NCCL lines of other kinds, {1} lines not NCCL's, {2} interleaved, {3} too long, {4} wrong",
                          {n(k.other), n(k.foreign), n(k.interleaved), n(k.tooLong), n(k.bad)})
                          .c_str());
  if (!log.networks.empty()) std::printf("%s\n", trf("network: {0}", {log.networks.front()}).c_str());
  for (const auto& [name, value] : log.settings) std::printf("  %s=%s\n", name.c_str(), value.c_str());
  for (std::size_t i = 0; i < log.comms.size(); ++i) printComm(log, i, allRings);
  if (!log.choices.empty()) {
    std::printf("\n%s\n", trf("collectives (NCCL's choice, from rank 0's TUNING lines):", {}).c_str());
    std::printf("  %-16s %14s  %-16s %-8s %-10s %s\n", tr("op"), tr("bytes"), tr("algorithm"), tr("protocol"),
                tr("channels"), tr("times"));
    for (const Choice& c : log.choices) {
      std::string ch = c.chLo >= 0 ? n(c.chLo) + "–" + n(c.chHi) : "?";
      std::printf("  %-16s %14lld  %-16s %-8s %-10s %lld\n", c.op.empty() ? "?" : c.op.c_str(), static_cast<long long>(c.bytes),
                  c.algo.c_str(), c.proto.empty() ? "—" : c.proto.c_str(), ch.c_str(), static_cast<long long>(c.times));
    }
  }
  for (const Sample& s : log.bad)
    std::printf("%s\n", trf("wrong: {0}:{1}: {2}", {s.file, n(s.line), render(s.what)}).c_str());
  for (const Sample& s : log.warnings) std::printf("%s\n", trf("NCCL WARN: {0}:{1}: {2}", {s.file, n(s.line), render(s.what)}).c_str());
  if (!log.missing.empty()) {
    std::printf("\n%s\n", trf("what the log does not say:", {}).c_str());
    for (const Said& m : log.missing) std::printf("  - %s\n", render(m).c_str());
  }
  return kExitOk;
}

}  // namespace

void printNcclComms(const nccl_log::Log& log) {
  for (std::size_t c = 0; c < log.comms.size(); ++c) printComm(log, c, false);
}

void addNcclLogCommand(CLI::App& app, std::function<int()>& action, WindowRequest* window) {
  auto paths = std::make_shared<std::vector<std::string>>();
  auto asJson = std::make_shared<bool>(false);
  auto allRings = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("nccl-log", "Read NCCL's own NCCL_DEBUG=INFO log: rings, trees, transports, channels, algorithms");
  cmd->add_option("files", *paths, "Log files, folders of per-rank files (NCCL_DEBUG_FILE=nccl.%h.%p), or - for stdin")->required();
  cmd->add_flag("--json", *asJson, "Print one JSON document on stdout");
  cmd->add_flag("--all-rings", *allRings, "List every channel's ring (else the first 8)");
  auto inWindow = std::make_shared<bool>(false);
  cmd->add_flag("--window", *inWindow, "Open the log in the window (File → Open NCCL log…), one file or folder");
  cmd->callback([&action, paths, asJson, allRings, inWindow, window] {
    if (*inWindow && window) {
      if (paths->size() != 1) {
        action = [] { return fail("nccl-log", say("--window opens one file or folder"), kExitUsage); };
        return;
      }
      action = [paths, window]() -> int {  // read here first: a file that does not read is said on the terminal
        auto r = nccl_log::read(*paths);
        if (!r.ok()) return fail("nccl-log", r.error(), kExitFailed);
        window->open = true;
        window->nccl_log = paths->front();
        return kExitOk;
      };
      return;
    }
    action = [paths, asJson, allRings]() -> int { return runNcclLog(*paths, *asJson, *allRings); };
  });
}

}  // namespace collviz
