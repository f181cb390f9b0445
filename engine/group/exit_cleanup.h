// What must not outlive collviz when it has to exit at once (Ctrl-C or
// SIGTERM while a thread is busy verifying, formatting or writing): the rank
// workers and the probe (killed and reaped, so nothing is left running or
// re-parented) and the temporary files of writes in progress (removed, so no
// partial file is left). Whoever starts a child or a temporary registers it
// here and forgets it when done; cleanupNow() is for that last moment.
#pragma once

#include <sys/types.h>

#include <string>

namespace collviz {

void registerChild(pid_t pid);
void forgetChild(pid_t pid);
void registerTempFile(const std::string& path);
void forgetTempFile(const std::string& path);
// A folder made for files in progress (a deck's): removed after the files,
// where it is then empty.
void registerTempDir(const std::string& path);
void forgetTempDir(const std::string& path);
// A folder removed with everything in it (an MPI job's files, made by the
// job's processes, which cleanupNow() has killed first).
void registerTempTree(const std::string& path);
void forgetTempTree(const std::string& path);

// Removes `path` and everything under it without following a link; true
// when it is gone.
bool removeTree(const std::string& path);

// Kill (SIGKILL) and reap every registered child, unlink every registered
// temporary file. Safe to call from any thread, concurrently with the owners.
void cleanupNow();

}  // namespace collviz
