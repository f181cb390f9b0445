// The tap's life: off until MPI_Init (or Init_thread) returns, then the
// capture is opened from the environment:
//   COLLVIZ_TAP_OUT     the capture folder (unset: the tap records nothing)
//   COLLVIZ_TAP_BYTES   bytes kept of each buffer, 0..1048576 (default 256)
//   COLLVIZ_TAP_MAX_MB  the file's size cap in MiB, 1..1048576 (default 4096)
// A value out of range takes the default and leaves a note in the capture.
// MPI_Finalize is flagged when seen; nothing depends on seeing it.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "tap/mpi/tap_mpi.h"

namespace collviz::tap::mpi {

CaptureWriter g_writer;

namespace {

enum State : int { kIdle = 0, kOn = 1, kOff = 2, kDone = 3 };
std::atomic<int> g_state{kIdle};
std::mutex g_start;
bool g_agree = false;
MPI_Group g_world_group = MPI_GROUP_NULL;
int g_world_rank = -1;

const char* threadLevel(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
    default: return "unknown";
  }
}

}  // namespace

bool agreesIds() { return g_agree && g_state.load(std::memory_order_acquire) != kDone; }
MPI_Group worldGroup() { return g_world_group; }
int worldRank() { return g_world_rank; }

bool recording() {
  const int s = g_state.load(std::memory_order_acquire);
  if (s == kOn) return true;
  if (s != kIdle) return false;
  // MPI_Init went by unseen (a binding the tap does not wrap): start now.
  int init = 0, fin = 0;
  if (PMPI_Initialized(&init) != MPI_SUCCESS || !init) return false;
  if (PMPI_Finalized(&fin) != MPI_SUCCESS || fin) return false;
  started(-1, -1, false);
  return g_state.load(std::memory_order_acquire) == kOn;
}

void note(NoteCode code, const char* text) { g_writer.note(code, text); }

void started(int required, int provided, bool fortran) {
  std::lock_guard<std::mutex> lock(g_start);
  if (g_state.load(std::memory_order_acquire) != kIdle) return;
  int size = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &g_world_rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  PMPI_Comm_group(MPI_COMM_WORLD, &g_world_group);
  const char* dir = std::getenv("COLLVIZ_TAP_OUT");
  g_agree = dir && *dir;
  if (!g_agree) return g_state.store(kOff, std::memory_order_release);

  char complaint[2][200];
  WriterOptions o;
  optionsFromEnv(Library::mpi, &o, complaint);
  if (!g_writer.open(o)) return g_state.store(kOff, std::memory_order_release);

  FileHeader* h = g_writer.header();
  h->world_rank = g_world_rank;
  h->world_size = size;
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  if (PMPI_Get_library_version(version, &len) != MPI_SUCCESS) version[0] = '\0';
  version[sizeof version - 1] = '\0';
  if (char* nl = std::strchr(version, '\n')) *nl = '\0';
  std::snprintf(h->library_version, sizeof h->library_version, "%s", version);

  typesStart();
  commsStart();
  char text[160];
  if (required < 0)
    std::snprintf(text, sizeof text, "MPI initialised before the tap saw it");
  else if (provided < 0)
    std::snprintf(text, sizeof text, "MPI_Init%s", fortran ? " (Fortran)" : "");
  else
    std::snprintf(text, sizeof text, "MPI_Init_thread: required %s, provided %s%s", threadLevel(required),
                  threadLevel(provided), fortran ? " (Fortran)" : "");
  note(NoteCode::init, text);
  for (const auto& c : complaint)
    if (c[0]) note(NoteCode::text, c);
  if (!std::strstr(version, "Open MPI")) note(NoteCode::not_open_mpi, version[0] ? version : "(no version)");
  g_state.store(kOn, std::memory_order_release);
}

void finalizing() {
  if (g_state.load(std::memory_order_acquire) != kOn) return;
  note(NoteCode::finalize, "MPI_Finalize");
  g_writer.header()->finalized.store(1, std::memory_order_release);
}

void finalized() { g_state.store(kDone, std::memory_order_release); }

}  // namespace collviz::tap::mpi
