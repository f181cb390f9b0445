#include "engine/worker/gloo/idle_loop.h"

#include <dlfcn.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

namespace collviz {
namespace {

constexpr uint64_t kWakeTag = 0xC0111D1E0000C0DEull;  // our eventfd's event

std::atomic<bool> g_idle{false};
std::mutex g_mu;  // g_idle's changes to true/false with the writes; the wakers
struct Waker {
  int epfd;
  int evfd;
};
std::vector<Waker> g_wakers;  // under g_mu: one eventfd per epoll set seen

// Whether the code at `site` (a return address) is in libgloo; a few call
// sites cached (Gloo has one, Open MPI's event loop another).
bool fromGloo(void* site) {
  struct Entry {
    std::atomic<void*> site{nullptr};
    std::atomic<bool> gloo{false};
  };
  static Entry cache[8];
  for (Entry& e : cache)
    if (e.site.load(std::memory_order_acquire) == site) return e.gloo.load(std::memory_order_relaxed);
  Dl_info info{};
  const bool gloo = ::dladdr(site, &info) != 0 && info.dli_fname &&
                    std::strstr(info.dli_fname, "libgloo") != nullptr;
  for (Entry& e : cache) {
    void* empty = nullptr;
    e.gloo.store(gloo, std::memory_order_relaxed);
    if (e.site.compare_exchange_strong(empty, site, std::memory_order_acq_rel)) break;
  }
  return gloo;
}

// The eventfd added to `epfd` (created the first time; added again each
// time, EEXIST when it is there: an epoll fd number may be reused by a new
// Loop). -1 when the rank is no longer idle (then the caller ticks as Gloo
// asked) or when the kernel refuses.
int wakerIfIdle(int epfd) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_idle.load(std::memory_order_relaxed)) return -1;
  int evfd = -1;
  for (const Waker& w : g_wakers)
    if (w.epfd == epfd) evfd = w.evfd;
  if (evfd < 0) {
    evfd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (evfd < 0) return -1;
    g_wakers.push_back({epfd, evfd});
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kWakeTag;
  if (::epoll_ctl(epfd, EPOLL_CTL_ADD, evfd, &ev) != 0 && errno != EEXIST) return -1;
  return evfd;
}

// Our eventfd's events out of `events` (drained); the others keep their order.
int withoutWakes(epoll_event* events, int n) {
  int kept = 0;
  for (int i = 0; i < n; ++i) {
    if (events[i].data.u64 == kWakeTag) {
      std::lock_guard<std::mutex> lock(g_mu);
      uint64_t count = 0;
      for (const Waker& w : g_wakers)
        while (::read(w.evfd, &count, sizeof count) == sizeof count) {}
      continue;
    }
    events[kept++] = events[i];
  }
  return kept;
}

}  // namespace

void glooLoopIdle(bool idle) {
  std::lock_guard<std::mutex> lock(g_mu);
  const bool was = g_idle.exchange(idle);
  if (was && !idle) {
    const uint64_t one = 1;
    for (const Waker& w : g_wakers)
      while (::write(w.evfd, &one, sizeof one) < 0 && errno == EINTR) {}
  }
}

}  // namespace collviz

// The executable's epoll_wait: libgloo's calls come here (see idle_loop.h).
extern "C" int epoll_wait(int epfd, struct epoll_event* events, int maxevents, int timeout) {
  using namespace collviz;
  if (!fromGloo(__builtin_return_address(0)))
    return ::epoll_pwait(epfd, events, maxevents, timeout, nullptr);
  int n;
  if (timeout != 0 && g_idle.load(std::memory_order_acquire) && wakerIfIdle(epfd) >= 0)
    n = ::epoll_pwait(epfd, events, maxevents, -1, nullptr);
  else
    n = ::epoll_pwait(epfd, events, maxevents, timeout, nullptr);
  return n > 0 ? withoutWakes(events, n) : n;
}
