// Communicators: a CommRecord each (members as world ranks, in the
// communicator's rank order), found again at every call through an MPI
// attribute of the tap's own (so a handle reused after MPI_Comm_free is a
// new communicator, and its free, from any binding, is seen by the
// attribute's delete callback). MPI_COMM_WORLD skips the lookup.
//
// Ids (tap/capture_format.h): a communicator made by a constructor on an
// intracommunicator gets ((world rank of its rank 0) + 1) << 32 | (that
// process's count of communicators made), sent by one PMPI_Bcast of the
// tap's own on the new communicator before the constructor returns (no one
// else can use it yet, so it cannot cross the program's own calls). An
// intercommunicator has no rank 0 both groups agree on, so it gets a lazy
// id without communication: kLazyBit | a hash of both groups' world ranks
// (the group holding the lower world rank first, so both sides hash alike)
// and of how many intercommunicators with these members this process has
// seen before (constructors are collective, so the members count alike).
// A communicator first seen at a call (MPI_COMM_SELF, one made by
// MPI_Comm_idup or where the tap did not see it) is "lazy": kLazyBit | a
// hash of its members; MPI_COMM_SELF's member is this process alone.
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#include "tap/mpi/tap_mpi.h"

namespace collviz::tap::mpi {
namespace {

int g_keyval = MPI_KEYVAL_INVALID;
CommInfo* g_world = nullptr;
std::atomic<std::uint32_t> g_next_num{0};
std::atomic<std::uint32_t> g_made{0};
std::mutex g_lazy;  // around a lazy registration's check-and-set (local calls only)
std::unordered_map<std::uint64_t, std::uint32_t>* g_inter_seen = nullptr;  // under g_lazy

std::uint64_t fnv(std::uint64_t h, const void* p, std::size_t n) {
  const auto* b = static_cast<const std::uint8_t*>(p);
  for (std::size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}
constexpr std::uint64_t kFnvStart = 0xcbf29ce484222325ull;

// The world ranks of `g`'s members, in its order; false without memory.
bool worldRanks(MPI_Group g, std::vector<std::int32_t>& out) {
  int n = 0;
  if (PMPI_Group_size(g, &n) != MPI_SUCCESS || n < 0) return false;
  try {
    std::vector<int> in(static_cast<std::size_t>(n)), got(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) in[std::size_t(i)] = i;
    if (n > 0 && PMPI_Group_translate_ranks(g, n, in.data(), worldGroup(), got.data()) != MPI_SUCCESS) return false;
    out.assign(got.begin(), got.end());
    return true;
  } catch (const std::bad_alloc&) {
    return false;
  }
}

bool localMembers(MPI_Comm c, std::vector<std::int32_t>& out) {
  MPI_Group g = MPI_GROUP_NULL;
  if (PMPI_Comm_group(c, &g) != MPI_SUCCESS) return false;
  const bool ok = worldRanks(g, out);
  PMPI_Group_free(&g);
  return ok;
}

bool remoteMembers(MPI_Comm c, std::vector<std::int32_t>& out) {
  MPI_Group g = MPI_GROUP_NULL;
  if (PMPI_Comm_remote_group(c, &g) != MPI_SUCCESS) return false;
  const bool ok = worldRanks(g, out);
  PMPI_Group_free(&g);
  return ok;
}

// Rank, size and kind of `c` into a new CommInfo (nullptr without memory).
CommInfo* describe(MPI_Comm c, CommKind kind) {
  auto* info = new (std::nothrow) CommInfo;
  if (!info) return g_writer.lose(Lost::no_memory), nullptr;
  int inter = 0;
  PMPI_Comm_test_inter(c, &inter);
  info->inter = inter != 0;
  PMPI_Comm_rank(c, &info->rank);
  PMPI_Comm_size(c, &info->size);
  if (info->inter) PMPI_Comm_remote_size(c, &info->remote_size);
  info->kind = kind;
  info->num = g_next_num.fetch_add(1, std::memory_order_relaxed);
  return info;
}

void writeComm(const CommInfo& info, MPI_Comm c, const std::vector<std::int32_t>& members, int color, int key,
               std::uint64_t parent) {
  char name[MPI_MAX_OBJECT_NAME] = {};
  int len = 0;
  if (PMPI_Comm_get_name(c, name, &len) != MPI_SUCCESS || len < 0) len = 0;
  name[sizeof name - 1] = '\0';
  CommRecord r{};
  r.head.type = std::uint8_t(RecordType::comm);
  r.head.sub = std::uint8_t(info.kind);
  r.head.flags = info.inter ? kCommInter : 0;
  r.comm = info.num;
  r.ranks = std::int32_t(members.size());
  r.my_rank = info.rank;
  r.color = color;
  r.key = key;
  r.name_bytes = std::uint32_t(std::strlen(name));
  r.id = info.id;
  r.parent = parent;
  r.t_ns = nowNs();
  const Part parts[3] = {{&r, sizeof r},
                         {members.data(), std::uint32_t(members.size() * sizeof(std::int32_t))},
                         {name, r.name_bytes}};
  g_writer.append(parts, 3);
}

// The lazy id of an intercommunicator (above); under g_lazy.
std::uint64_t interId(const std::vector<std::int32_t>& local, const std::vector<std::int32_t>& remote) {
  const bool local_first = !local.empty() && (remote.empty() || local[0] < remote[0]);
  const auto& a = local_first ? local : remote;
  const auto& b = local_first ? remote : local;
  std::uint64_t h = fnv(kFnvStart, a.data(), a.size() * sizeof(std::int32_t));
  h = fnv(h, "|", 1);
  h = fnv(h, b.data(), b.size() * sizeof(std::int32_t));
  std::uint32_t before = 0;
  try {
    if (!g_inter_seen) g_inter_seen = new std::unordered_map<std::uint64_t, std::uint32_t>;
    before = (*g_inter_seen)[h]++;
  } catch (const std::bad_alloc&) {
  }
  h = fnv(h, &before, sizeof before);
  return kLazyBit | (h & ~kLazyBit);
}

int deleted(MPI_Comm, int, void* attr, void*) {
  auto* info = static_cast<CommInfo*>(attr);
  if (!info) return MPI_SUCCESS;
  if (info->kind != CommKind::world && info->kind != CommKind::self) {
    CommFreeRecord r{};
    r.head.type = std::uint8_t(RecordType::comm_free);
    r.comm = info->num;
    r.t_ns = nowNs();
    const Part part{&r, sizeof r};
    g_writer.append(&part, 1);
  }
  delete info;
  return MPI_SUCCESS;
}

void attach(MPI_Comm c, CommInfo* info) {
  if (PMPI_Comm_set_attr(c, g_keyval, info) != MPI_SUCCESS) g_writer.lose(Lost::io_error);
}

}  // namespace

void commsStart() {
  // Not copied by MPI_Comm_dup (the copy is a communicator of its own).
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, deleted, &g_keyval, nullptr);
  CommInfo* w = describe(MPI_COMM_WORLD, CommKind::world);
  if (!w) return;
  w->id = kWorldId;
  std::vector<std::int32_t> members;
  try {
    members.resize(std::size_t(w->size));
  } catch (const std::bad_alloc&) {
    return g_writer.lose(Lost::no_memory);
  }
  for (int i = 0; i < w->size; ++i) members[std::size_t(i)] = i;
  writeComm(*w, MPI_COMM_WORLD, members, -1, -1, 0);
  g_world = w;  // kept for the life of the process
}

CommInfo* commInfo(MPI_Comm c) {
  if (c == MPI_COMM_WORLD && g_world) return g_world;
  if (c == MPI_COMM_NULL || g_keyval == MPI_KEYVAL_INVALID) return nullptr;
  void* v = nullptr;
  int found = 0;
  // Not a communicator: the program's own call will say so.
  if (PMPI_Comm_get_attr(c, g_keyval, &v, &found) != MPI_SUCCESS) return nullptr;
  if (found) return static_cast<CommInfo*>(v);
  // First seen here: registered without communication.
  std::lock_guard<std::mutex> lock(g_lazy);
  if (PMPI_Comm_get_attr(c, g_keyval, &v, &found) == MPI_SUCCESS && found) return static_cast<CommInfo*>(v);
  CommInfo* info = describe(c, c == MPI_COMM_SELF ? CommKind::self : CommKind::lazy);
  if (!info) return nullptr;
  std::vector<std::int32_t> members, remote;
  if (!localMembers(c, members) || (info->inter && !remoteMembers(c, remote))) {
    delete info;
    return g_writer.lose(Lost::no_memory), nullptr;
  }
  if (info->inter) {
    info->id = interId(members, remote);
  } else {
    const std::uint64_t h = fnv(kFnvStart, members.data(), members.size() * sizeof(std::int32_t));
    info->id = kLazyBit | (h & ~kLazyBit);
  }
  writeComm(*info, c, members, -1, -1, 0);
  attach(c, info);
  return info;
}

void commMade(CommKind kind, MPI_Comm parent, MPI_Comm made, int color, int key) {
  if (made == MPI_COMM_NULL || !agreesIds()) return;
  int inter = 0;
  PMPI_Comm_test_inter(made, &inter);
  std::uint64_t id = 0;
  if (!inter) {
    // Every member takes part, recording or not (tap_mpi.h: agreesIds).
    int rank = -1;
    PMPI_Comm_rank(made, &rank);
    if (rank == 0)
      id = (std::uint64_t(std::uint32_t(worldRank()) + 1) << 32) | g_made.fetch_add(1, std::memory_order_relaxed);
    if (PMPI_Bcast(&id, 1, MPI_UINT64_T, 0, made) != MPI_SUCCESS) id = 0;
  }
  if (!recording()) return;
  CommInfo* info = describe(made, kind);
  if (!info) return;
  std::vector<std::int32_t> members, remote;
  if (!localMembers(made, members) || (info->inter && !remoteMembers(made, remote))) {
    delete info;
    return g_writer.lose(Lost::no_memory);
  }
  if (info->inter || id == 0) {
    std::lock_guard<std::mutex> lock(g_lazy);
    info->id = info->inter ? interId(members, remote)
                           : kLazyBit | (fnv(kFnvStart, members.data(), members.size() * 4) & ~kLazyBit);
  } else {
    info->id = id;
  }
  const CommInfo* from = parent != MPI_COMM_NULL ? commInfo(parent) : nullptr;
  writeComm(*info, made, members, color, key, from ? from->id : 0);
  attach(made, info);
}

}  // namespace collviz::tap::mpi
