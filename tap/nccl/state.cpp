// The NCCL tap's life: off until the process's first communicator is made
// (ncclCommInitRank, ...Config or ...All returned ncclSuccess or, a
// non-blocking one, ncclInProgress), then the capture is opened from the
// environment, as the MPI tap's:
//   COLLVIZ_TAP_OUT     the capture folder (unset: the tap records nothing)
//   COLLVIZ_TAP_BYTES   bytes kept of each buffer, 0..1048576 (default 256)
//   COLLVIZ_TAP_MAX_MB  the file's size cap in MiB, 1..1048576 (default 4096)
// A value out of range takes the default and leaves a note in the capture.
// The first communicator is this process's "world": its rank is the
// header's world_rank (the reader needs one), its size world_size, and the
// members of every later communicator are given as ranks of it.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "tap/nccl/tap_nccl.h"

namespace collviz::tap::nccl {

// The profiler plugin's part (profiler*.cpp) where it is built into the
// library; weak, so the tap stands without it.
__attribute__((weak)) const char* profilerSetup();
__attribute__((weak)) const char* profilerAfterInit(int ncclVersion);

CaptureWriter g_writer;

namespace {

enum State : int { kIdle = 0, kOn = 1, kOff = 2 };
std::atomic<int> g_state{kIdle};
std::mutex g_start;
int g_world_rank = -1;
const char* g_profiler_note = nullptr;  // profilerSetup's, said once the capture is open
bool g_after_init_said = false;

int ncclVersion() {
  using F = ncclResult_t (*)(int*);
  static F f = reinterpret_cast<F>(nextNccl("ncclGetVersion", nullptr));
  int v = 0;
  return f && f(&v) == ncclSuccess ? v : 0;
}

}  // namespace

CaptureWriter* profilerWriter() { return g_state.load(std::memory_order_acquire) == kOn ? &g_writer : nullptr; }

bool recording() { return g_state.load(std::memory_order_acquire) == kOn; }

bool wanted() {
  static const bool w = [] {
    const char* d = std::getenv("COLLVIZ_TAP_OUT");
    return d && *d;
  }();
  return w;
}

int worldRank() { return g_world_rank; }

void note(NoteCode code, const char* text) { g_writer.note(code, text); }

void beforeFirstInit() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (wanted() && profilerSetup) {
      const char* why = profilerSetup();
      if (why && *why) g_profiler_note = why;
    }
  });
}

void start(int rank, int nranks) {
  std::lock_guard<std::mutex> lock(g_start);
  if (g_state.load(std::memory_order_acquire) != kIdle) {
    // A later communicator: what the profiler plugin's part made of it, once.
    if (recording() && !g_after_init_said && profilerAfterInit) {
      g_after_init_said = true;
      if (const char* why = profilerAfterInit(ncclVersion()); why && *why) note(NoteCode::nccl_profiler, why);
    }
    return;
  }
  g_world_rank = rank;
  if (!wanted()) return g_state.store(kOff, std::memory_order_release);
  char complaint[2][200];
  WriterOptions o;
  optionsFromEnv(Library::nccl, &o, complaint);
  if (!g_writer.open(o)) return g_state.store(kOff, std::memory_order_release);
  FileHeader* h = g_writer.header();
  h->world_rank = rank;
  h->world_size = nranks;
  const int v = ncclVersion();
  if (v >= 10000)
    std::snprintf(h->library_version, sizeof h->library_version, "NCCL %d.%d.%d", v / 10000, v / 100 % 100, v % 100);
  else if (v > 0)
    std::snprintf(h->library_version, sizeof h->library_version, "NCCL %d.%d.%d", v / 1000, v / 100 % 10, v % 100);
  g_state.store(kOn, std::memory_order_release);
  char text[160];
  std::snprintf(text, sizeof text, "NCCL tap: rank %d of %d in the first communicator", rank, nranks);
  note(NoteCode::init, text);
  for (const auto& c : complaint)
    if (c[0]) note(NoteCode::text, c);
  if (!cuda().ok) note(NoteCode::text, "no CUDA runtime found in the process: no bytes kept, times are enqueue times");
  if (g_profiler_note) note(NoteCode::nccl_profiler, g_profiler_note);
  if (v > 0 && v < 22800)
    note(NoteCode::text, "NCCL older than 2.28: ncclAlltoAll, ncclGather and ncclScatter are absent from it");
  if (profilerAfterInit) {
    g_after_init_said = true;
    if (const char* why = profilerAfterInit(v); why && *why) note(NoteCode::nccl_profiler, why);
  }
}

}  // namespace collviz::tap::nccl
