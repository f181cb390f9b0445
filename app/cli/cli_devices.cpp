// `collviz devices`: the backends and devices, and why any is unavailable.
#include <cstdio>
#include <iostream>

#include "app/cli/cli_commands.h"
#include "app/cli/cli_common.h"
#include "engine/netns.h"
#include "engine/report.h"
#include "engine/version.h"

namespace collviz {

void addDevicesCommand(CLI::App& app, std::function<int()>& action) {
  auto json_out = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("devices", "List the backends and devices available");
  cmd->add_flag("--json", *json_out, "Print JSON");
  cmd->callback([&action, json_out] {
    action = [json_out]() -> int {
      Engine engine;
      const DeviceReport& rep = engine.devices();
      const Isolation& iso = isolation();
      const std::string isolated =
          iso.available ? std::string(iso.how)
                        : "NONE: Gloo ranks use the host's loopback, where other local users can "
                          "connect to their ports and break a run (" + iso.why_not + ")";
      if (*json_out) {
        auto j = toJson(rep);
        j["gloo_isolation"] = {{"available", iso.available}, {"detail", isolated}};
        std::cout << j.dump(2) << "\n";
        return kExitOk;
      }
      std::printf("%s\n", versionLine().c_str());
      for (const auto& b : rep.backends) {
        std::printf("%-5s %s\n", std::string(name(b.kind)).c_str(),
                    b.available ? "available" : "unavailable");
        if (!b.available) {
          std::printf("      reason: %s\n", b.reason.c_str());
          continue;
        }
        std::printf("      version:   %s\n      devices:   %s\n      transport: %s\n",
                    b.info.version.c_str(), b.info.devices.c_str(), b.info.transport.c_str());
        std::string dt, ro;
        for (auto t : b.caps.dtypes) dt += (dt.empty() ? "" : ", ") + std::string(name(t));
        for (auto r : b.caps.redops) ro += (ro.empty() ? "" : ", ") + std::string(name(r));
        std::printf("      dtypes:    %s\n      redops:    %s\n", dt.c_str(), ro.c_str());
        if (!b.info.notes.empty()) std::printf("      notes:     %s\n", b.info.notes.c_str());
        for (const GpuMemory& g : b.gpu_memory) {
          const double gib = double(std::size_t(1) << 30);
          if (g.free)
            std::printf("      GPU %d:     %s, %.1f GiB free of %.1f GiB\n", g.gpu, g.name.c_str(),
                        double(*g.free) / gib, double(g.total) / gib);
          else
            std::printf("      GPU %d:     %s, free memory unknown (%s)\n", g.gpu, g.name.c_str(),
                        g.error.c_str());
        }
        if (b.kind == BackendKind::gloo) std::printf("      isolation: %s\n", isolated.c_str());
      }
      std::string notice;
      auto chosen = rep.choose(BackendKind::automatic, &notice);
      std::printf("--backend auto picks: %s\n",
                  chosen ? std::string(name(*chosen)).c_str() : chosen.error().message.c_str());
      return kExitOk;
    };
  });
}

}  // namespace collviz
