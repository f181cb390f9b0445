#include "engine/worker/gloo/rounds.h"

#include <gloo/math.h>
#include <gloo/transport/unbound_buffer.h>

#include <cstring>
#include <exception>

#include "engine/dtype.h"
#include "engine/worker/gloo/reduce.h"
#include "engine/worker/round_runner.h"

namespace collviz {
namespace {

// Gloo matches a receive by (peer, slot); collviz's rounds use slots of
// their own, above the prefixes Gloo's collectives build theirs from.
constexpr uint64_t kSlotBase = uint64_t(0x7C) << 56;

using Fn = GlooReduceFn;

Fn reduceFor(DType t, RedOp r) {
  switch (t) {
    case DType::f32: return glooReduceFn<float>(r);
    case DType::f64: return glooReduceFn<double>(r);
    case DType::f16: return glooReduceFn<gloo::float16>(r);
    case DType::i32: return glooReduceFn<int32_t>(r);
    case DType::i64: return glooReduceFn<int64_t>(r);
    case DType::u8: return glooReduceFn<uint8_t>(r);
    case DType::bf16: return nullptr;
  }
  return nullptr;
}

class GlooRoundDevice : public HostRoundDevice {
 public:
  GlooRoundDevice(gloo::Context& ctx, std::chrono::milliseconds timeout, const OpSpec& s,
                  std::byte* work, std::size_t work_bytes, std::byte* scratch,
                  std::size_t scratch_bytes)
      : HostRoundDevice(s.dtype), timeout_(timeout), fn_(reduceFor(s.dtype, s.redop)) {
    work_ = {work, work_bytes, ctx.createUnboundBuffer(work, work_bytes)};
    if (scratch_bytes)
      scratch_ = {scratch, scratch_bytes, ctx.createUnboundBuffer(scratch, scratch_bytes)};
  }

  Status exchange(const std::vector<Post>& sends, const std::vector<Post>& recvs) override {
    int sent[2] = {0, 0}, received[2] = {0, 0};
    for (const Post& p : sends) {
      Buffer& b = which(p.ptr);
      b.ub->send(p.peer, kSlotBase | p.tag, std::size_t(p.ptr - b.base), p.bytes);
      ++sent[&b == &work_ ? 0 : 1];
    }
    for (const Post& p : recvs) {
      Buffer& b = which(p.ptr);
      b.ub->recv(p.peer, kSlotBase | p.tag, std::size_t(p.ptr - b.base), p.bytes);
      ++received[&b == &work_ ? 0 : 1];
    }
    Buffer* bufs[2] = {&work_, &scratch_};
    for (int i = 0; i < 2; ++i) {
      for (int k = 0; k < received[i]; ++k)
        if (!bufs[i]->ub->waitRecv(timeout_)) return Error{say("a receive was aborted")};
      for (int k = 0; k < sent[i]; ++k)
        if (!bufs[i]->ub->waitSend(timeout_)) return Error{say("a send was aborted")};
    }
    return {};
  }
  void reduce(std::byte* dst, const std::byte* src, std::size_t elems) override {
    fn_(dst, dst, src, elems);
  }

 private:
  struct Buffer {
    std::byte* base = nullptr;
    std::size_t bytes = 0;
    std::unique_ptr<gloo::transport::UnboundBuffer> ub;
  };
  Buffer& which(std::byte* p) { return p >= work_.base && p < work_.base + work_.bytes ? work_ : scratch_; }

  std::chrono::milliseconds timeout_;
  Fn fn_;
  Buffer work_, scratch_;
};

}  // namespace

Result<RoundsTiming> runGlooRounds(const std::shared_ptr<gloo::Context>& ctx,
                                   std::chrono::milliseconds timeout, const algo::Schedule& s,
                                   int from, int to, const void* in, void* work,
                                   const RunOptions& o, std::vector<char>& scratch) {
  if (!reduceFor(s.spec.dtype, s.spec.redop))
    return Error{say("dtype {0} is not supported by gloo", name(s.spec.dtype))};
  try {
    RoundRunner runner(s, ctx->rank, o.round_fault);
    if (scratch.size() < runner.scratchBytes()) scratch.resize(runner.scratchBytes());
    auto* w = static_cast<std::byte*>(work);
    auto* sc = reinterpret_cast<std::byte*>(scratch.data());
    GlooRoundDevice dev(*ctx, timeout, s.spec, w, s.workBytes(), sc, runner.scratchBytes());
    return runRoundRange(dev, runner, from, to, w, sc, static_cast<const std::byte*>(in), o);
  } catch (const std::exception& e) {
    return Error{say("gloo: {0}", e.what())};
  }
}

}  // namespace collviz
