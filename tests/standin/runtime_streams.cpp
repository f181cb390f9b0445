// The stand-in CUDA runtime's streams and events, with CUDA's ordering on
// the host: each stream is a thread that runs its queued work in order
// (copies, memsets, kernels' host arithmetic, NCCL's ops); an event record
// is a marker the stream completes when it reaches it (its time is the host
// clock then); cudaEventQuery answers cudaErrorNotReady until then;
// cudaStreamWaitEvent makes a stream wait for the marker the event's latest
// record made (none: no wait); a destroyed stream finishes its queued work
// first (CUDA releases it once the device is done).
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "tests/standin/runtime.h"

namespace collviz::standin {

using Clock = std::chrono::steady_clock;

struct Marker {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  Clock::time_point at{};
  void complete() {
    std::lock_guard<std::mutex> lock(mu);
    done = true;
    at = Clock::now();
    cv.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [this] { return done; });
  }
};

bool done(const Marker& m) {
  std::lock_guard<std::mutex> lock(const_cast<Marker&>(m).mu);
  return m.done;
}

namespace {

class Stream : public std::enable_shared_from_this<Stream> {
 public:
  Stream(int device, unsigned flags) : device(device), flags(flags) {}
  void start() {
    std::thread([self = shared_from_this()] { self->loop(); }).detach();
  }
  void push(Task t) {
    std::lock_guard<std::mutex> lock(mu_);
    q_.push_back(std::move(t));
    cv_.notify_all();
  }
  void close() {
    std::lock_guard<std::mutex> lock(mu_);
    closing_ = true;
    cv_.notify_all();
  }
  const int device;
  const unsigned flags;
  bool capturing = false;  // between cudaStreamBeginCapture and End (under g_mu)

 private:
  void loop() {
    for (;;) {
      Task t;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return closing_ || !q_.empty(); });
        if (q_.empty()) return;  // closing, nothing left
        t = std::move(q_.front());
        q_.pop_front();
      }
      t();
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Task> q_;
  bool closing_ = false;
};

struct Event {
  int device;
  unsigned flags;
  std::shared_ptr<Marker> last;  // the latest record's; null: never recorded
};

// Never destroyed: stream threads may outlive main.
std::mutex& g_mu = *new std::mutex;
std::map<const void*, std::shared_ptr<Stream>>& g_streams = *new std::map<const void*, std::shared_ptr<Stream>>;
std::map<int, std::shared_ptr<Stream>>& g_default = *new std::map<int, std::shared_ptr<Stream>>;  // per device, made on first use
std::map<const void*, std::shared_ptr<Event>>& g_events = *new std::map<const void*, std::shared_ptr<Event>>;

std::shared_ptr<Stream> lookup(cudaStream_t s) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread) {
    auto& d = g_default[currentDevice()];
    if (!d) {
      d = std::make_shared<Stream>(currentDevice(), 0u);
      d->start();
    }
    return d;
  }
  auto it = g_streams.find(s);
  return it == g_streams.end() ? nullptr : it->second;
}

std::shared_ptr<Event> event(cudaEvent_t e) {
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = g_events.find(e);
  return it == g_events.end() ? nullptr : it->second;
}

std::string handle(const void* p) {
  char b[32];
  std::snprintf(b, sizeof b, "%p", p);
  return b;
}

cudaError_t badStream(const char* call, cudaStream_t s) {
  return fail(cudaErrorInvalidResourceHandle,
              std::string(call) + ": stream " + handle(s) + " is not a live stream of this process");
}
cudaError_t badEvent(const char* call, cudaEvent_t e) {
  return fail(cudaErrorInvalidResourceHandle,
              std::string(call) + ": event " + handle(e) + " is not a live event of this process");
}

// Every stream of `device` reaches what was queued on it before this call.
void drainDevice(int device) {
  std::vector<std::shared_ptr<Stream>> all;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    for (auto& [k, s] : g_streams)
      if (s->device == device) all.push_back(s);
    if (auto it = g_default.find(device); it != g_default.end()) all.push_back(it->second);
  }
  std::vector<std::shared_ptr<Marker>> marks;
  for (auto& s : all) {
    auto m = std::make_shared<Marker>();
    s->push([m] { m->complete(); });
    marks.push_back(m);
  }
  for (auto& m : marks) m->wait();
}

}  // namespace

std::string enqueue(cudaStream_t s, Task t) {
  auto st = lookup(s);
  if (!st) return "stream " + handle(s) + " is not a live stream of this process";
  st->push(std::move(t));
  return "";
}

int streamDevice(cudaStream_t s) {
  auto st = lookup(s);
  return st ? st->device : -1;
}

std::shared_ptr<Marker> mark(cudaStream_t s) {
  auto m = std::make_shared<Marker>();
  if (auto st = lookup(s)) st->push([m] { m->complete(); });
  else m->complete();
  return m;
}

void waitFor(cudaStream_t s, std::shared_ptr<Marker> m) {
  if (auto st = lookup(s)) st->push([m] { m->wait(); });
}

void synchronizeDevice(int device) { drainDevice(device); }

namespace {
cudaError_t createEvent(cudaEvent_t* e, unsigned flags) {
  if (!e) return fail(cudaErrorInvalidValue, "cudaEventCreate: null pointer");
  const unsigned known = cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
  if (flags & ~known) return fail(cudaErrorInvalidValue, "cudaEventCreateWithFlags: unknown flags");
  auto ev = std::make_shared<Event>(Event{currentDevice(), flags, nullptr});
  std::lock_guard<std::mutex> lock(g_mu);
  g_events[ev.get()] = ev;
  *e = reinterpret_cast<cudaEvent_t>(ev.get());
  return cudaSuccess;
}
}  // namespace

}  // namespace collviz::standin

using namespace collviz::standin;

extern "C" {

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned int flags) {
  if (auto e = gate("cudaStreamCreateWithFlags")) return e;
  if (!s) return fail(cudaErrorInvalidValue, "cudaStreamCreateWithFlags: null pointer");
  if (flags & ~unsigned(cudaStreamNonBlocking))
    return fail(cudaErrorInvalidValue, "cudaStreamCreateWithFlags: unknown flags " + std::to_string(flags));
  auto st = std::make_shared<Stream>(currentDevice(), flags);
  st->start();
  std::lock_guard<std::mutex> lock(g_mu);
  g_streams[st.get()] = st;
  *s = reinterpret_cast<cudaStream_t>(st.get());
  return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t* s) { return cudaStreamCreateWithFlags(s, 0); }

cudaError_t cudaStreamDestroy(cudaStream_t s) {
  if (auto e = gate("cudaStreamDestroy")) return e;
  std::shared_ptr<Stream> st;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    auto it = g_streams.find(s);
    if (it != g_streams.end()) st = it->second, g_streams.erase(it);
  }
  if (!st) return badStream("cudaStreamDestroy", s);
  st->close();  // its thread ends once the queued work is done
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  if (auto e = gate("cudaStreamSynchronize")) return e;
  auto st = lookup(s);
  if (!st) return badStream("cudaStreamSynchronize", s);
  auto m = std::make_shared<Marker>();
  st->push([m] { m->complete(); });
  m->wait();
  return cudaSuccess;
}

// The stand-in has no graphs: between cudaStreamBeginCapture and
// cudaStreamEndCapture a stream only says it is capturing (what the NCCL
// tap asks); the work queued meanwhile runs as it is queued, and
// cudaStreamEndCapture makes no graph (cudaErrorNotSupported, said).
cudaError_t cudaStreamIsCapturing(cudaStream_t s, cudaStreamCaptureStatus* status) {
  if (auto e = gate("cudaStreamIsCapturing")) return e;
  if (!status) return fail(cudaErrorInvalidValue, "cudaStreamIsCapturing: null pointer");
  auto st = lookup(s);
  if (!st) return badStream("cudaStreamIsCapturing", s);
  std::lock_guard<std::mutex> lock(g_mu);
  *status = st->capturing ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  return cudaSuccess;
}

cudaError_t cudaStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode) {
  if (auto e = gate("cudaStreamBeginCapture")) return e;
  auto st = lookup(s);
  if (!st) return badStream("cudaStreamBeginCapture", s);
  if (s == nullptr || s == cudaStreamLegacy)
    return fail(cudaErrorStreamCaptureUnsupported, "cudaStreamBeginCapture: the legacy default stream");
  std::lock_guard<std::mutex> lock(g_mu);
  if (st->capturing) return fail(cudaErrorIllegalState, "cudaStreamBeginCapture: the stream is capturing already");
  st->capturing = true;
  return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t* graph) {
  if (auto e = gate("cudaStreamEndCapture")) return e;
  if (!graph) return fail(cudaErrorInvalidValue, "cudaStreamEndCapture: null pointer");
  *graph = nullptr;
  auto st = lookup(s);
  if (!st) return badStream("cudaStreamEndCapture", s);
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if (!st->capturing) return fail(cudaErrorIllegalState, "cudaStreamEndCapture: the stream is not capturing");
    st->capturing = false;
  }
  return fail(cudaErrorNotSupported, "cudaStreamEndCapture: the stand-in has no graphs (the captured work ran as it was queued)");
}

cudaError_t cudaDeviceSynchronize(void) {
  if (auto e = gate("cudaDeviceSynchronize")) return e;
  drainDevice(currentDevice());
  return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned int flags) {
  if (auto r = gate("cudaEventCreateWithFlags")) return r;
  return createEvent(e, flags);
}

cudaError_t cudaEventCreate(cudaEvent_t* e) {
  if (auto r = gate("cudaEventCreate")) return r;
  return createEvent(e, cudaEventDefault);
}

cudaError_t cudaEventDestroy(cudaEvent_t e) {
  if (auto r = gate("cudaEventDestroy")) return r;
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_events.erase(e)) return badEvent("cudaEventDestroy", e);
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  if (auto r = gate("cudaEventRecord")) return r;
  auto ev = event(e);
  if (!ev) return badEvent("cudaEventRecord", e);
  const int d = streamDevice(s);
  if (d < 0) return badStream("cudaEventRecord", s);
  if (d != ev->device)
    return fail(cudaErrorInvalidResourceHandle, "cudaEventRecord: the event was made on device " +
                                                    std::to_string(ev->device) + ", the stream is on device " +
                                                    std::to_string(d));
  auto m = mark(s);
  std::lock_guard<std::mutex> lock(g_mu);
  ev->last = m;
  return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t e) {
  if (auto r = gate("cudaEventQuery")) return r;
  auto ev = event(e);
  if (!ev) return badEvent("cudaEventQuery", e);
  std::shared_ptr<Marker> m;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    m = ev->last;
  }
  if (!m) return cudaSuccess;  // never recorded: CUDA answers success
  return done(*m) ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  if (auto r = gate("cudaEventSynchronize")) return r;
  auto ev = event(e);
  if (!ev) return badEvent("cudaEventSynchronize", e);
  std::shared_ptr<Marker> m;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    m = ev->last;
  }
  if (m) m->wait();
  return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t a, cudaEvent_t b) {
  if (auto r = gate("cudaEventElapsedTime")) return r;
  if (!ms) return fail(cudaErrorInvalidValue, "cudaEventElapsedTime: null pointer");
  auto ea = event(a), eb = event(b);
  if (!ea) return badEvent("cudaEventElapsedTime", a);
  if (!eb) return badEvent("cudaEventElapsedTime", b);
  if ((ea->flags | eb->flags) & cudaEventDisableTiming)
    return fail(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime: an event made with cudaEventDisableTiming");
  std::shared_ptr<Marker> ma, mb;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    ma = ea->last, mb = eb->last;
  }
  if (!ma || !mb)
    return fail(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime: an event that was never recorded");
  if (!done(*ma) || !done(*mb)) return fail(cudaErrorNotReady);
  *ms = std::chrono::duration<float, std::milli>(mb->at - ma->at).count();
  return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned int flags) {
  if (auto r = gate("cudaStreamWaitEvent")) return r;
  if (flags != 0) return fail(cudaErrorInvalidValue, "cudaStreamWaitEvent: flags must be 0 here");
  auto ev = event(e);
  if (!ev) return badEvent("cudaStreamWaitEvent", e);
  if (streamDevice(s) < 0) return badStream("cudaStreamWaitEvent", s);
  std::shared_ptr<Marker> m;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    m = ev->last;
  }
  if (m) waitFor(s, m);  // the record as of now; a later record does not count
  return cudaSuccess;
}

}  // extern "C"
