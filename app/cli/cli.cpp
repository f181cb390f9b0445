#include "app/cli/cli.h"

#include <cstdio>
#include <cstring>
#include <functional>

#include "app/cli/cli_commands.h"
#include "app/cli/cli_common.h"

namespace collviz {

bool isCliCommand(const char* arg) {
  for (const char* c : {"run", "devices", "export", "bench", "--help", "-h", "--version"})
    if (std::strcmp(arg, c) == 0) return true;
  return false;
}

int runCli(int argc, char** argv) {
  CLI::App app{"collviz: see what collective communication really does.\n"
               "With no subcommand, opens the window."};
  app.set_version_flag("--version", "collviz 0.1.0");
  app.require_subcommand(1);
  std::function<int()> action;
  addRunCommand(app, action);
  addDevicesCommand(app, action);
  addBenchCommand(app, action);
  addExportCommand(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }
  installInterruptHandler();  // every command, the device probe included
  return action ? action() : kExitUsage;
}

}  // namespace collviz
