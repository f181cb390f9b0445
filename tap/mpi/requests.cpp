// Nonblocking collectives: started with their entry recorded, finished when
// Wait/Test (any form, C or Fortran) sees their request complete (its
// handle becomes MPI_REQUEST_NULL), or at MPI_Request_free (the exit is
// then the free, the output left out). The pending ones sit in a table
// keyed by the C handle, under a mutex held only for the lookup; Wait and
// Test skip it entirely while nothing is pending.
#include <mutex>
#include <new>
#include <unordered_map>

#include "tap/mpi/tap_mpi.h"

namespace collviz::tap::mpi {
namespace {

std::mutex g_mutex;
std::unordered_map<MPI_Request, Active>* g_pending = nullptr;  // under g_mutex
std::atomic<int> g_count{0};

bool take(MPI_Request req, Active* out) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_pending) return false;
  auto it = g_pending->find(req);
  if (it == g_pending->end()) return false;
  *out = it->second;
  g_pending->erase(it);
  g_count.fetch_sub(1, std::memory_order_release);
  return true;
}

}  // namespace

void pending(Active& a, int rc, MPI_Request req) {
  if (!a.rec) return;
  if (rc != MPI_SUCCESS || req == MPI_REQUEST_NULL) return end(a, rc, true);
  std::lock_guard<std::mutex> lock(g_mutex);
  try {
    if (!g_pending) g_pending = new std::unordered_map<MPI_Request, Active>;
    // A handle still in the table was completed where the tap did not see
    // it (its record keeps t_exit 0); the new call takes its place.
    auto [it, fresh] = g_pending->insert_or_assign(req, a);
    (void)it;
    if (fresh) g_count.fetch_add(1, std::memory_order_release);
  } catch (const std::bad_alloc&) {
    // Not tracked: its exit is said now, the output left out.
    g_writer.lose(Lost::no_memory);
    endFreed(a, rc);
  }
}

bool anyPending() { return g_count.load(std::memory_order_acquire) > 0; }

void completed(MPI_Request req, int rc) {
  Active a;
  if (req != MPI_REQUEST_NULL && take(req, &a)) end(a, rc, true);
}

void freed(MPI_Request req, int rc) {
  Active a;
  if (req != MPI_REQUEST_NULL && take(req, &a)) endFreed(a, rc);
}

}  // namespace collviz::tap::mpi
