// `collviz devices`: the backends and devices, and why any is unavailable.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/cli_commands.h"
#include "app/cli/cli_common.h"
#include "app/cli/cli_input.h"
#include "app/lang/lang.h"
#include "engine/group/netns.h"
#include "engine/group/program_files.h"
#include "engine/group/remote_probe.h"
#include "engine/verify/report.h"
#include "engine/version.h"

namespace collviz {
namespace {

std::string oneDecimal(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// The backends of one machine, each line after `pad` (a host's are indented).
void printBackends(const DeviceReport& rep, const std::string& pad, const Said* isolated) {
  // "      version:   value": the labels in 11 columns (a Chinese label is as wide as it is).
  auto line = [&pad](const char* label, const std::string& value) {
    std::printf("%s      %s%s\n", pad.c_str(), padColumns(tr(label), 11).c_str(), value.c_str());
  };
  for (const auto& b : rep.backends) {
    std::printf("%s%-5s %s\n", pad.c_str(), std::string(name(b.kind)).c_str(), tr(b.available ? "available" : "unavailable"));
    if (!b.available) {
      std::printf("%s      %s %s\n", pad.c_str(), tr("reason:"), render(Said(b.reason)).c_str());
      continue;
    }
    line("version:", b.info.version);
    line("devices:", render(b.info.devices));
    line("transport:", render(b.info.transport));
    std::string dt, ro;
    for (auto t : b.caps.dtypes) dt += (dt.empty() ? "" : ", ") + std::string(name(t));
    for (auto r : b.caps.redops) ro += (ro.empty() ? "" : ", ") + std::string(name(r));
    line("dtypes:", dt);
    line("redops:", ro);
    if (!b.info.notes.empty()) line("notes:", render(b.info.notes));
    for (const GpuMemory& g : b.gpu_memory) {
      const double gib = double(std::size_t(1) << 30);
      const Text mem = g.free ? say("{0}, {1} GiB free of {2} GiB", g.name, oneDecimal(double(*g.free) / gib),
                                    oneDecimal(double(g.total) / gib))
                              : say("{0}, free memory unknown ({1})", g.name, Said(g.error));
      std::printf("%s      %s%s\n", pad.c_str(), padColumns("GPU " + std::to_string(g.gpu) + ":", 11).c_str(),
                  render(mem).c_str());
    }
    if (b.kind == BackendKind::gloo && isolated) line("isolation:", render(*isolated));
  }
}

// `collviz devices --hosts` (issue 33): each host's, found through mpirun.
int devicesOnHosts(const HostSpec& hosts, bool json_out) {
  const std::vector<HostProbe> probes = probeHosts(hosts, workerPath());
  int bad = 0;
  for (const HostProbe& h : probes) bad += !h.ok();
  if (json_out) {
    nlohmann::json list = nlohmann::json::array();
    for (const HostProbe& h : probes) {
      nlohmann::json j = h.report ? toJson(*h.report) : nlohmann::json::object();
      j["host"] = h.host;
      j["hostname"] = h.hostname;
      j["collviz"] = h.version;
      j["commit"] = h.commit;
      j["ok"] = h.ok();
      j["problem"] = h.ok() ? std::string() : render(h.problem);
      list.push_back(j);
    }
    std::cout << nlohmann::json{{"collviz", collvizVersion()}, {"hosts", list}}.dump(2) << "\n";
    return bad ? kExitFailed : kExitOk;
  }
  std::printf("%s\n", versionLine().c_str());
  for (const HostProbe& h : probes) {
    if (!h.ok()) {
      std::printf("%s\n", render(say("host {0}: {1}", h.host, h.problem)).c_str());
      continue;
    }
    const std::string commit = h.commit.empty() ? "" : " (git " + h.commit + ")";
    std::printf("%s\n", render(say("host {0} ({1}): collviz-rank {2}", h.host, h.hostname, h.version + commit)).c_str());
    if (h.report) printBackends(*h.report, "  ", nullptr);
  }
  if (bad) std::printf("%s\n", render(say("{0} of {1} host(s) cannot run collviz's ranks", bad, probes.size())).c_str());
  else std::printf("%s\n", render(say("every host runs collviz {0}", collvizVersion())).c_str());
  return bad ? kExitFailed : kExitOk;
}

}  // namespace

void addDevicesCommand(CLI::App& app, std::function<int()>& action) {
  auto json_out = std::make_shared<bool>(false);
  auto host_args = std::make_shared<HostArgs>();
  CLI::App* cmd = app.add_subcommand("devices", "List the backends and devices available (with --hosts: on each host)");
  cmd->add_flag("--json", *json_out, "Print JSON");
  addHostOptions(cmd, *host_args);
  cmd->callback([&action, json_out, host_args] {
    action = [json_out, host_args]() -> int {
      auto hosts = parseHosts(*host_args);
      if (!hosts) return fail("devices", hosts.error(), kExitUsage);
      if (!hosts->empty()) return devicesOnHosts(*hosts, *json_out);
      Engine engine;
      const DeviceReport& rep = engine.devices();
      const Isolation& iso = isolation();
      const Said isolated =
          iso.available ? Said(iso.how)
                        : Said(say("NONE: Gloo ranks use the host's loopback, where other local users can "
                                   "connect to their ports and break a run ({0})", Said(iso.why_not)));
      if (*json_out) {
        auto j = toJson(rep);
        j["gloo_isolation"] = {{"available", iso.available}, {"detail", std::string(isolated)}};
        std::cout << j.dump(2) << "\n";
        return kExitOk;
      }
      std::printf("%s\n", versionLine().c_str());
      printBackends(rep, "", &isolated);
      std::string notice;
      auto chosen = rep.choose(BackendKind::automatic, &notice);
      std::printf("%s\n", render(say("--backend auto picks: {0}",
                                      chosen ? Text(lit(std::string(name(*chosen)))) : chosen.error().text))
                              .c_str());
      return kExitOk;
    };
  });
}

}  // namespace collviz
