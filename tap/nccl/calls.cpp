// A call's record and its bytes. At entry: the record (with room for the
// kept bytes) and, on the op's own stream, a cudaMemcpyAsync of the input's
// first bytes into pinned memory of the tap's (poll.cpp's slots), enqueued
// before the op, so it reads the input as the op will. After NCCL returned
// (inside ncclGroupStart/End: after the outermost ncclGroupEnd, which is
// when NCCL enqueues the group's ops): the output's first bytes the same
// way, then a CUDA event; the record is finished once the event completes
// (poll.cpp). Nothing here waits for the stream.
//
// Not copied: during a CUDA graph capture of the stream (kGraphCapture:
// the call only adds to a graph); where the program's own CUDA error is
// pending (a copy would clear it or be refused: kBytesLeftOut, the error
// left for the program). A copy the runtime refuses is kCudaCopyFailed and
// its error is cleared, so the program never sees it.
#include <cstdio>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#include "tap/nccl/tap_nccl.h"

namespace collviz::tap::nccl {
namespace {

thread_local int t_depth = 0;
thread_local std::vector<Active>* t_deferred = nullptr;

// Streams by a number of the file's own (CallRecord::pad), each named once in a note.
std::mutex& g_streams_mu = *new std::mutex;
auto& g_streams = *new std::unordered_map<cudaStream_t, std::uint16_t>;
thread_local cudaStream_t t_stream = nullptr;
thread_local std::uint16_t t_stream_no = 0;

std::uint16_t streamNumber(cudaStream_t s) {
  if (t_stream_no && s == t_stream) return t_stream_no;
  std::lock_guard<std::mutex> lock(g_streams_mu);
  auto it = g_streams.find(s);
  std::uint16_t n = 0;
  if (it != g_streams.end()) {
    n = it->second;
  } else {
    if (g_streams.size() >= 65535) return 0;  // 0: not numbered
    n = std::uint16_t(g_streams.size() + 1);
    g_streams.emplace(s, n);
    char text[96];
    std::snprintf(text, sizeof text, "stream %u is cudaStream_t %p", unsigned(n), static_cast<void*>(s));
    note(NoteCode::text, text);
  }
  t_stream = s, t_stream_no = n;
  return n;
}

struct TypeInfo {
  DType d;
  std::uint32_t size;
};
TypeInfo typeInfo(ncclDataType_t t) {
  static const std::uint32_t sizes[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};
  const int i = int(t);
  if (i < 0 || i >= int(sizeof sizes / sizeof sizes[0])) return {DType::unknown, 0};
  return {DType(int(DType::nccl_int8) + i), sizes[i]};
}

std::uint32_t sat32(std::uint64_t v, std::uint16_t& flags) {
  if (v > 0xffffffffull) return flags |= kSaturated, 0xffffffffu;
  return std::uint32_t(v);
}

// The comm's device current for the tap's own CUDA calls, the caller's back after.
struct OnDevice {
  const Cuda& c;
  int was = -1;
  bool switched = false;
  OnDevice(const Cuda& c, int device) : c(c) {
    if (device < 0 || c.getDevice(&was) != cudaSuccess) return;
    if (was != device) switched = c.setDevice(device) == cudaSuccess;
  }
  ~OnDevice() {
    if (switched) c.setDevice(was);
  }
};

void exitPart(Active& a, ncclResult_t rc) {
  if (!a.rec) return;
  // The record's status: NCCL's result, ncclInProgress (not an error) said as 0.
  const std::int32_t status = rc == ncclInProgress ? 0 : std::int32_t(rc);
  if (!a.copies) return finishNow(a, status, 0);
  const Cuda& c = cuda();
  OnDevice on(c, a.device);
  bool failed = a.rec->head.flags & kCudaCopyFailed;
  if (rc == ncclInProgress) {
    // A non-blocking communicator's: NCCL enqueues the op later, from a
    // thread of its own, so a copy now could come before it: the output is
    // left out, and the event marks the input's copy only.
    a.rec->head.flags |= kBytesLeftOut;
    a.out_n = 0;
  } else if (rc != ncclSuccess) {
    a.out_n = 0;  // no output copied: the slot's second half holds an earlier call's bytes
  }
  if (rc == ncclSuccess && a.out_n && !failed &&
      c.memcpyAsync(a.slot->host + slotHalf(), a.out_src, a.out_n, cudaMemcpyDeviceToHost, a.stream) != cudaSuccess) {
    c.getLastError();
    failed = true;
  }
  if (c.eventRecord(a.slot->event, a.stream) != cudaSuccess) {
    c.getLastError();
    return finishNow(a, status, kCudaCopyFailed);
  }
  pending(a, status, failed);
}

}  // namespace

Active begin(CommInfo& c, const Desc& d, cudaStream_t stream) {
  pollSome();
  Active a;
  a.stream = stream;
  a.device = c.device;
  CallRecord r{};
  r.t_enter = nowNs();
  std::uint16_t flags = d.flags;
  r.head.type = std::uint8_t(RecordType::call);
  r.head.sub = std::uint8_t(d.func);
  r.comm = c.num;
  r.seq = c.seq.fetch_add(1, std::memory_order_relaxed);
  const TypeInfo t = typeInfo(d.dtype);
  r.dtype = std::uint8_t(t.d);
  r.dtype_size = t.size;
  if (d.redop >= 0 && d.redop < int(ncclNumOps)) r.op = std::uint8_t(int(ROp::nccl_sum) + d.redop);
  else if (d.redop >= 0) r.op = std::uint8_t(ROp::user), flags |= kUserOp;  // ncclRedOpCreatePreMulSum's
  r.root = d.root;
  r.in_elems = sat32(d.in_elems, flags);
  r.out_elems = sat32(d.out_elems, flags);
  r.pad = streamNumber(stream);
  const std::uint64_t limit = g_writer.bytesLimit();
  std::uint32_t in_n = d.in ? std::uint32_t(std::min<std::uint64_t>(limit, d.in_elems * t.size)) : 0;
  std::uint32_t out_n = d.out ? std::uint32_t(std::min<std::uint64_t>(limit, d.out_elems * t.size)) : 0;
  const Cuda& cu = cuda();
  bool copies = cu.ok;
  if (copies) {
    OnDevice on(cu, a.device);
    cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    if (cu.peekAtLastError() != cudaSuccess) {
      copies = false, flags |= kBytesLeftOut;  // the program's own error: left for it to read
    } else if (cu.streamIsCapturing(stream, &st) != cudaSuccess) {
      cu.getLastError();
      copies = false, flags |= kBytesLeftOut;
    } else if (st != cudaStreamCaptureStatusNone) {
      copies = false, flags |= kGraphCapture;
    } else if (!(a.slot = takeSlot(a.device))) {
      copies = false, flags |= kBytesLeftOut;
    }
  } else if (in_n || out_n) {
    flags |= kBytesLeftOut;
  }
  if (!copies) in_n = out_n = 0;
  r.head.flags = flags;
  r.in_kept = in_n;
  r.out_kept = out_n;
  const Part parts[3] = {{&r, sizeof r}, {nullptr, in_n}, {nullptr, out_n}};
  a.rec = static_cast<CallRecord*>(g_writer.append(parts, 3));
  if (!a.rec) {
    if (a.slot) giveSlot(a.slot), a.slot = nullptr;
    return a;
  }
  a.in_at = reinterpret_cast<std::uint8_t*>(a.rec) + sizeof r;
  a.out_at = a.in_at + pad8(in_n);
  a.in_n = in_n, a.out_n = out_n;
  a.out_src = d.out;
  a.copies = copies;
  if (copies && in_n) {
    OnDevice on(cu, a.device);
    if (cu.memcpyAsync(a.slot->host, d.in, in_n, cudaMemcpyDeviceToHost, stream) != cudaSuccess) {
      cu.getLastError();
      a.rec->head.flags |= kCudaCopyFailed;
    }
  }
  return a;
}

void after(Active& a, ncclResult_t rc) {
  if (!a.rec) return;
  if (t_depth > 0 && rc == ncclSuccess) {
    if (!t_deferred) t_deferred = new (std::nothrow) std::vector<Active>;
    try {
      if (t_deferred) return t_deferred->push_back(a);
    } catch (const std::bad_alloc&) {
    }
    return finishNow(a, rc, kBytesLeftOut);
  }
  exitPart(a, rc);
}

void groupStarted() { ++t_depth; }
bool inGroup() { return t_depth > 0; }

void groupEnded(ncclResult_t rc) {
  if (t_depth > 0) --t_depth;
  if (t_depth > 0 || !t_deferred) return;
  for (Active& a : *t_deferred) exitPart(a, rc);
  t_deferred->clear();
}

}  // namespace collviz::tap::nccl
