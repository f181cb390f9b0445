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
// A mark for the processes of one job (issue 55): "COLLVIZ_JOB_MARK=" and
// 128 random bits, set in the environment of the launcher (mpirun) that
// starts the job. Whatever it starts inherits it: a launcher agent, which
// Open MPI puts in a process group of its own and which is left to PID 1
// when mpirun ends, and the agent's children, so they can be found and
// ended.
std::string newJobMark();
// A child whose environment carries `mark`: cleanupNow() ends every process
// that carries it too.
void registerMarkedChild(pid_t pid, const std::string& mark);
void forgetChild(pid_t pid);

// Ends (SIGKILL) every process of ours, but this one, that carries `mark`
// in its environment; how many.
int killMarked(const std::string& mark);

// Reaps the child `pid` once it has ended, ending first every process that
// carries its mark (registerMarkedChild): nothing it started outlives it.
// `block`: wait for it to end. Returns `pid` when reaped (its wait status in
// `status`), 0 while it runs, -1 on an error.
pid_t reapJob(pid_t pid, int* status, bool block);
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
