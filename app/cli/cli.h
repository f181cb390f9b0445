// The command-line side of collviz: `collviz run`, `collviz devices`, ...
// Each subcommand prints to stdout (JSON with --json) and logs to stderr.
// Exit codes: 0 ok; 1 runtime error or verification failure; 2 bad usage.
#pragma once

#include <memory>
#include <string>

#include "engine/group/hosts.h"

namespace collviz {

struct WatchOptions;  // app/cli/cli_watch.h

// What the window should open with, when the command line asks for the
// window (no subcommand, or `collviz lecture FILE` without --export).
struct WindowRequest {
  bool open = false;
  std::string lecture;  // a script checked to load
  bool presenter = false;  // open the presenter view too
  bool fullscreen = false;  // a lecture: full screen, panels hidden (--window: a window)
  std::string nccl_log;     // `collviz nccl-log FILE --window`: File → Open NCCL log… done
  std::string job;          // `collviz job FILE|DIR --window`: File → Open job traces… done
  std::string capture;      // `collviz job CAPTURE --window`: File → Open capture… done (the watch window)
  std::shared_ptr<WatchOptions> watch;  // `collviz watch --window -- …`: the program run in the watch window
  HostSpec hosts;           // `collviz --hosts a:2,b:2 …`: the Hosts field filled, the ranks there
};

bool isCliCommand(const char* arg);
// Sets the language (--lang, else the locale) for everything after it.
int runCli(int argc, char** argv, WindowRequest* window = nullptr);

}  // namespace collviz
