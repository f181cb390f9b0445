// The NCCL rounds' logic without a GPU: the RoundRunner of every algorithm
// and op, N = 1 to 5, on a stand-in RoundDevice that behaves as the NCCL one
// in the two ways that differ from Gloo:
//   - messages carry no tag: between two ranks they pair in the order they
//     are posted, as ncclSend/ncclRecv do (a FIFO per direction, across
//     rounds as on one stream);
//   - reduce and divide use the kernels' element arithmetic
//     (engine/worker/reduce_ops.h, the same functions, host-compiled),
//     bf16 included, which Gloo cannot run.
// Ranks run on threads. Every round's working buffers are checked against
// the symbolic reference (algo::checkRound) and the output after the last
// round with the engine's verifier (labelAndVerify), as the engine does.
#include <gtest/gtest.h>

#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include "engine/algo/algorithms.h"
#include "engine/algo/reference.h"
#include "engine/algo/round_check.h"
#include "engine/verify/provenance.h"
#include "engine/verify/verify.h"
#include "engine/worker/reduce_kind.h"
#include "engine/worker/round_runner.h"

namespace collviz {
namespace {

// Messages in flight, one FIFO per (from, to).
struct Wire {
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::pair<int, int>, std::deque<std::vector<std::byte>>> fifo;
};

struct ReduceHost {
  reduce_ops::CombineKind c;
  std::byte* dst;
  const std::byte* src;
  std::size_t elems;
  template <reduce_ops::ElemKind K>
  void apply() { reduce_ops::visitCombine<K>(c, *this); }
  template <reduce_ops::ElemKind K, reduce_ops::CombineKind C>
  void apply() {
    using E = reduce_ops::Elem<K>;
    using T = typename E::Storage;
    for (std::size_t i = 0; i < elems; ++i) {
      T a, b;
      std::memcpy(&a, dst + i * sizeof(T), sizeof(T));
      std::memcpy(&b, src + i * sizeof(T), sizeof(T));
      const T r = E::template combine<C>(a, b);
      std::memcpy(dst + i * sizeof(T), &r, sizeof(T));
    }
  }
};

struct DivideHost {
  std::byte* p;
  std::size_t elems;
  int n;
  template <reduce_ops::ElemKind K>
  void apply() {
    using E = reduce_ops::Elem<K>;
    using T = typename E::Storage;
    for (std::size_t i = 0; i < elems; ++i) {
      T a;
      std::memcpy(&a, p + i * sizeof(T), sizeof(T));
      const T r = E::divide(a, n);
      std::memcpy(p + i * sizeof(T), &r, sizeof(T));
    }
  }
};

class OrderedDevice final : public RoundDevice {
 public:
  OrderedDevice(Wire& w, int rank, const OpSpec& s) : w_(w), rank_(rank), s_(s) {}
  Status exchange(const std::vector<Post>& sends, const std::vector<Post>& recvs) override {
    std::unique_lock<std::mutex> lock(w_.mu);
    for (const Post& p : sends)
      w_.fifo[{rank_, p.peer}].emplace_back(p.ptr, p.ptr + p.bytes);  // tag ignored
    w_.cv.notify_all();
    for (const Post& p : recvs) {
      auto& q = w_.fifo[{p.peer, rank_}];
      if (!w_.cv.wait_for(lock, std::chrono::seconds(10), [&] { return !q.empty(); }))
        return Error{"rank " + std::to_string(rank_) + ": no message from " + std::to_string(p.peer)};
      if (q.front().size() != p.bytes)
        return Error{"rank " + std::to_string(rank_) + ": a " + std::to_string(q.front().size()) +
                     "-byte message from " + std::to_string(p.peer) + " met a " +
                     std::to_string(p.bytes) + "-byte receive"};
      std::memcpy(p.ptr, q.front().data(), p.bytes);
      q.pop_front();
    }
    return {};
  }
  void reduce(std::byte* dst, const std::byte* src, std::size_t elems) override {
    ReduceHost h{combineKind(s_.redop), dst, src, elems};
    reduce_ops::visitElem(elemKind(s_.dtype), h);
  }
  void copy(std::byte* dst, const std::byte* src, std::size_t bytes) override {
    std::memcpy(dst, src, bytes);
  }
  void zero(std::byte* dst, std::size_t bytes) override { std::memset(dst, 0, bytes); }
  void load(std::byte* dst, const std::byte* src, std::size_t bytes) override {
    std::memcpy(dst, src, bytes);
  }
  void divide(std::byte* p, std::size_t elems, int n) override {
    DivideHost h{p, elems, n};
    reduce_ops::visitElem(elemKind(s_.dtype), h);
  }
  void flipLowBit(std::byte* p) override { *p ^= std::byte{1}; }

 private:
  Wire& w_;
  int rank_;
  OpSpec s_;
};

// Runs `s` with `algo` round by round on N threads and checks every round
// and the output. With a fault (COLLVIZ_FAULT round_*, made by the runner
// as on NCCL), the rounds before it must check out and its round must not.
void runAndCheck(const std::string& algo, const OpSpec& s, RoundFault fault = {}) {
  SCOPED_TRACE(algo + " " + std::string(name(s.op)) + " N=" + std::to_string(s.ranks) + " " +
               std::string(name(s.dtype)) + " " + std::string(name(s.redop)) +
               " root=" + std::to_string(s.root));
  auto built = algo::buildSchedule(algo, s);
  ASSERT_TRUE(built) << built.error().message;
  const algo::Schedule& sch = *built;
  const algo::Reference ref = algo::simulate(sch);
  const Pattern pattern = choosePattern(s);
  StepResult inputs;
  inputs.spec = s;
  inputs.ranks.resize(std::size_t(s.ranks));
  for (int r = 0; r < s.ranks; ++r) inputs.ranks[std::size_t(r)].rank = r;
  fillInputs(inputs, pattern);
  algo::ExpectedSlots expected(s, inputsAsDoubles(inputs));

  Wire wire;
  std::vector<RoundRunner> runners;
  std::vector<OrderedDevice> devs;
  std::vector<std::vector<std::byte>> work, scratch;
  runners.reserve(std::size_t(s.ranks));
  devs.reserve(std::size_t(s.ranks));
  for (int r = 0; r < s.ranks; ++r) {
    runners.emplace_back(sch, r, fault);
    devs.emplace_back(wire, r, s);
    work.emplace_back(sch.workBytes());
    scratch.emplace_back(std::max<std::size_t>(1, runners.back().scratchBytes()));
  }
  for (int r = 0; r < s.ranks; ++r)
    runners[std::size_t(r)].start(devs[std::size_t(r)], work[std::size_t(r)].data(),
                                  inputs.ranks[std::size_t(r)].input.bytes.data());
  const int rounds = int(sch.rounds.size());
  for (int k = 0; k < rounds; ++k) {
    std::vector<std::string> errors(std::size_t(s.ranks));
    std::vector<std::thread> threads;
    for (int r = 0; r < s.ranks; ++r)
      threads.emplace_back([&, r] {
        RoundCounts counts;
        Status st = runners[std::size_t(r)].round(devs[std::size_t(r)], k, work[std::size_t(r)].data(),
                                                  scratch[std::size_t(r)].data(), counts);
        if (k + 1 == rounds) runners[std::size_t(r)].finish(devs[std::size_t(r)], work[std::size_t(r)].data());
        if (!st) errors[std::size_t(r)] = st.message();
      });
    for (auto& t : threads) t.join();
    for (const auto& e : errors) ASSERT_TRUE(e.empty()) << "round " << k + 1 << ": " << e;
    StepResult step;
    step.spec = s;
    step.ranks.resize(std::size_t(s.ranks));
    for (int r = 0; r < s.ranks; ++r) {
      step.ranks[std::size_t(r)].rank = r;
      step.ranks[std::size_t(r)].output.present = true;
      step.ranks[std::size_t(r)].output.bytes = work[std::size_t(r)];
    }
    algo::checkRound(step, pattern, ref.rounds[std::size_t(k)], expected);
    if (fault.round == k + 1) {
      EXPECT_FALSE(step.verify.verified) << "round " << k + 1 << " was broken and checked out";
      return;
    }
    ASSERT_TRUE(step.verify.verified) << "round " << k + 1 << ": " << step.verify.first_problem;
  }
  if (rounds == 0)
    for (int r = 0; r < s.ranks; ++r) runners[std::size_t(r)].finish(devs[std::size_t(r)], work[std::size_t(r)].data());
  for (const auto& [pair, q] : wire.fifo)
    EXPECT_TRUE(q.empty()) << q.size() << " message(s) from " << pair.first << " to " << pair.second
                           << " never received";
  // The output, read from the schedule's output slots.
  StepResult out = inputs;
  const std::size_t slot = sch.slotBytes();
  for (int r = 0; r < s.ranks; ++r) {
    BufferView& o = out.ranks[std::size_t(r)].output;
    o.present = outputBlocks(s.op, s.ranks, r, s.root) > 0;
    o.bytes.clear();
    for (int k : sch.output[std::size_t(r)]) {
      const std::byte* p = work[std::size_t(r)].data() + std::size_t(k) * slot;
      o.bytes.insert(o.bytes.end(), p, p + slot);
    }
  }
  labelAndVerify(out, pattern, opProvenance(s));
  EXPECT_TRUE(out.verify.verified) << out.verify.first_problem;
}

TEST(NcclRoundsSim, EveryAlgorithmAndOpPairedInPostingOrder) {
  for (int n : {1, 2, 3, 4, 5})
    for (const algo::Algorithm& a : algo::algorithms()) {
      if (!a.build) continue;
      for (Op op : a.ops) {
        runAndCheck(std::string(a.name), {op, n, 3, DType::f32, RedOp::sum, usesRoot(op) ? n - 1 : 0});
        if (HasFatalFailure()) return;
      }
    }
}

// The round faults are the runner's, so NCCL makes them as Gloo does: each
// is caught in the round it hits, every dtype (round_corrupt flips the low
// bit of an element whatever its type).
TEST(NcclRoundsSim, RoundFaultsAreCaughtInTheirRound) {
  using K = RoundFault::Kind;
  for (int t = 0; t < kDTypeCount; ++t)
    for (auto [kind, round] : {std::pair{K::skip_recv, 2}, {K::skip_reduce, 1}, {K::corrupt, 3},
                               {K::swap, 4}}) {
      runAndCheck("ring", {Op::all_reduce, 4, 3, DType(t), RedOp::sum, 0}, {kind, round});
      if (HasFatalFailure()) return;
    }
  runAndCheck("bruck", {Op::all_to_all, 5, 3, DType::f32, RedOp::sum, 0}, {K::skip_recv, 3});
  runAndCheck("tree", {Op::broadcast, 4, 3, DType::bf16, RedOp::sum, 0}, {K::corrupt, 1});
}

// The kernels' arithmetic through the rounds, every dtype and reduce op
// (avg only for floats, as validate() allows), bf16 included.
TEST(NcclRoundsSim, EveryDTypeAndRedOpThroughTheRounds) {
  for (int n : {3, 4})
    for (int t = 0; t < kDTypeCount; ++t)
      for (int r = 0; r < kRedOpCount; ++r) {
        if (RedOp(r) == RedOp::avg && !isFloat(DType(t))) continue;
        for (auto [op, algo] : {std::pair{Op::all_reduce, "ring"}, {Op::all_reduce, "halving_doubling"},
                                {Op::reduce, "tree"}, {Op::reduce_scatter, "ring"}}) {
          runAndCheck(algo, {op, n, 3, DType(t), RedOp(r), 1});
          if (HasFatalFailure()) return;
        }
      }
}

}  // namespace
}  // namespace collviz
