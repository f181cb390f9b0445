// `collviz devices`: the backends and devices, and why any is unavailable.
#include <cstdio>
#include <iostream>

#include "app/cli/cli_commands.h"
#include "app/cli/cli_common.h"
#include "app/cli/cli_input.h"
#include "app/lang/lang.h"
#include "engine/group/netns.h"
#include "engine/verify/report.h"
#include "engine/version.h"

namespace collviz {
namespace {

std::string oneDecimal(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

}  // namespace

void addDevicesCommand(CLI::App& app, std::function<int()>& action) {
  auto json_out = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("devices", "List the backends and devices available");
  cmd->add_flag("--json", *json_out, "Print JSON");
  cmd->callback([&action, json_out] {
    action = [json_out]() -> int {
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
      // "      version:   value": the labels in 11 columns (a Chinese label is as wide as it is).
      auto line = [](const char* label, const std::string& value) {
        std::printf("      %s%s\n", padColumns(tr(label), 11).c_str(), value.c_str());
      };
      std::printf("%s\n", versionLine().c_str());
      for (const auto& b : rep.backends) {
        std::printf("%-5s %s\n", std::string(name(b.kind)).c_str(),
                    tr(b.available ? "available" : "unavailable"));
        if (!b.available) {
          std::printf("      %s %s\n", tr("reason:"), render(Said(b.reason)).c_str());
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
          std::printf("      %s%s\n", padColumns("GPU " + std::to_string(g.gpu) + ":", 11).c_str(),
                      render(mem).c_str());
        }
        if (b.kind == BackendKind::gloo) line("isolation:", render(isolated));
      }
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
