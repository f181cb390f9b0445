#include "app/cli/cli.h"

#include <cstdio>
#include <cstring>
#include <functional>

#include "app/cli/cli_commands.h"
#include "app/cli/cli_common.h"
#include "app/lang/lang.h"

namespace collviz {

bool isCliCommand(const char* arg) {
  for (const char* c : {"run", "devices", "export", "bench", "algos", "lecture", "--lang", "--help", "-h", "--version"})
    if (std::strcmp(arg, c) == 0) return true;
  return false;
}

int runCli(int argc, char** argv, WindowRequest* window) {
  CLI::App app{"collviz: see what collective communication really does.\n"
               "With no subcommand, opens the window."};
  app.set_version_flag("--version", "collviz 0.1.0");
  app.require_subcommand(window ? 0 : 1, 1);
  // --lang anywhere on the line (before or after the subcommand).
  app.fallthrough();
  std::string lang;
  app.add_option("--lang", lang,
                 "Language of what people read: en or zh (default: from LANG; JSON and table keys stay "
                 "English)");
  std::function<int()> action;
  addRunCommand(app, action);
  addDevicesCommand(app, action);
  addBenchCommand(app, action);
  addExportCommand(app, action);
  addAlgosCommand(app, action);
  addLectureCommand(app, action, window);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }
  setLanguage(langFromLocale());
  if (!lang.empty()) {
    auto l = parseLang(lang);
    if (!l) {
      std::fprintf(stderr, "collviz: --lang %s is not a language; allowed: %s\n", lang.c_str(),
                   std::string(kAllowedLangs).c_str());
      return kExitUsage;
    }
    setLanguage(*l);
  }
  if (!action && window && app.get_subcommands().empty()) window->open = true;
  return action ? action() : kExitUsage;
}

}  // namespace collviz
