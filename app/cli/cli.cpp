#include "app/cli/cli.h"

#include <cstdio>
#include <cstring>
#include <functional>

#include "app/cli/cli_commands.h"
#include "app/cli/cli_common.h"
#include "app/cli/cli_input.h"

namespace collviz {

namespace {
constexpr const char* kCommands[] = {"run", "devices", "bench", "export"};
}  // namespace

bool isCliCommand(const char* arg) {
  for (const char* c : kCommands)
    if (std::strcmp(arg, c) == 0) return true;
  for (const char* c : {"--help", "-h", "--version"})
    if (std::strcmp(arg, c) == 0) return true;
  return false;
}

int runCli(int argc, char** argv) {
  CLI::App app{"collviz: see what collective communication really does.\n"
               "With no subcommand, opens the window."};
  app.set_version_flag("--version", "collviz 0.1.0");
  app.require_subcommand(1);
  for (int i = 1; i < argc && std::strcmp(argv[i], "--") != 0; ++i)
    if (std::strcmp(argv[i], "--json") == 0) setJsonErrors(true);
  const std::string command = argc > 1 && isCliCommand(argv[1]) && argv[1][0] != '-' ? argv[1] : "";
  if (argc > 1 && argv[1][0] != '-' && command.empty())
    return fail("", "unknown command " + shown(argv[1]) +
                        "; the commands are run, devices, bench, export (none: the window)",
                kExitUsage);
  std::function<int()> action;
  addRunCommand(app, action);
  addDevicesCommand(app, action);
  addBenchCommand(app, action);
  addExportCommand(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e) == 0 ? kExitOk : kExitUsage;  // --help, --version
    // Ours (ValidationError) are complete; CLI11's own echo the arguments as typed.
    if (dynamic_cast<const CLI::ValidationError*>(&e)) return fail(command, e.what(), kExitUsage);
    return fail(command,
                shown(e.what(), 300) + " (see collviz " + command + (command.empty() ? "" : " ") +
                    "--help)",
                kExitUsage);
  }
  installInterruptHandler();  // every command, the device probe included
  try {
    return action ? action() : kExitUsage;
  } catch (const std::bad_alloc&) {
    return fail(command, "out of memory; try a smaller size", kExitFailed);
  }
}

}  // namespace collviz
