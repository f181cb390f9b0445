// Communicators: a CommRecord each (CommKind::nccl), found again at every
// call by the ncclComm_t (a map under a mutex, with a per-thread cache of
// the last one; a handle reused after ncclCommDestroy is a new
// communicator). Ids are NCCL's commHash (comm_hash.h), which every member
// computes alike with no communication.
//
// Members as world ranks (ranks of the process's first communicator): the
// first communicator's are its own ranks; any later one's are learnt by the
// tap's own exchange right after it is made: a ring of ncclSend/ncclRecv
// of one int32 on a stream of the tap's own (n-1 steps, the two ring
// neighbours only, no collective: NCCL's numbering of the program's
// collectives, which the profiler plugin's records join, is untouched),
// then a synchronisation of that stream alone. Where it cannot be made (a
// non-blocking communicator, one made inside a group, no CUDA), the members
// are given as the communicator's own ranks, and a note says so.
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#include "tap/nccl/comm_hash.h"
#include "tap/nccl/tap_nccl.h"

extern "C" ncclResult_t ncclSend(const void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
extern "C" ncclResult_t ncclRecv(void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
extern "C" ncclResult_t ncclGroupStart();
extern "C" ncclResult_t ncclGroupEnd();

namespace collviz::tap::nccl {
namespace {

std::mutex g_mu;
std::unordered_map<ncclComm_t, CommInfo*>* g_comms = nullptr;  // under g_mu; never freed (threads may outlive main)
std::atomic<std::uint32_t> g_next_num{0};
std::atomic<std::uint32_t> g_generation{0};  // bumped at every destroy: the per-thread caches start again
std::uint32_t g_lazy = 0;                     // communicators first seen at a call (under g_mu)
bool g_lazy_said = false, g_members_said = false;

thread_local ncclComm_t t_last = nullptr;
thread_local CommInfo* t_last_info = nullptr;
thread_local std::uint32_t t_last_gen = ~0u;

template <typename F>
F next(const char* name, void* self) {
  return reinterpret_cast<F>(nextNccl(name, self));
}

bool ask(ncclComm_t c, int* rank, int* size, int* device) {
  using Q = ncclResult_t (*)(const ncclComm_t, int*);
  static Q count = next<Q>("ncclCommCount", nullptr), user = next<Q>("ncclCommUserRank", nullptr),
           dev = next<Q>("ncclCommCuDevice", nullptr);
  *device = -1;
  if (!count || !user || count(c, size) != ncclSuccess || user(c, rank) != ncclSuccess) return false;
  if (dev && dev(c, device) != ncclSuccess) *device = -1;
  return true;
}

void writeComm(const CommInfo& info, const std::vector<std::int32_t>& members, int color, int key,
               std::uint64_t parent) {
  CommRecord r{};
  r.head.type = std::uint8_t(RecordType::comm);
  r.head.sub = std::uint8_t(CommKind::nccl);
  r.comm = info.num;
  r.ranks = std::int32_t(members.size());
  r.my_rank = info.rank;
  r.color = color;
  r.key = key;
  r.id = info.id;
  r.parent = parent;
  r.t_ns = nowNs();
  const Part parts[2] = {{&r, sizeof r}, {members.data(), std::uint32_t(members.size() * sizeof(std::int32_t))}};
  g_writer.append(parts, 2);
}

// The exchange's device buffer and stream, made with the first communicator
// (while memory is plentiful: a member that could not take part would
// leave the others waiting in it) and kept.
std::int32_t* g_ring = nullptr;
int g_ring_n = 0, g_ring_device = -1;
cudaStream_t g_ring_stream = nullptr;

void prepareExchange(int n, int device) {
  const Cuda& c = cuda();
  if (!c.ok) return;
  int was = -1;
  if (c.getDevice(&was) != cudaSuccess) return void(c.getLastError());
  if (device >= 0 && device != was && c.setDevice(device) != cudaSuccess) return void(c.getLastError());
  const int want = n < 1024 ? 1024 : n;
  if (c.malloc(reinterpret_cast<void**>(&g_ring), std::size_t(want) * 4) == cudaSuccess &&
      c.streamCreateWithFlags(&g_ring_stream, cudaStreamNonBlocking) == cudaSuccess) {
    g_ring_n = want, g_ring_device = device >= 0 ? device : was;
  } else {
    c.getLastError();
  }
  if (device >= 0 && device != was) c.setDevice(was);
}

// The members' world ranks by the ring exchange (above); false where it
// could not be made (the program's own results are never touched: a stream,
// memory and copies of the tap's own).
bool exchange(ncclComm_t comm, int rank, int n, int device, std::vector<std::int32_t>& out) {
  const Cuda& c = cuda();
  using P2p = ncclResult_t (*)(const void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  using R = ncclResult_t (*)(void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  using G = ncclResult_t (*)();
  static P2p send = next<P2p>("ncclSend", reinterpret_cast<void*>(&::ncclSend));
  static R recv = next<R>("ncclRecv", reinterpret_cast<void*>(&::ncclRecv));
  static G gs = next<G>("ncclGroupStart", reinterpret_cast<void*>(&::ncclGroupStart));
  static G ge = next<G>("ncclGroupEnd", reinterpret_cast<void*>(&::ncclGroupEnd));
  if (n == 1) return out.assign(1, worldRank()), true;
  if (!c.ok || !send || !recv || !gs || !ge || n < 2 || n > g_ring_n || !g_ring) return false;
  if (device >= 0 && device != g_ring_device) return false;
  int was = -1;
  if (c.getDevice(&was) != cudaSuccess) return c.getLastError(), false;
  if (g_ring_device != was && c.setDevice(g_ring_device) != cudaSuccess) return c.getLastError(), false;
  std::int32_t* d = g_ring;
  cudaStream_t s = g_ring_stream;
  const std::int32_t me = worldRank();
  bool ok = c.memcpyAsync(d + rank, &me, 4, cudaMemcpyHostToDevice, s) == cudaSuccess;
  const int right = (rank + 1) % n, left = (rank + n - 1) % n;
  for (int k = 0; k < n - 1; ++k) {  // every step, whatever failed: the ring's other members count on it
    const int give = (rank - k + 2 * n) % n, take = (rank - k - 1 + 2 * n) % n;
    ok = gs() == ncclSuccess && ok;
    ok = send(d + give, 1, ncclInt32, right, comm, s) == ncclSuccess && ok;
    ok = recv(d + take, 1, ncclInt32, left, comm, s) == ncclSuccess && ok;
    ok = ge() == ncclSuccess && ok;
  }
  try {
    out.assign(std::size_t(n), -1);
  } catch (const std::bad_alloc&) {
    ok = false;
  }
  ok = c.streamSynchronize(s) == cudaSuccess && ok;  // the tap's own stream, never the program's
  ok = ok && c.memcpyAsync(out.data(), d, std::size_t(n) * 4, cudaMemcpyDeviceToHost, s) == cudaSuccess &&
       c.streamSynchronize(s) == cudaSuccess;
  if (g_ring_device != was) c.setDevice(was);
  if (!ok) c.getLastError();
  for (std::int32_t r : out) ok = ok && r >= 0;
  return ok;
}

}  // namespace

CommInfo* commInfo(ncclComm_t comm) {
  if (!recording() || !comm) return nullptr;
  const std::uint32_t gen = g_generation.load(std::memory_order_acquire);
  if (comm == t_last && gen == t_last_gen) return t_last_info;
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_comms) g_comms = new (std::nothrow) std::unordered_map<ncclComm_t, CommInfo*>;
  if (!g_comms) return g_writer.lose(Lost::no_memory), nullptr;
  CommInfo* info = nullptr;
  if (auto it = g_comms->find(comm); it != g_comms->end()) {
    info = it->second;
  } else {
    // Made where the tap did not see it (ncclCommInitRankScalable, ncclCommShrink, ...):
    // an id from its size and order, alike where every process made the same ones.
    int rank = 0, size = 0, device = -1;
    if (!ask(comm, &rank, &size, &device) || size < 1) return nullptr;
    info = new (std::nothrow) CommInfo;
    if (!info) return g_writer.lose(Lost::no_memory), nullptr;
    info->num = g_next_num.fetch_add(1, std::memory_order_relaxed);
    info->rank = rank, info->size = size, info->device = device;
    const std::uint64_t key[2] = {std::uint64_t(size), ++g_lazy};
    info->id = kLazyBit | (commHashOfId(key, sizeof key) & ~kLazyBit);
    std::vector<std::int32_t> members;
    for (int i = 0; i < size; ++i) members.push_back(i);
    writeComm(*info, members, -1, -1, 0);
    if (!g_lazy_said) {
      g_lazy_said = true;
      note(NoteCode::text, "a communicator the tap did not see made: its id is its size and order, its members "
                           "are its own ranks");
    }
    (*g_comms)[comm] = info;
  }
  t_last = comm, t_last_info = info, t_last_gen = gen;
  return info;
}

void commMade(ncclComm_t made, std::uint64_t id, std::uint64_t parent, int color, int key, bool exchanged) {
  if (!made || !wanted()) return;
  int rank = 0, size = 0, device = -1;
  if (!ask(made, &rank, &size, &device)) return;
  std::vector<std::int32_t> members;
  const bool first = worldRank() < 0;
  if (first) start(rank, size), prepareExchange(size, device);
  bool known = first;
  if (first) {
    for (int i = 0; i < size; ++i) members.push_back(i);
  } else if (exchanged) {
    known = exchange(made, rank, size, device, members);  // every member, recording or not
  }
  if (!recording()) return;
  if (!known) {
    members.clear();
    for (int i = 0; i < size; ++i) members.push_back(i);
  }
  auto* info = new (std::nothrow) CommInfo;
  if (!info) return g_writer.lose(Lost::no_memory);
  info->num = g_next_num.fetch_add(1, std::memory_order_relaxed);
  info->id = id, info->rank = rank, info->size = size, info->device = device;
  std::lock_guard<std::mutex> lock(g_mu);
  if (!known && !g_members_said) {
    g_members_said = true;
    note(NoteCode::text, "a communicator whose members the tap could not learn (non-blocking, made in a group, or "
                         "no CUDA): its members are given as its own ranks");
  }
  writeComm(*info, members, color, key, parent);
  if (Slot* warm = takeSlot(device)) giveSlot(warm);  // the device's first slots, off the calls' path
  if (!g_comms) g_comms = new (std::nothrow) std::unordered_map<ncclComm_t, CommInfo*>;
  if (g_comms) (*g_comms)[made] = info;
  g_generation.fetch_add(1, std::memory_order_acq_rel);
}

void commGone(ncclComm_t comm) {
  if (!recording() || !comm) return;
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_comms) return;
  auto it = g_comms->find(comm);
  if (it == g_comms->end()) return;
  CommFreeRecord r{};
  r.head.type = std::uint8_t(RecordType::comm_free);
  r.comm = it->second->num;
  r.t_ns = nowNs();
  const Part part{&r, sizeof r};
  g_writer.append(&part, 1);
  g_generation.fetch_add(1, std::memory_order_acq_rel);
  // The CommInfo stays: a poll or another thread may still hold it.
  g_comms->erase(it);
}

std::uint64_t splitId(ncclComm_t parent, int color) {
  CommInfo* p = commInfo(parent);
  if (!p) return 0;
  std::lock_guard<std::mutex> lock(g_mu);
  return commHashOfSplit(p->id, ++p->children, color);
}

}  // namespace collviz::tap::nccl
