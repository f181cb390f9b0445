// The profiler plugin's five functions and its exported structs
// (ncclProfiler_v5, ncclProfiler_v6), see profiler.h.
//
// NCCL calls startEvent/stopEvent for a Coll event on the thread that
// enqueues the collective, and the KernelCh events later, from its proxy
// thread, with the Coll event's handle as their parent, possibly after the
// Coll event was stopped (stopping it means enqueued, not done). So a
// collective's state lives until both its Coll event and every one of its
// nChannels KernelCh events have stopped; its record is written at the Coll
// stop and its kernel part completed in place by the last channel.
//
// Cheap and safe in someone else's process: it asks for two event types
// only; nothing is allocated while no capture is open (null handles, which
// NCCL passes back and the plugin ignores); one mutex guards all of it (a
// collective has 1 + nChannels events, on two threads: short, rare
// contention); a collective's state is taken from a free list and given
// back to it, never to the heap, so a late or extra event with a stale
// handle touches memory that is still the plugin's, never freed memory.
#include "tap/nccl/profiler.h"

#include <stdlib.h>

#include <atomic>
#include <cstring>
#include <mutex>

#include "tap/nccl/profiler_api.h"

namespace collviz::tap::nccl {
namespace {

constexpr int kMaxChannels = 64;  // NCCL's MAXCHANNELS
// Collectives a communicator keeps waiting for their KernelCh events: past
// this the oldest enqueued one is written as it is (flagged short), so a
// kernel whose channel events never come (a kind NCCL reports otherwise)
// cannot grow the plugin's memory without end. NCCL's kernel events lag
// their collectives by at most its 64-entry ring a channel.
constexpr int kMaxLive = 4096;

struct Coll;
struct Context {
  std::uint64_t comm_hash = 0;
  int rank = -1;
  Coll* live = nullptr;    // its collectives not yet done, newest first (finalize flushes them)
  Coll* oldest = nullptr;  // the list's other end
  int live_count = 0;
};

// A KernelCh event's handle: one of its collective's channel slots.
struct Channel {
  std::uint64_t type = kProfileKernelCh;  // first: a handle's kind
  Coll* coll = nullptr;
  std::uint64_t gpu_start = 0, gpu_stop = 0;
};

struct Coll {
  std::uint64_t type = kProfileColl;  // first: a handle's kind
  Context* ctx = nullptr;
  Coll *prev = nullptr, *next = nullptr;  // the context's live list, or the free list
  ProfileRecord rec;              // what is known so far
  ProfileRecord* out = nullptr;   // the record in the capture, once the Coll event stopped
  bool stopped = false;
  int done = 0;                   // channels whose KernelCh event stopped
  std::uint64_t gpu_first = 0, gpu_last = 0, host_first = 0, host_last = 0;
  Channel ch[kMaxChannels];
};

std::mutex& g_mu = *new std::mutex;  // never destroyed: the proxy thread may outlive main
Coll* g_free = nullptr;              // under g_mu, as everything below
std::atomic<bool> g_init_seen{false};
thread_local std::uint64_t t_last_hash = 0;

Coll* takeColl() {
  if (Coll* c = g_free) {
    g_free = c->next;
    return c;
  }
  return new (std::nothrow) Coll;
}

// Off its context's live list and back to the free list.
void giveBack(Coll* c) {
  if (Context* x = c->ctx) {
    if (c->prev) c->prev->next = c->next;
    else x->live = c->next;
    if (c->next) c->next->prev = c->prev;
    else x->oldest = c->prev;
    --x->live_count;
  }
  c->ctx = nullptr;
  c->out = nullptr;
  c->stopped = false;
  c->done = 0;
  c->gpu_first = c->gpu_last = c->host_first = c->host_last = 0;
  c->prev = nullptr;
  c->next = g_free;
  g_free = c;
}

Func funcOf(const char* f) {
  if (!f) return Func::none;
  static const struct {
    const char* name;
    Func func;
  } kNames[] = {{"AllReduce", Func::nccl_allreduce},       {"Broadcast", Func::nccl_broadcast},
                {"Reduce", Func::nccl_reduce},             {"AllGather", Func::nccl_allgather},
                {"ReduceScatter", Func::nccl_reducescatter}, {"AlltoAll", Func::nccl_alltoall},
                {"Gather", Func::nccl_gather},             {"Scatter", Func::nccl_scatter}};
  for (const auto& n : kNames)
    if (std::strcmp(f, n.name) == 0) return n.func;
  return Func::none;
}

void copyName(char* out, std::size_t cap, const char* s) {
  std::memset(out, 0, cap);
  if (s) std::strncpy(out, s, cap - 1);
}

// The kernel part, into the record in the capture. kernel_end
// is stored last: a reader takes the part as valid once it is set.
void writeKernel(Coll* c, bool short_of_channels) {
  ProfileRecord* r = c->out;
  if (!r) return;
  r->channels_done = std::uint8_t(c->done);
  r->kernel_start = c->host_first;
  r->kernel_gpu_ns = c->gpu_last > c->gpu_first ? c->gpu_last - c->gpu_first : 0;
  if (short_of_channels) r->head.flags |= kProfileChannelsShort;
  if (c->host_last) {
    r->kernel_end.store(c->host_last, std::memory_order_release);
    if (CaptureWriter* w = profilerWriter()) w->touch(c->host_last);
  }
}

bool finished(const Coll* c) { return c->stopped && c->done >= c->rec.channels; }

// ---- the five functions ----

ProfResult init(void** context, std::uint64_t commId, int* mask, const char*, int, int, int rank, DebugLogger) {
  g_init_seen.store(true, std::memory_order_relaxed);
  t_last_hash = commId;
  if (!context || !mask) return kInvalidArgument;
  *context = nullptr;
  // Nothing to record (COLLVIZ_TAP_OUT unset): no events at all. The
  // capture itself may open only once the communicator is made (the tap
  // opens it then), so each event asks for the writer, not init. The mask
  // is NCCL's, one for every communicator, set again at each init.
  const char* out = getenv("COLLVIZ_TAP_OUT");
  if (!out || !*out) {
    *mask = 0;
    return kSuccess;
  }
  auto* x = new (std::nothrow) Context;
  if (!x) {
    *mask = 0;
    return kSuccess;
  }
  x->comm_hash = commId;
  x->rank = rank;
  *context = x;
  *mask = int(kProfileColl | kProfileKernelCh);
  return kSuccess;
}

ProfResult startColl(Context* x, void** handle, const EventDescr* d) {
  if (!profilerWriter()) return kSuccess;  // the capture is not open (yet, or any more)
  std::lock_guard<std::mutex> lock(g_mu);
  Coll* c = takeColl();
  if (!c) return kSuccess;
  c->ctx = x;
  ProfileRecord& r = c->rec;
  std::memset(static_cast<void*>(&r), 0, sizeof r);
  r.head.type = std::uint8_t(RecordType::profile);
  r.head.sub = std::uint8_t(funcOf(d->coll.func));
  r.comm_rank = x->rank;
  r.channels = d->coll.nChannels;
  r.comm_id = x->comm_hash;
  r.seq = d->coll.seqNumber;
  r.count = d->coll.count;
  copyName(r.algo, sizeof r.algo, d->coll.algo);
  copyName(r.proto, sizeof r.proto, d->coll.proto);
  r.t_start = nowNs();
  c->prev = nullptr;
  c->next = x->live;
  if (x->live) x->live->prev = c;
  else x->oldest = c;
  x->live = c;
  // Too many waiting: the oldest enqueued one goes as it is.
  if (++x->live_count > kMaxLive && x->oldest->stopped) {
    Coll* old = x->oldest;
    writeKernel(old, true);
    giveBack(old);
  }
  *handle = c;
  return kSuccess;
}

ProfResult startChannel(void** handle, const EventDescr* d) {
  auto* c = static_cast<Coll*>(d->parentObj);
  if (!c || c->type != kProfileColl || d->kernelCh.channelId >= kMaxChannels) return kSuccess;
  std::lock_guard<std::mutex> lock(g_mu);
  if (!c->ctx) return kSuccess;  // a stale parent: its collective is done
  Channel& ch = c->ch[d->kernelCh.channelId];
  ch.coll = c;
  ch.gpu_start = d->kernelCh.pTimer;
  ch.gpu_stop = 0;
  if (!c->host_first) c->host_first = nowNs();
  if (!c->gpu_first || ch.gpu_start < c->gpu_first) c->gpu_first = ch.gpu_start;
  *handle = &ch;
  return kSuccess;
}

ProfResult startEvent(void* context, void** handle, EventDescr* d) {
  if (!handle) return kInvalidArgument;
  *handle = nullptr;
  auto* x = static_cast<Context*>(context);
  if (!x || !d) return kSuccess;
  if (d->type == kProfileColl) return startColl(x, handle, d);
  if (d->type == kProfileKernelCh) return startChannel(handle, d);
  return kSuccess;  // a type not asked for
}

// The record goes into the capture now (the writer's own short mutex,
// inside g_mu: the writer never takes g_mu).
ProfResult stopColl(Coll* c) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (!c->ctx || c->stopped) return kSuccess;
  c->stopped = true;
  c->rec.t_enqueued = nowNs();
  c->rec.kernel_end.store(0, std::memory_order_relaxed);
  if (CaptureWriter* w = profilerWriter()) {
    const Part part{&c->rec, sizeof c->rec};
    c->out = static_cast<ProfileRecord*>(w->append(&part, 1));
  }
  if (finished(c)) writeKernel(c, false), giveBack(c);
  return kSuccess;
}

ProfResult stopChannel(Channel* ch) {
  std::lock_guard<std::mutex> lock(g_mu);
  Coll* c = ch->coll;
  if (!c || !c->ctx) return kSuccess;
  ch->coll = nullptr;  // a second stop of the same handle counts once
  ++c->done;
  c->host_last = nowNs();
  if (ch->gpu_stop > c->gpu_last) c->gpu_last = ch->gpu_stop;
  if (finished(c)) writeKernel(c, false), giveBack(c);
  return kSuccess;
}

ProfResult stopEvent(void* handle) {
  if (!handle) return kSuccess;
  const std::uint64_t type = *static_cast<const std::uint64_t*>(handle);
  if (type == kProfileColl) return stopColl(static_cast<Coll*>(handle));
  if (type == kProfileKernelCh) return stopChannel(static_cast<Channel*>(handle));
  return kSuccess;
}

ProfResult recordEventState(void* handle, int state, EventStateArgs* args) {
  if (!handle || !args || state != kStateKernelChStop) return kSuccess;
  if (*static_cast<const std::uint64_t*>(handle) != kProfileKernelCh) return kSuccess;
  auto* ch = static_cast<Channel*>(handle);
  std::lock_guard<std::mutex> lock(g_mu);
  if (ch->coll) ch->gpu_stop = args->kernelCh.pTimer;
  return kSuccess;
}

// The communicator is going: its collectives still waiting for a channel
// keep what they have (flagged short), and their state goes back.
ProfResult finalize(void* context) {
  auto* x = static_cast<Context*>(context);
  if (!x) return kSuccess;
  std::lock_guard<std::mutex> lock(g_mu);
  while (Coll* c = x->live) {
    writeKernel(c, true);
    giveBack(c);
  }
  delete x;
  return kSuccess;
}

}  // namespace

std::uint64_t lastInitCommHash() { return t_last_hash; }
bool profilerInitSeen() { return g_init_seen.load(std::memory_order_relaxed); }

}  // namespace collviz::tap::nccl

// The structs NCCL looks up by name (dlsym), newest first. v6's functions
// take v6's descriptor, whose members read here are at v5's places.
extern "C" {
__attribute__((visibility("default"))) collviz::tap::nccl::Profiler ncclProfiler_v6 = {
    "collviz-tap", collviz::tap::nccl::init, collviz::tap::nccl::startEvent, collviz::tap::nccl::stopEvent,
    collviz::tap::nccl::recordEventState, collviz::tap::nccl::finalize};
__attribute__((visibility("default"))) collviz::tap::nccl::Profiler ncclProfiler_v5 = {
    "collviz-tap", collviz::tap::nccl::init, collviz::tap::nccl::startEvent, collviz::tap::nccl::stopEvent,
    collviz::tap::nccl::recordEventState, collviz::tap::nccl::finalize};
}
