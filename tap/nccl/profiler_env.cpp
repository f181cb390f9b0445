// Whether NCCL will load the tap's own profiler plugin (profiler.h):
// NCCL_PROFILER_PLUGIN, read by NCCL when its first communicator is made,
// names a library (a path, or NAME for libnccl-profiler-NAME.so; "none":
// no plugin). The tap sets it to its own path where it is unset; where the
// user set it to another plugin, that plugin stays and the tap works
// without this part (NCCL loads one profiler plugin only).
//
// The notes' texts are short codes, not sentences: the reader
// (engine/job/capture.cpp) says them in the reader's language.
//   "other NAME"   NCCL_PROFILER_PLUGIN names another plugin
//   "none"         NCCL_PROFILER_PLUGIN=none
//   "old VERSION"  NCCL older than 2.28 (NCCL's version code): it asks for
//                  profiler v4 or older, which the tap does not export
//   "not loaded"   NCCL 2.28 or newer made a communicator without calling
//                  the plugin's init
#include <dlfcn.h>
#include <stdlib.h>
#include <strings.h>

#include <cstdio>
#include <cstring>

#include "tap/nccl/profiler.h"

namespace collviz::tap::nccl {
namespace {

char g_absent[320];  // profilerSetup's note ("" where the plugin is ours)

// This library's path, as the dynamic loader opened it.
const char* ownPath() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&profilerSetup), &info) == 0 || !info.dli_fname) return nullptr;
  return info.dli_fname;
}

// Whether `name` names the library at `own` (the same file).
bool namesOwn(const char* name, const char* own) {
  if (!own || !name) return false;
  if (std::strcmp(name, own) == 0) return true;
  char a[4096], b[4096];
  return realpath(name, a) && realpath(own, b) && std::strcmp(a, b) == 0;
}

}  // namespace

const char* profilerSetup() {
  const char* own = ownPath();
  const char* set = getenv("NCCL_PROFILER_PLUGIN");
  g_absent[0] = '\0';
  if (!set || !*set) {
    if (own) setenv("NCCL_PROFILER_PLUGIN", own, 1);
    return g_absent;
  }
  if (strcasecmp(set, "none") == 0) std::snprintf(g_absent, sizeof g_absent, "none");
  else if (!namesOwn(set, own)) std::snprintf(g_absent, sizeof g_absent, "other %.300s", set);
  return g_absent;
}

const char* profilerAbsentWhy() { return g_absent; }

const char* profilerAfterInit(int ncclVersion) {
  static char why[48];
  if (profilerInitSeen() || g_absent[0]) return "";
  // NCCL_VERSION_CODE of 2.28.0: 2 * 10000 + 28 * 100.
  if (ncclVersion > 0 && ncclVersion < 22800) std::snprintf(why, sizeof why, "old %d", ncclVersion);
  else std::snprintf(why, sizeof why, "not loaded");
  return why;
}

}  // namespace collviz::tap::nccl
