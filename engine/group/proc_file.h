// A file under /proc/PID read whole, for the engine's watch of its ranks.
// A process can exit between the open and the read; the read then fails
// with ESRCH, and std::ifstream read through istreambuf_iterator throws
// ("basic_filebuf::underflow error reading the file: No such process").
// These return what could be read ("" when nothing), never throw.
#pragma once

#include <sys/types.h>

#include <string>

namespace collviz {

// /proc/PID/NAME ("stat", "cmdline", "task/TID/schedstat", ...).
std::string readProcFile(pid_t pid, const std::string& name);

// Everything left in an open descriptor; stops at the first error.
std::string readAllFd(int fd);

}  // namespace collviz
