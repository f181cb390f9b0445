#include "app/cli/cli.h"

#include <cstdio>
#include <cstring>
#include <functional>
#include <system_error>

#include "app/cli/cli_commands.h"
#include "app/cli/cli_common.h"
#include "app/cli/cli_input.h"
#include "app/lang/lang.h"
#include "engine/version.h"

namespace collviz {

namespace {

constexpr const char* kCommands[] = {"run", "devices", "bench", "export", "algos", "nccl-log", "job", "lecture", "watch", "tap-path"};

bool isCommand(const char* arg) {
  for (const char* c : kCommands)
    if (std::strcmp(arg, c) == 0) return true;
  return false;
}

std::string commandList() {
  std::string out;
  for (const char* c : kCommands) out += std::string(out.empty() ? "" : ", ") + c;
  return out;
}

// The first word that is not an option (nor --lang's value): the command.
const char* firstWord(int argc, char** argv) {
  for (int i = 1; i < argc && std::strcmp(argv[i], "--") != 0; ++i) {
    bool takes_value = false;  // the options before a command that take the next word
    for (const char* o : {"--lang", "--hosts", "--hostfile", "--map-by", "--iface", "--launcher-agent"})
      takes_value = takes_value || std::strcmp(argv[i], o) == 0;
    if (takes_value) {
      ++i;
      continue;
    }
    if (argv[i][0] != '-') return argv[i];
  }
  return nullptr;
}

}  // namespace

bool isCliCommand(const char* arg) {
  if (isCommand(arg)) return true;
  for (const char* c : {"--lang", "--help", "-h", "--version"})
    if (std::strcmp(arg, c) == 0) return true;
  return false;
}

int runCli(int argc, char** argv, WindowRequest* window) {
  CLI::App app{"collviz: see what collective communication really does.\n"
               "With no subcommand, opens the window."};
  app.set_version_flag("--version", versionLine());
  app.require_subcommand(window ? 0 : 1, 1);
  // The language first, so that every message (a parse error's too) is in it.
  setLanguage(langFromLocale());
  for (int i = 1; i < argc && std::strcmp(argv[i], "--") != 0; ++i) {
    if (std::strcmp(argv[i], "--json") == 0) setJsonErrors(true);
    if (std::strcmp(argv[i], "--lang") == 0 && i + 1 < argc)
      if (auto l = parseLang(argv[i + 1])) setLanguage(*l);
  }
  const char* word = firstWord(argc, argv);
  const std::string command = word && isCommand(word) ? word : "";
  if (word && command.empty())
    return fail("", say("unknown command {0}; the commands are {1} (none: the window)", shown(word),
                        commandList()),
                kExitUsage);
  // --lang anywhere on the line (before or after the subcommand).
  app.fallthrough();
  std::string lang;
  CLI::Option* lang_given = app.add_option("--lang", lang,
                 "Language of what people read: en or zh (default: from LANG; JSON and table keys stay "
                 "English); export --format html also takes both (a page with a switch)");
  // The window's hosts (collviz --hosts a:2,b:2): the subcommands have their own.
  HostArgs window_hosts;
  addHostOptions(&app, window_hosts);
  std::function<int()> action;
  addRunCommand(app, action);
  addDevicesCommand(app, action);
  addBenchCommand(app, action);
  addExportCommand(app, action);
  addAlgosCommand(app, action);
  addNcclLogCommand(app, action, window);
  addJobCommand(app, action, window);
  addLectureCommand(app, action, window);
  addWatchCommand(app, action, window);
  addTapPathCommand(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e) == 0 ? kExitOk : kExitUsage;  // --help, --version
    // Ours (ValidationError) are complete; CLI11's own echo the arguments as typed.
    if (auto* t = dynamic_cast<const TextError*>(&e)) return fail(command, t->error, kExitUsage);
    if (dynamic_cast<const CLI::ValidationError*>(&e)) return fail(command, e.what(), kExitUsage);
    // CLI11's own message stays English (as --help does); the pointer to --help is ours.
    return fail(command,
                say("{0} (see {1})", shown(e.what(), 300),
                    "collviz " + command + (command.empty() ? "" : " ") + "--help"),
                kExitUsage);
  }
  if (lang == "both" && command == "export") {  // an HTML page with a language switch (export checks the format)
    g_lang_both = true;
    lang = "en";
  }
  if (lang_given->count() > 0) {  // --lang '' too: not a language
    auto l = parseLang(lang);
    if (!l)
      return fail(command,
                  say("--lang {0} is not a language; allowed: {1}", lang.empty() ? std::string("''") : shown(lang), kAllowedLangs),
                  kExitUsage);
    setLanguage(*l);
  }
  bool hosts_given = false;
  for (const char* o : {"--hosts", "--hostfile", "--map-by", "--iface", "--launcher-agent"})
    if (app.get_option(o)->count() > 0 && !hosts_given) {
      hosts_given = true;
      // Before a subcommand they would be lost: that command has its own.
      if (!command.empty())
        return fail(command, say("{0} before the command is the window's; give it after the command: collviz {1} {0} …", o, command),
                    kExitUsage);
    }
  if (!action && window && app.get_subcommands().empty()) {
    if (hosts_given) {
      Result<HostSpec> hosts = parseHosts(window_hosts);
      if (!hosts) return fail("", hosts.error(), kExitUsage);
      window->hosts = *hosts;
    }
    window->open = true;
    return kExitOk;
  }
  int rc = kExitUsage;
  try {
    installInterruptHandler();  // every command, the device probe included
    rc = action ? action() : kExitUsage;
  } catch (const std::bad_alloc&) {
    // job reads files (its size is theirs); the other commands run a size given.
    rc = fail(command,
              command == "job" ? say("out of memory reading the job's files: read fewer files, or allow more memory (ulimit -v)")
                               : say("out of memory; try a smaller size"),
              kExitFailed);
  } catch (const std::system_error& e) {
    // A thread that cannot start (no address space left for its stack under
    // ulimit -v) is the same shortage.
    rc = fail(command, say("out of memory ({0}); try a smaller size or allow more memory (ulimit -v)",
                           e.what()),
              kExitFailed);
  }
  return checkStdout(command, rc);
}

}  // namespace collviz
