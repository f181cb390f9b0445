// The Gloo communicator: one rank of a Gloo context over TCP on 127.0.0.1.
// Each op uses Gloo's own call; reduce_scatter uses
// gloo::ReduceScatterHalvingDoubling. Gloo has no average: avg runs sum and
// divides by N in each rank afterwards (outside the timed call), which the
// backend description says.
#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoall.h>
#include <gloo/broadcast.h>
#include <gloo/config.h>
#include <gloo/gather.h>
#include <gloo/reduce.h>
#include <gloo/reduce_scatter.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/scatter.h>
#include <gloo/transport/tcp/device.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <cstring>
#include <exception>
#include <thread>

#include "engine/dtype.h"
#include "engine/worker/gloo/reduce.h"
#include "engine/verify/poison.h"
#include "engine/worker/communicator.h"
#include "engine/worker/gloo/idle_loop.h"
#include "engine/worker/gloo/rounds.h"
#include "engine/worker/huge_heap.h"
#include "engine/worker/op_binding.h"

namespace collviz {
namespace {

// gloo::rendezvous::Store on top of the control channel.
class StoreAdapter : public gloo::rendezvous::Store {
 public:
  StoreAdapter(ControlStore& s, int timeout_ms) : s_(s), timeout_ms_(timeout_ms) {}
  void set(const std::string& key, const std::vector<char>& data) override {
    if (Status st = s_.set(key, data); !st) throw std::runtime_error(st.message());
  }
  std::vector<char> get(const std::string& key) override {
    auto v = s_.get(key, timeout_ms_);
    if (!v) throw std::runtime_error(v.error().message);
    return *v;
  }
  void wait(const std::vector<std::string>& keys) override {
    for (const auto& k : keys) get(k);
  }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds&) override {
    wait(keys);
  }

 private:
  ControlStore& s_;
  int timeout_ms_;
};

template <typename T>
const gloo::ReductionFunction<T>* reductionFunction(RedOp r) {
  switch (r) {
    case RedOp::prod: return gloo::ReductionFunction<T>::product;
    case RedOp::min: return gloo::ReductionFunction<T>::min;
    case RedOp::max: return gloo::ReductionFunction<T>::max;
    case RedOp::sum:
    case RedOp::avg: return gloo::ReductionFunction<T>::sum;
  }
  return gloo::ReductionFunction<T>::sum;
}

class GlooCommunicator : public Communicator {
 public:
  Status init(int rank, int size, ControlStore& store, int timeout_ms) override {
    rank_ = rank;
    size_ = size;
    // Gloo's calls allocate their scratch each time and free it after: kept
    // in the heap, in huge pages (worker/huge_heap.h).
    (void)keepScratchInHugeHeap(std::size_t(64) << 20);
    timeout_ = std::chrono::milliseconds(timeout_ms);
    try {
      // Across hosts (issue 33): the address this rank reaches the engine
      // from, set by collviz-rank (COLLVIZ_GLOO_ADDRESS); else loopback.
      const char* across = std::getenv("COLLVIZ_GLOO_ADDRESS");
      address_ = across && *across ? across : "127.0.0.1";
      gloo::transport::tcp::attr attr(address_.c_str());
      device_ = gloo::transport::tcp::CreateDevice(attr);
      auto ctx = std::make_shared<gloo::rendezvous::Context>(rank, size);
      ctx->setTimeout(timeout_);
      StoreAdapter adapter(store, timeout_ms);
      ctx->connectFullMesh(adapter, device_);
      ctx_ = ctx;
    } catch (const std::exception& e) {
      return Error{say("gloo: connecting rank {0}: {1}", rank, e.what())};
    }
    return {};
  }

  Result<OpTiming> run(const OpSpec& s, const void* in, void* out,
                       const RunOptions& o) override {
    try {
      if (o.timeout_ms > 0) {  // a big op may take longer than joining did
        timeout_ = std::chrono::milliseconds(o.timeout_ms);
        ctx_->setTimeout(timeout_);
      }
      switch (s.dtype) {
        case DType::f32: return runTyped<float>(s, in, out, o);
        case DType::f64: return runTyped<double>(s, in, out, o);
        case DType::f16: return runTyped<gloo::float16>(s, in, out, o);
        case DType::i32: return runTyped<int32_t>(s, in, out, o);
        case DType::i64: return runTyped<int64_t>(s, in, out, o);
        case DType::u8: return runTyped<uint8_t>(s, in, out, o);
        case DType::bf16: break;
      }
      return Error{say("dtype {0} is not supported by gloo", name(s.dtype))};
    } catch (const std::exception& e) {
      return Error{say("gloo {0} on rank {1}: {2}", name(s.op), rank_, e.what())};
    }
  }

  Result<RoundsTiming> runRounds(const algo::Schedule& s, int from, int to, const void* in,
                                 void* work, const RunOptions& o) override {
    if (o.timeout_ms > 0) {  // the rounds' own deadline, as run() takes the op's
      timeout_ = std::chrono::milliseconds(o.timeout_ms);
      ctx_->setTimeout(timeout_);
    }
    return runGlooRounds(ctx_, timeout_, s, from, to, in, work, o, round_scratch_);
  }

  // Gloo's loop thread sleeps while the rank waits (worker/gloo/idle_loop.h).
  void idle(bool waiting) override { glooLoopIdle(waiting); }

  BackendInfo describe() const override {
    BackendInfo b;
    b.name = "gloo";
    b.version = std::to_string(GLOO_VERSION_MAJOR) + "." + std::to_string(GLOO_VERSION_MINOR) +
                "." + std::to_string(GLOO_VERSION_PATCH);
    b.devices = cpuDevicesLine(false);  // the CPUs this rank may use
    b.transport = address_ == "127.0.0.1" ? say("tcp on 127.0.0.1 (loopback), full mesh")
                                          : say("tcp across hosts (rank 0 on {0}), full mesh", address_);
    b.notes = joined({say("reduce_scatter: gloo::ReduceScatterHalvingDoubling on a scratch copy of the input"),
                      say("avg: Gloo has no average, collviz runs sum and divides by N in each rank after the call"),
                      say("bf16: not supported by Gloo")});
    return b;
  }

  std::string address_ = "127.0.0.1";

 public:
  BackendCaps caps() const override {
    BackendCaps c;
    c.name = "gloo";
    c.dtypes = {DType::f32, DType::f64, DType::f16, DType::i32, DType::i64, DType::u8};
    c.redops = {RedOp::sum, RedOp::prod, RedOp::min, RedOp::max, RedOp::avg};
    return c;
  }

 private:
  template <typename T>
  Result<OpTiming> runTyped(const OpSpec& s, const void* in_v, void* out_v,
                            const RunOptions& o) {
    const std::size_t e = std::size_t(s.elems), n = std::size_t(s.ranks);
    T* in = const_cast<T*>(static_cast<const T*>(in_v));
    T* out = static_cast<T*>(out_v);
    // reduce needs an output everywhere; reduce_scatter works in place.
    if (s.op == Op::reduce && !out) {
      scratch_.resize(e * sizeof(T));
      out = reinterpret_cast<T*>(scratch_.data());
    }
    std::unique_ptr<gloo::ReduceScatterHalvingDoubling<T>> rs;
    T* rs_buf = nullptr;
    if (s.op == Op::reduce_scatter) {
      scratch_.resize(n * e * sizeof(T));
      rs_buf = reinterpret_cast<T*>(scratch_.data());
      rs = std::make_unique<gloo::ReduceScatterHalvingDoubling<T>>(
          ctx_, std::vector<T*>{rs_buf}, int(n * e), std::vector<int>(n, int(e)),
          reductionFunction<T>(s.redop));
    }
    double total_us = 0;
    const int last = o.warmup + o.iters - 1;
    OpTiming timing;
    for (int it = 0; it <= last; ++it) {
      if (it == o.warmup) timing.warm_end_at_us = steadyMicros();
      if (rs) std::memcpy(static_cast<void*>(rs_buf), in, n * e * sizeof(T));
      // The checked output must come from the last call, not an earlier one.
      if (it == last && out_v) poisonBytes(out_v, outputBytes(s, rank_), s.dtype);
      const auto t0 = std::chrono::steady_clock::now();
      if (it == o.warmup) timing.timed_begin_at_us = steadyMicros();
      runOnce<T>(s, in, out, rs.get());
      const auto t1 = std::chrono::steady_clock::now();
      if (it >= o.warmup) total_us += std::chrono::duration<double, std::micro>(t1 - t0).count();
    }
    timing.timed_end_at_us = steadyMicros();
    if (rs) std::memcpy(static_cast<void*>(out), rs_buf, e * sizeof(T));
    if (reduces(s.op) && s.redop == RedOp::avg && out_v) divideBy(s, out_v);
    timing.op_us = o.iters > 0 ? total_us / o.iters : 0.0;
    return timing;
  }

  template <typename T>
  void runOnce(const OpSpec& s, T* in, T* out, gloo::ReduceScatterHalvingDoubling<T>* rs) {
    const std::size_t e = std::size_t(s.elems), n = std::size_t(s.ranks);
    switch (s.op) {
      case Op::broadcast: {
        gloo::BroadcastOptions opts(ctx_);
        if (rank_ == s.root) opts.setInput(in, n * e);
        opts.setOutput(out, n * e);
        opts.setRoot(s.root);
        opts.setTimeout(timeout_);
        gloo::broadcast(opts);
        break;
      }
      case Op::scatter: {
        gloo::ScatterOptions opts(ctx_);
        if (rank_ == s.root) {
          std::vector<T*> ptrs(n);
          for (std::size_t i = 0; i < n; ++i) ptrs[i] = in + i * e;
          opts.setInputs(ptrs, e);
        }
        opts.setOutput(out, e);
        opts.setRoot(s.root);
        opts.setTimeout(timeout_);
        gloo::scatter(opts);
        break;
      }
      case Op::gather: {
        gloo::GatherOptions opts(ctx_);
        opts.setInput(in, e);
        if (rank_ == s.root) opts.setOutput(out, n * e);
        opts.setRoot(s.root);
        opts.setTimeout(timeout_);
        gloo::gather(opts);
        break;
      }
      case Op::reduce: {
        gloo::ReduceOptions opts(ctx_);
        opts.setInput(in, e);
        opts.setOutput(out, e);
        opts.setRoot(s.root);
        opts.setReduceFunction(glooReduceFn<T>(s.redop));
        opts.setTimeout(timeout_);
        gloo::reduce(opts);
        break;
      }
      case Op::all_gather: {
        gloo::AllgatherOptions opts(ctx_);
        opts.setInput(in, e);
        opts.setOutput(out, n * e);
        opts.setTimeout(timeout_);
        gloo::allgather(opts);
        break;
      }
      case Op::reduce_scatter: rs->run(); break;
      case Op::all_reduce: {
        gloo::AllreduceOptions opts(ctx_);
        opts.setInput(in, n * e);
        opts.setOutput(out, n * e);
        opts.setReduceFunction(glooReduceFn<T>(s.redop));
        opts.setTimeout(timeout_);
        gloo::allreduce(opts);
        break;
      }
      case Op::all_to_all: {
        gloo::AlltoallOptions opts(ctx_);
        opts.setInput(in, n * e);
        opts.setOutput(out, n * e);
        opts.setTimeout(timeout_);
        gloo::alltoall(opts);
        break;
      }
    }
  }

  void divideBy(const OpSpec& s, void* out) {
    const std::size_t count = outputBytes(s, rank_) / dtypeSize(s.dtype);
    for (std::size_t i = 0; i < count; ++i)
      writeElement(out, s.dtype, i, readElement(out, s.dtype, i) / s.ranks);
  }

  int rank_ = 0, size_ = 1;
  std::chrono::milliseconds timeout_{5000};
  std::shared_ptr<gloo::transport::Device> device_;
  std::shared_ptr<gloo::Context> ctx_;
  std::vector<char> scratch_;
  std::vector<char> round_scratch_;
};

}  // namespace

std::unique_ptr<Communicator> makeGlooCommunicator() {
  return std::make_unique<GlooCommunicator>();
}

}  // namespace collviz
