// The command-line side of collviz: `collviz run`, `collviz devices`, ...
// Each subcommand prints to stdout (JSON with --json) and logs to stderr.
// Exit codes: 0 ok; 1 runtime error or verification failure; 2 bad usage.
#pragma once

namespace collviz {

bool isCliCommand(const char* arg);
int runCli(int argc, char** argv);

}  // namespace collviz
