// Completion of the calls: each call's copies end with a CUDA event of a
// slot (pinned bytes and an event, reused); a thread of the tap's own asks
// the pending events with cudaEventQuery (never a synchronisation) every
// millisecond while any is pending, and every tap call asks the oldest few
// first; a completed one has its kept bytes copied from the slot into its
// record, then its t_exit set (stored last): the time the tap saw the op and
// its copies finished, within that millisecond.
//
// At exit (atexit, registered after the CUDA runtime's own start, so run
// before its teardown) the pending events are asked for up to 100 ms more.
// Everything here is allocated once and never freed: the thread may still
// run while the process's statics are destroyed.
#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <new>
#include <thread>

#include "tap/nccl/tap_nccl.h"

namespace collviz::tap::nccl {
namespace {

struct Pending {
  cudaStream_t stream;
  CallRecord* rec;
  std::uint8_t *in_at, *out_at;
  std::uint32_t in_n, out_n;
  Slot* slot;
  std::int32_t status;
  bool failed;
};

constexpr int kMaxDevices = 64;
constexpr std::uint32_t kChunk = 32;              // slots made at once
constexpr std::uint32_t kMaxSlots = 8192;         // pending calls with bytes at most
constexpr std::uint64_t kMaxPinned = 256ull << 20;

std::mutex& g_slots_mu = *new std::mutex;
Slot* g_free[kMaxDevices] = {};
std::uint32_t g_slots = 0;
std::uint64_t g_pinned = 0;

std::mutex& g_mu = *new std::mutex;  // the pending list
std::condition_variable& g_cv = *new std::condition_variable;
std::deque<Pending>& g_list = *new std::deque<Pending>;
bool g_thread = false, g_stop = false;

void finish(CallRecord* rec, std::uint8_t* in_at, std::uint8_t* out_at, const std::uint8_t* in, const std::uint8_t* out,
            std::uint32_t in_n, std::uint32_t out_n, std::int32_t status, std::uint16_t flags) {
  if (in_n) std::memcpy(in_at, in, in_n);
  if (out_n) std::memcpy(out_at, out, out_n);
  rec->in_kept = in_n;
  rec->out_kept = out_n;
  rec->status = status;
  rec->head.flags |= flags;
  const std::uint64_t t = nowNs();
  rec->t_exit.store(t, std::memory_order_release);
  g_writer.touch(t);
}

// Asks one pending event; true when its record is finished.
bool check(Pending& p) {
  const Cuda& c = cuda();
  const cudaError_t e = c.eventQuery(p.slot->event);
  if (e == cudaErrorNotReady) return false;
  if (e != cudaSuccess) c.getLastError(), p.failed = true;
  if (p.failed)
    finish(p.rec, p.in_at, p.out_at, nullptr, nullptr, 0, 0, p.status, kCudaCopyFailed);
  else
    finish(p.rec, p.in_at, p.out_at, p.slot->host, p.slot->host + slotHalf(), p.in_n, p.out_n, p.status, 0);
  giveSlot(p.slot);
  return true;
}

// Under g_mu: asks up to `most` pending events, oldest first. A stream runs
// its work in order, so after one of its events is not ready, its later
// ones are not asked (a scan asks about as many events as there are
// streams, not as there are calls in flight).
// At most 8 entries are looked at per event asked: a long list (calls
// queued far ahead of the device) costs a call no more than a short one.
void scan(std::size_t most) {
  cudaStream_t blocked[8];
  std::size_t nblocked = 0, asked = 0, seen = 0;
  for (auto it = g_list.begin(); it != g_list.end() && asked < most && seen < 8 * most; ++seen) {
    if (std::find(blocked, blocked + nblocked, it->stream) != blocked + nblocked) {
      ++it;
      continue;
    }
    ++asked;
    if (check(*it)) {
      it = g_list.erase(it);
    } else {
      if (nblocked < 8) blocked[nblocked++] = it->stream;
      ++it;
    }
  }
}

void loop() {
  std::unique_lock<std::mutex> lock(g_mu);
  while (!g_stop) {
    if (g_list.empty()) {
      g_cv.wait(lock);
      continue;
    }
    scan(64);
    g_cv.wait_for(lock, std::chrono::milliseconds(1));
  }
}

void atExit() {
  for (int i = 0; i < 100; ++i) {
    if (g_mu.try_lock()) {
      g_stop = true;
      scan(g_list.size());
      const bool done = g_list.empty();
      g_cv.notify_all();
      g_mu.unlock();
      if (done) return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// A forked child has no poll thread, and its CUDA is not its parent's.
void inChild() {
  new (&g_mu) std::mutex;
  g_list.clear();
  g_thread = false;
}

}  // namespace

std::uint32_t slotHalf() { return pad8(g_writer.bytesLimit()); }

Slot* takeSlot(int device) {
  const Cuda& c = cuda();
  if (device < 0 && c.getDevice(&device) != cudaSuccess) return c.getLastError(), nullptr;
  if (device < 0 || device >= kMaxDevices) return nullptr;
  std::lock_guard<std::mutex> lock(g_slots_mu);
  if (!g_free[device]) {
    const std::uint64_t each = 2ull * slotHalf();
    if (g_slots + kChunk > kMaxSlots || g_pinned + each * kChunk > kMaxPinned) return nullptr;
    std::uint8_t* host = nullptr;
    if (each && c.hostAlloc(reinterpret_cast<void**>(&host), each * kChunk, cudaHostAllocPortable) != cudaSuccess)
      return c.getLastError(), nullptr;
    for (std::uint32_t i = 0; i < kChunk; ++i) {
      auto* s = new (std::nothrow) Slot;
      if (!s) break;
      if (c.eventCreateWithFlags(&s->event, cudaEventDisableTiming) != cudaSuccess) {
        c.getLastError();
        delete s;
        break;
      }
      s->host = host ? host + i * each : nullptr;
      s->device = device;
      s->next = g_free[device];
      g_free[device] = s;
      ++g_slots;
    }
    g_pinned += each * kChunk;  // a chunk is never freed
    if (!g_free[device]) return nullptr;
  }
  Slot* s = g_free[device];
  g_free[device] = s->next;
  return s;
}

void giveSlot(Slot* s) {
  std::lock_guard<std::mutex> lock(g_slots_mu);
  s->next = g_free[s->device];
  g_free[s->device] = s;
}

void pending(const Active& a, std::int32_t status, bool copy_failed) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_thread) {
    g_thread = true;
    g_stop = false;
    static std::once_flag once;
    std::call_once(once, [] {
      pthread_atfork(nullptr, nullptr, inChild);
      std::atexit(atExit);
    });
    try {
      std::thread(loop).detach();
    } catch (...) {
      g_thread = false;  // polled by the calls alone
    }
  }
  const bool was_empty = g_list.empty();
  try {
    g_list.push_back(Pending{a.stream, a.rec, a.in_at, a.out_at, a.in_n, a.out_n, a.slot, status, copy_failed});
  } catch (const std::bad_alloc&) {
    return finish(a.rec, a.in_at, a.out_at, nullptr, nullptr, 0, 0, status, kBytesLeftOut);  // the slot is lost
  }
  if (was_empty) g_cv.notify_one();
}

void finishNow(Active& a, std::int32_t status, std::uint16_t flags) {
  if (!a.rec) return;
  finish(a.rec, a.in_at, a.out_at, nullptr, nullptr, 0, 0, status, flags);
  if (a.slot) giveSlot(a.slot), a.slot = nullptr;
}

void pollSome() {
  if (!g_mu.try_lock()) return;
  if (!g_list.empty()) scan(2);
  g_mu.unlock();
}

}  // namespace collviz::tap::nccl
