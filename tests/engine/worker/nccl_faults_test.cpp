// The NCCL module's error paths on the stand-in CUDA runtime and NCCL (a
// test double on host memory, not a GPU; ctest label `standin`). Each test
// injects a fault through COLLVIZ_STANDIN_FAULT (tests/standin/faults.cpp)
// in one rank process of a group (tests/engine/worker/nccl_group.h) and
// checks what the module makes of it: the error names the call and carries
// CUDA's or NCCL's text, the communicator is aborted when work was queued
// and kept when not, the watchdog ends what does not return, nothing
// crashes. On a real GPU (no stand-in) the program exits 77: faults cannot
// be injected there.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/algo/algorithms.h"
#include "engine/worker/nccl/communicator.h"
#include "tests/engine/worker/nccl_group.h"
#include "tests/engine/worker/nccl_test_data.h"

namespace collviz {
namespace {

using test::GroupOptions;
using test::RankEnd;
using namespace std::chrono_literals;

int g_version = 0;

class MapStore final : public ControlStore {
 public:
  Status set(const std::string&, const std::vector<char>&) override { return {}; }
  Result<std::vector<char>> get(const std::string&, int) override { return Error{"nothing here"}; }
};

std::vector<RankEnd> run(int ranks, const test::RankBody& body, const GroupOptions& o = {}) {
  return test::runRanks(ranks, 1, g_version, body, o);
}

GroupOptions fault(int rank, const std::string& rule, GroupOptions o = {}) {
  o.rank_env[rank].push_back({"COLLVIZ_STANDIN_FAULT", rule});
  return o;
}

bool has(const std::string& text, const std::string& want) { return text.find(want) != std::string::npos; }

// Host buffers a failed run may still have copies queued on (the module
// leaves them to the process's end, as the engine's shared memory is):
// never freed.
std::vector<std::byte>& keep(std::vector<std::byte> v) { return *new std::vector<std::byte>(std::move(v)); }

// An all_reduce of `ranks` ranks, 4 f32 per block: "" when it ran and every
// element is NCCL's, else "error: <the module's message>" or the mismatch.
std::string allReduce(Communicator& comm, int rank, int ranks, RunOptions o = {}, std::string* copies = nullptr,
                      DType t = DType::f32) {
  const OpSpec s{Op::all_reduce, ranks, 4, t, RedOp::sum, 0};
  std::vector<std::byte>& in = keep(testdata::makeInput(s, rank));
  std::vector<std::byte>& out = keep(std::vector<std::byte>(outputBytes(s, rank)));
  auto r = comm.run(s, in.data(), out.data(), o);
  if (!r) return "error: " + r.error().message;
  if (copies) *copies = r->copies;
  return testdata::check(s, rank, out);
}

// ---- the watchdog, an asynchronous error, a rank lost mid-op ---------------------

TEST(NcclFaults, AnAsyncErrorFailsTheRunWithNcclsTextAndTheNextRunRefuses) {
  auto ends = run(2, [](int rank, Communicator& comm) -> std::string {
    const std::string first = allReduce(comm, rank, 2);
    const std::string again = allReduce(comm, rank, 2);
    std::string errs;
    if (rank == 1) {
      for (const char* want : {"NCCL all_reduce on rank 1 (GPU 0)", "NCCL async error: unhandled system error",
                               "injected asynchronous error"})
        if (!has(first, want)) errs += std::string("lacks '") + want + "': " + first + "\n";
    } else if (!has(first, "error: ")) {
      errs += "rank 0 ran on without its peer: " + first + "\n";
    }
    if (!has(again, "aborted earlier")) errs += "the next run did not refuse: " + again + "\n";
    return errs;
  }, fault(1, "ncclAllReduce#1=async:ncclSystemError"));
  EXPECT_TRUE(test::failures(ends).empty()) << test::joined(test::failures(ends));
}

TEST(NcclFaults, ARankKilledMidOpIsARemoteErrorOnItsPeers) {
  auto ends = run(3, [](int rank, Communicator& comm) -> std::string {
    const std::string r = allReduce(comm, rank, 3);
    // The peer named is rank 2, or the other survivor where that one ended
    // first (it saw rank 2 go and aborted): which comes first is a race.
    if (!has(r, "NCCL async error: remote process exited or there was a network error") ||
        !(has(r, "rank 2") || has(r, "rank " + std::to_string(1 - rank))))
      return "rank " + std::to_string(rank) + ": " + r;
    return "";
  }, fault(2, "ncclAllReduce#1=kill"));
  ASSERT_EQ(ends.size(), 3u);
  EXPECT_TRUE(WIFSIGNALED(ends[2].status) && WTERMSIG(ends[2].status) == SIGKILL) << ends[2].status;
  for (int r : {0, 1}) EXPECT_EQ(ends[std::size_t(r)].said, "") << "rank " << r;
}

TEST(NcclFaults, AStalledOpIsAbortedByTheWatchdogAtItsDeadline) {
  GroupOptions o = fault(0, "ncclAllReduce#1=stall");
  o.timeout_ms = 1000;
  auto ends = run(2, [](int rank, Communicator& comm) -> std::string {
    const auto t0 = std::chrono::steady_clock::now();
    const std::string r = allReduce(comm, rank, 2);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::string errs;
    if (rank == 0 && !has(r, "NCCL all_reduce on rank 0 (GPU 0): timed out after 900 ms; the watchdog aborted "
                             "the communicator"))
      errs += "rank 0: " + r + "\n";
    if (rank == 1 && !has(r, "error: ")) errs += "rank 1 ran on: " + r + "\n";
    if (s > 3) errs += "took " + std::to_string(s) + " s\n";
    if (!has(allReduce(comm, rank, 2), "aborted earlier")) errs += "a run after the abort did not refuse\n";
    return errs;
  }, o);
  EXPECT_TRUE(test::failures(ends).empty()) << test::joined(test::failures(ends));
}

// A big op's deadline is the one the engine gives it (RunOptions::timeout_ms,
// scaled with its bytes: engine/group/deadline.h), not the init's: an op
// that is slow but within it runs to the end, a run and an algorithm's
// rounds alike.
TEST(NcclFaults, AnOpGetsTheDeadlineTheEngineGaveIt) {
  GroupOptions o = fault(0, "ncclAllReduce#1=delay:1500,r0/ncclSend#2=delay:1500");
  o.timeout_ms = 1000;  // the init's: 900 ms would abort both
  auto ends = run(2, [](int rank, Communicator& comm) -> std::string {
    RunOptions big;
    big.timeout_ms = 4000;  // as the engine sends it for a big op
    std::string errs = allReduce(comm, rank, 2, big);
    const OpSpec s{Op::all_reduce, 2, 4, DType::f32, RedOp::sum, 0};
    auto sch = algo::buildSchedule("ring", s);
    std::vector<std::byte>& in = keep(testdata::makeInput(s, rank));
    std::vector<std::byte>& work = keep(std::vector<std::byte>(sch->workBytes()));
    auto r = comm.runRounds(*sch, 0, int(sch->rounds.size()), in.data(), work.data(), big);
    if (!r) errs += " rounds: " + r.error().message;
    return errs;
  }, o);
  EXPECT_TRUE(test::failures(ends).empty()) << test::joined(test::failures(ends));
}

// The deadline is per repetition: a run of 1 warm-up and 3 timed calls,
// each 400 ms (1.6 s in all), under 1000 ms a repetition (3.6 s for the
// four, less 10 %), runs to the end; one repetition's deadline (900 ms)
// would abort it in its third call.
TEST(NcclFaults, TheWatchdogsDeadlineScalesWithWarmUpAndIterations) {
  GroupOptions o = fault(0, "ncclAllReduce=delay:400");
  o.timeout_ms = 1000;
  auto ends = run(2, [](int rank, Communicator& comm) -> std::string {
    RunOptions bench;
    bench.timeout_ms = 1000;
    bench.warmup = 1;
    bench.iters = 3;
    return allReduce(comm, rank, 2, bench);
  }, o);
  EXPECT_TRUE(test::failures(ends).empty()) << test::joined(test::failures(ends));
}

// The watchdog cannot abort while the rank's thread is inside an NCCL call:
// a call that never returns ends the process with code 3 and the reason.
TEST(NcclFaults, ACallThatNeverReturnsEndsTheRankWithExitCode3) {
  GroupOptions o = fault(0, "ncclAllReduce#1=hang");
  o.timeout_ms = 1000;
  o.capture_stderr = true;
  auto ends = run(1, [](int rank, Communicator& comm) { return allReduce(comm, rank, 1); }, o);
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_TRUE(WIFEXITED(ends[0].status) && WEXITSTATUS(ends[0].status) == 3) << ends[0].status;
  EXPECT_TRUE(has(ends[0].err, "passed its deadline inside an NCCL call that does not return; exiting (code 3)"))
      << ends[0].err;
  EXPECT_LT(ends[0].seconds, 5.0);
}

TEST(NcclFaults, AnAbortThatNeverReturnsAtTeardownEndsTheRankWithExitCode3) {
  GroupOptions o = fault(0, "ncclCommAbort#1=hang");
  o.timeout_ms = 1000;  // the teardown's deadline is 5 s at least
  o.capture_stderr = true;
  auto ends = run(1, [](int rank, Communicator& comm) { return allReduce(comm, rank, 1); }, o);
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_TRUE(WIFEXITED(ends[0].status) && WEXITSTATUS(ends[0].status) == 3) << ends[0].status;
  EXPECT_TRUE(has(ends[0].err, "teardown passed its deadline")) << ends[0].err;
}

// ---- init -------------------------------------------------------------------------

TEST(NcclFaults, InitFailuresCarryNcclsText) {
  struct Case {
    const char* what;
    GroupOptions o;
    std::vector<std::string> want;  // in every rank's message
  };
  GroupOptions dup;
  dup.env = {{"NCCL_HOSTID", "one-host"}};  // two ranks of one host on one GPU
  GroupOptions dup230 = dup;
  dup230.env.push_back({"COLLVIZ_STANDIN_NCCL_VERSION", "23000"});
  GroupOptions mismatch;
  mismatch.rank_env[1] = {{"COLLVIZ_STANDIN_NCCL_VERSION", "22703"}};
  GroupOptions nogpu;
  nogpu.env = {{"COLLVIZ_STANDIN_GPUS", "0"}};
  GroupOptions bad_gpu;
  bad_gpu.gpu = 5;
  GroupOptions injected;
  injected.env = {{"COLLVIZ_STANDIN_FAULT", "ncclCommInitRankConfig#1=ncclSystemError"}};
  std::vector<Case> cases = {
      {"injected", injected,
       {"NCCL init of rank", "of 2 ranks failed: ncclCommInitRankConfig: unhandled system error (run with "
                             "NCCL_DEBUG=INFO for details): stand-in NCCL: ncclCommInitRankConfig: injected error"}},
      {"duplicate GPU", dup, {"invalid usage", "Duplicate GPU detected : rank 0 and rank 1 both on CUDA device"}},
      {"duplicate GPU, NCCL 2.30", dup230, {"Multiple Ranks are using the same GPU/Partition"}},
      {"NCCL versions differ", mismatch, {"Mismatched NCCL version detected"}},
      {"no GPU", nogpu, {"NCCL unavailable on rank", "cudaGetDeviceCount: cudaErrorNoDevice"}},
      {"GPU 5", bad_gpu, {"GPU 5 does not exist (1 visible)"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    auto ends = run(2, [](int, Communicator&) { return std::string("init succeeded"); }, c.o);
    for (std::size_t r = 0; r < ends.size(); ++r)
      for (const std::string& w : c.want) EXPECT_TRUE(has(ends[r].said, w)) << "rank " << r << ": " << ends[r].said;
  }
  // NCCL 2.30's multi-rank route: ranks of one host share the GPU.
  GroupOptions multi = dup230;
  multi.env.push_back({"NCCL_MULTI_RANK_GPU_ENABLE", "1"});
  auto ends = run(2, [](int rank, Communicator& comm) {
    std::string r = allReduce(comm, rank, 2);
    if (!has(comm.describe().notes, "multi-rank route")) r += " notes: " + comm.describe().notes;
    if (!has(comm.describe().version, "(runtime; built against 2.28.9)")) r += " version: " + comm.describe().version;
    return r;
  }, multi);
  EXPECT_TRUE(test::failures(ends).empty()) << test::joined(test::failures(ends));
}

TEST(NcclFaults, InitThatWaitsInVainEndsAtTheDeadline) {
  // Rank 1 never finishes joining; the init budget (90 % of 10 s from the
  // worker's start) is nearly spent already.
  GroupOptions o = fault(1, "ncclCommInitRankConfig#1=hang");
  o.started_before = 7500ms;
  auto ends = run(2, [](int, Communicator&) { return std::string("init succeeded"); }, o);
  for (std::size_t r = 0; r < ends.size(); ++r)
    EXPECT_TRUE(has(ends[r].said, "did not finish within 9000 ms of the worker's start")) << ends[r].said;
  // The ncclUniqueId cannot even be waited for.
  o = GroupOptions{};
  o.started_before = 9500ms;
  ends = run(2, [](int, Communicator&) { return std::string("init succeeded"); }, o);
  ASSERT_EQ(ends.size(), 2u);
  EXPECT_TRUE(has(ends[1].said, "no time left for the ncclUniqueId")) << ends[1].said;
}

TEST(NcclFaults, ConnectingThePeersFailsWithTheCallsText) {
  struct Case {
    const char* rule;
    const char* want;
  };
  // Rank 0's first calls after ncclCommInitRankConfig connect it to its peer.
  for (const Case& c : {Case{"ncclSend#1=ncclInvalidArgument", "connecting to the peers: invalid argument"},
                        Case{"ncclGroupEnd#1=ncclSystemError", "connecting to the peers: unhandled system error"},
                        Case{"cudaMalloc#1=cudaErrorMemoryAllocation", "cudaMalloc: cudaErrorMemoryAllocation"},
                        Case{"cudaStreamCreateWithFlags#3=cudaErrorUnknown", "cudaStreamCreate: cudaErrorUnknown"},
                        Case{"cudaMemset#1=cudaErrorUnknown", "cudaMemset: cudaErrorUnknown"},
                        Case{"cudaStreamSynchronize#1=cudaErrorUnknown", "cudaStreamSynchronize: cudaErrorUnknown"},
                        Case{"cudaSetDevice#2=cudaErrorInvalidDevice", "cudaSetDevice: cudaErrorInvalidDevice"}}) {
    SCOPED_TRACE(c.rule);
    GroupOptions o = fault(0, c.rule);
    o.started_before = 8000ms;  // rank 1 may wait for rank 0 in vain
    o.capture_stderr = true;
    auto ends = run(2, [](int, Communicator&) { return std::string("init succeeded"); }, o);
    ASSERT_EQ(ends.size(), 2u);
    EXPECT_TRUE(has(ends[0].said, "init: NCCL init of rank 0 (GPU 0) of 2 ranks failed: ")) << ends[0].said;
    EXPECT_TRUE(has(ends[0].said, c.want)) << ends[0].said;
    // Rank 1 waited in vain, unless rank 0 failed after their exchange.
    if (ends[1].said != "init succeeded") {
      EXPECT_TRUE(has(ends[1].said, "init: ")) << ends[1].said;
    }
  }
}

// ---- one call of a run fails --------------------------------------------------------

struct CallFault {
  const char* rule;       // in the 1-rank process, counted from its start
  const char* want;       // in the run's error
  bool next_runs = true;  // nothing was queued: the communicator stays usable
  RunOptions opts = {};
};

TEST(NcclFaults, EveryCallOfARunFailsWithItsNameAndTheCommunicatorIsAbortedOnlyOnceWorkWasQueued) {
  const RunOptions three{0, 3};  // iters > 1: the poison is timed on its own
  const std::vector<CallFault> cases = {
      {"cudaSetDevice#3=cudaErrorUnknown", "cudaSetDevice(gpu_) failed: cudaErrorUnknown"},
      {"cudaMalloc#1=cudaErrorMemoryAllocation", "cudaMalloc of 16 bytes for the input on GPU 0 failed"},
      {"cudaMalloc#2=cudaErrorMemoryAllocation", "cudaMalloc of 16 bytes for the output on GPU 0 failed"},
      {"cudaEventRecord#1=cudaErrorUnknown", "cudaEventRecord(ev_[copy_in_begin], copy_stream_) failed", false},
      {"cudaMemcpyAsync#1=cudaErrorUnknown", "cudaMemcpyAsync(in_.ptr, in, in_bytes, cudaMemcpyHostToDevice", false},
      {"cudaEventRecord#2=cudaErrorUnknown", "cudaEventRecord(ev_[copy_in_end], copy_stream_) failed", false},
      {"cudaStreamWaitEvent#1=cudaErrorUnknown", "cudaStreamWaitEvent(op_stream_, ev_[copy_in_end], 0) failed", false},
      {"cudaMemsetAsync#1=cudaErrorUnknown", "cudaMemsetAsync(out_.ptr, poisonByte(s.dtype)", false},
      {"cudaEventRecord#3=cudaErrorUnknown", "cudaEventRecord(ev_[op_begin], op_stream_) failed", false},
      {"ncclAllReduce#1=ncclInvalidUsage", "invalid usage (run with NCCL_DEBUG=WARN for details): stand-in NCCL: "
                                           "ncclAllReduce: injected error", false},
      {"cudaEventRecord#4=cudaErrorUnknown", "cudaEventRecord(ev_[op_end], op_stream_) failed", false},
      {"cudaStreamWaitEvent#2=cudaErrorUnknown", "cudaStreamWaitEvent(copy_stream_, ev_[op_end], 0) failed", false},
      {"cudaEventRecord#5=cudaErrorUnknown", "cudaEventRecord(ev_[copy_out_begin], copy_stream_) failed", false},
      {"cudaMemcpyAsync#2=cudaErrorUnknown", "cudaMemcpyAsync(host, out_.ptr, bytes, cudaMemcpyDeviceToHost", false},
      {"cudaEventRecord#6=cudaErrorUnknown", "cudaEventRecord(ev_[copy_out_end], copy_stream_) failed", false},
      {"cudaEventQuery#1=cudaErrorIllegalAddress", "CUDA error: cudaErrorIllegalAddress", false},
      {"cudaEventElapsedTime#1=cudaErrorUnknown", "cudaEventElapsedTime(&t.op_ms", false},
      {"cudaEventElapsedTime#2=cudaErrorUnknown", "cudaEventElapsedTime(&t.in_ms", false},
      {"cudaEventElapsedTime#3=cudaErrorUnknown", "cudaEventElapsedTime(&t.out_ms", false},
      {"cudaEventRecord#4=cudaErrorUnknown", "cudaEventRecord(ev_[poison_begin], op_stream_) failed", false, three},
      {"cudaMemsetAsync#1=cudaErrorUnknown", "cudaMemsetAsync(out_.ptr, poisonByte(s.dtype)", false, three},
      {"cudaEventRecord#5=cudaErrorUnknown", "cudaEventRecord(ev_[poison_end], op_stream_) failed", false, three},
      {"cudaEventElapsedTime#4=cudaErrorUnknown", "cudaEventElapsedTime(&poison_ms", false, three},
  };
  for (const CallFault& c : cases) {
    SCOPED_TRACE(c.rule);
    auto ends = run(1, [&c](int rank, Communicator& comm) -> std::string {
      const std::string first = allReduce(comm, rank, 1, c.opts);
      const std::string next = allReduce(comm, rank, 1);
      std::string errs;
      if (!has(first, "NCCL all_reduce on rank 0 (GPU 0): ") || !has(first, c.want))
        errs += "first run: " + first + "\n";
      if (c.next_runs ? !next.empty() : !has(next, "aborted earlier")) errs += "next run: " + next + "\n";
      return errs;
    }, fault(0, c.rule));
    EXPECT_TRUE(test::failures(ends).empty()) << test::joined(test::failures(ends));
  }
}

TEST(NcclFaults, AWrongRequestIsRefusedAndTheCommunicatorStaysUsable) {
  auto ends = run(2, [](int rank, Communicator& comm) -> std::string {
    std::string errs;
    std::vector<float> buf(64);
    auto r = comm.run({Op::all_reduce, 3, 4, DType::f32, RedOp::sum, 0}, buf.data(), buf.data(), {});
    if (r || !has(r.error().message, "spec has 3 ranks, the group 2")) errs += "3 ranks ran\n";
    r = comm.run({Op::all_reduce, 2, 4, DType::f32, RedOp::sum, 0}, nullptr, buf.data(), {});
    if (r || !has(r.error().message, "missing host buffer")) errs += "no input ran\n";
    const OpSpec s{Op::all_reduce, 2, 4, DType::f32, RedOp::sum, 0};
    auto sch = algo::buildSchedule("ring", s);
    if (!sch) return "no ring schedule: " + sch.error().message;
    std::vector<std::byte> work(sch->workBytes());
    auto rr = comm.runRounds(*sch, 0, 99, buf.data(), work.data(), {});
    if (rr || !has(rr.error().message, "rounds 0 to 99 are outside the schedule's")) errs += "rounds 0..99 ran\n";
    rr = comm.runRounds(*sch, 0, 1, buf.data(), nullptr, {});
    if (rr || !has(rr.error().message, "missing host buffer")) errs += "rounds without a working buffer ran\n";
    auto sch3 = algo::buildSchedule("ring", OpSpec{Op::all_reduce, 3, 4, DType::f32, RedOp::sum, 0});
    rr = comm.runRounds(*sch3, 0, 1, buf.data(), work.data(), {});
    if (rr || !has(rr.error().message, "spec has 3 ranks, the group 2")) errs += "3-rank rounds ran\n";
    MapStore again;
    if (Status st = comm.init(rank, 2, again, 1000); st || !has(st.message(), "already initialised"))
      errs += "a second init was not refused\n";
    return errs + allReduce(comm, rank, 2);  // still works
  });
  EXPECT_TRUE(test::failures(ends).empty()) << test::joined(test::failures(ends));
}

// ---- the rounds' calls --------------------------------------------------------------

// Ring all_reduce at N=2, f32 avg: each rank's calls after the init
// (which makes ncclGroupStart/ncclSend/ncclGroupEnd #1 connecting the peers).
TEST(NcclFaults, EveryCallOfTheRoundsFailsWithItsName) {
  const std::vector<CallFault> cases = {
      {"r0/ncclGroupStart#2=ncclSystemError", "ncclGroupStart: unhandled system error"},
      {"r0/ncclSend#2=ncclInvalidArgument", "ncclSend/ncclRecv: invalid argument"},
      {"r0/ncclGroupEnd#2=ncclInternalError", "ncclGroupEnd: internal error"},
      {"r0/__cudaLaunchKernel#1=cudaErrorLaunchFailure", "launching the reduce kernel failed: cudaErrorLaunchFailure"},
      {"r0/__cudaLaunchKernel#2=cudaErrorLaunchFailure", "launching the divide kernel failed: cudaErrorLaunchFailure"},
      {"r0/cudaMemcpyAsync#2=cudaErrorUnknown", "cudaMemcpyAsync failed: cudaErrorUnknown"},
  };
  for (const CallFault& c : cases) {
    SCOPED_TRACE(c.rule);
    auto ends = run(2, [&c](int rank, Communicator& comm) -> std::string {
      const OpSpec s{Op::all_reduce, 2, 4, DType::f32, RedOp::avg, 0};
      auto sch = algo::buildSchedule("ring", s);
      if (!sch) return "no schedule";
      std::vector<std::byte>& in = keep(testdata::makeInput(s, rank));
      std::vector<std::byte>& work = keep(std::vector<std::byte>(sch->workBytes()));
      auto r = comm.runRounds(*sch, 0, int(sch->rounds.size()), in.data(), work.data(), {});
      if (rank == 0 && (r || !has(r.error().message, "NCCL ring all_reduce on rank 0 (GPU 0): ") ||
                        !has(r.error().message, c.want)))
        return r ? std::string("the rounds ran") : r.error().message;
      return "";
    }, fault(0, c.rule, [] {
      GroupOptions o;
      o.timeout_ms = 2000;  // rank 1 waits for its peer in vain
      return o;
    }()));
    ASSERT_EQ(ends.size(), 2u);
    EXPECT_EQ(ends[0].said, "");
  }
  // A corrupted round (COLLVIZ_FAULT round_corrupt) flips a byte through the host.
  auto ends = run(2, [](int rank, Communicator& comm) -> std::string {
    const OpSpec s{Op::all_reduce, 2, 4, DType::i32, RedOp::sum, 0};
    auto sch = algo::buildSchedule("ring", s);
    std::vector<std::byte> in = testdata::makeInput(s, rank), work(sch->workBytes()), clean(sch->workBytes());
    RunOptions o;
    auto r = comm.runRounds(*sch, 0, 1, in.data(), clean.data(), o);
    o.round_fault = RoundFault{RoundFault::Kind::corrupt, 1};
    auto f = comm.runRounds(*sch, 0, 1, in.data(), work.data(), o);
    if (!r || !f) return "a round failed";
    int differ = 0;
    for (std::size_t i = 0; i < work.size(); ++i) differ += work[i] != clean[i];
    return differ == 1 ? "" : std::to_string(differ) + " bytes differ after round_corrupt, not 1";
  });
  EXPECT_TRUE(test::failures(ends).empty()) << test::joined(test::failures(ends));
}

// ---- copies, teardown -----------------------------------------------------------------

TEST(NcclFaults, CopiesArePageLockedOrPageableAndSaySo) {
  auto pinned = run(2, [](int rank, Communicator& comm) -> std::string {
    std::string copies;
    const std::string r = allReduce(comm, rank, 2, {}, &copies);
    return r + (copies == "page-locked (cudaHostRegister)" ? "" : " copies: " + copies);
  });
  EXPECT_TRUE(test::failures(pinned).empty()) << test::joined(test::failures(pinned));
  GroupOptions o;
  o.env = {{"COLLVIZ_STANDIN_FAULT", "cudaHostRegister=cudaErrorNotSupported"}};
  auto pageable = run(2, [](int rank, Communicator& comm) -> std::string {
    std::string copies;
    const std::string r = allReduce(comm, rank, 2, RunOptions{1, 2}, &copies, DType::bf16);
    return r + (has(copies, "pageable (cudaHostRegister: cudaErrorNotSupported") ? "" : " copies: " + copies);
  }, o);
  EXPECT_TRUE(test::failures(pageable).empty()) << test::joined(test::failures(pageable));
}

TEST(NcclFaults, TeardownFailuresAreLoggedAndNotFatal) {
  GroupOptions o;
  o.capture_stderr = true;
  o.env = {{"COLLVIZ_STANDIN_FAULT",
            "cudaEventDestroy#1=cudaErrorUnknown,cudaStreamDestroy#1=cudaErrorUnknown,cudaFree#1=cudaErrorUnknown,"
            "ncclCommAbort#1=ncclInternalError,cudaHostUnregister#1=cudaErrorUnknown"}};
  auto ends = run(1, [](int rank, Communicator& comm) { return allReduce(comm, rank, 1); }, o);
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_TRUE(test::failures(ends).empty()) << test::joined(test::failures(ends));
  for (const char* want : {"cudaEventDestroy failed: cudaErrorUnknown", "cudaStreamDestroy failed: cudaErrorUnknown",
                           "cudaFree failed: cudaErrorUnknown", "ncclCommAbort at teardown failed: internal error",
                           "cudaHostUnregister("})
    EXPECT_TRUE(has(ends[0].err, want)) << want << " in:\n" << ends[0].err;
  // An abort that fails after a failed run, and after a failed init.
  o.env = {{"COLLVIZ_STANDIN_FAULT", "cudaEventQuery#1=cudaErrorUnknown,ncclCommAbort#1=ncclInternalError"}};
  ends = run(1, [](int rank, Communicator& comm) { return allReduce(comm, rank, 1); }, o);
  EXPECT_TRUE(has(ends[0].err, "ncclCommAbort failed: internal error")) << ends[0].err;
  o.env = {{"COLLVIZ_STANDIN_FAULT", "cudaMemset#1=cudaErrorUnknown,ncclCommAbort#1=ncclInternalError"}};
  o.started_before = 7000ms;
  ends = run(2, [](int, Communicator&) { return std::string(); }, o);
  EXPECT_TRUE(has(ends[0].err + ends[1].err, "ncclCommAbort after a failed init failed: internal error"))
      << ends[0].err << ends[1].err;
}

// The second call of each kind fails, not the first: the copy stream's
// destroy (the op stream's comes first), the second event's and the second
// buffer's. Each failure is logged once, and only the ones injected.
TEST(NcclFaults, TheSecondTeardownCallOfEachKindIsCheckedToo) {
  GroupOptions o;
  o.capture_stderr = true;
  o.env = {{"COLLVIZ_STANDIN_FAULT", "cudaStreamDestroy#2=cudaErrorUnknown,cudaEventDestroy#2=cudaErrorUnknown,cudaFree#2=cudaErrorUnknown"}};
  auto ends = run(1, [](int rank, Communicator& comm) { return allReduce(comm, rank, 1); }, o);
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_TRUE(test::failures(ends).empty()) << test::joined(test::failures(ends));
  auto count = [&](const std::string& want) {
    int n = 0;
    for (std::size_t at = ends[0].err.find(want); at != std::string::npos; at = ends[0].err.find(want, at + 1)) ++n;
    return n;
  };
  for (const char* want : {"cudaStreamDestroy failed: cudaErrorUnknown", "cudaEventDestroy failed: cudaErrorUnknown",
                           "cudaFree failed: cudaErrorUnknown"})
    EXPECT_EQ(count(want), 1) << want << " in:\n" << ends[0].err;
}

// ---- the probe and NVML ----------------------------------------------------------------

TEST(NcclFaults, TheProbeNamesTheStandInAndSaysWhereFreeMemoryCameFrom) {
  auto p = testdata::probeInChild();
  EXPECT_EQ(p.value("devices", ""), "1 x stand-in: host memory, not a GPU (16 GiB)");
  ASSERT_EQ(p.at("gpu_memory").size(), 1u);
  EXPECT_EQ(p.at("gpu_memory")[0].value("source", ""), "nvml");
  EXPECT_EQ(p.at("gpu_memory")[0].value("free", 0ull), 16ull << 30);
  struct Case {
    const char* rule;
    const char* source;
  };
  for (const Case& c :
       {Case{"nvmlInit_v2=NVML_ERROR_UNKNOWN", "cuda (nvmlInit_v2 returned 999)"},
        Case{"nvmlDeviceGetHandleByPciBusId_v2=NVML_ERROR_NOT_FOUND",
             "cuda (nvmlDeviceGetHandleByPciBusId_v2(0000:C0:00.0) returned 6)"},
        Case{"nvmlDeviceGetMemoryInfo=NVML_ERROR_UNKNOWN", "cuda (nvmlDeviceGetMemoryInfo returned 999)"},
        Case{"cudaDeviceGetPCIBusId=cudaErrorUnknown", "cuda (cudaDeviceGetPCIBusId: cudaErrorUnknown)"}}) {
    SCOPED_TRACE(c.rule);
    p = testdata::probeInChild({{"COLLVIZ_STANDIN_FAULT", c.rule}});
    ASSERT_EQ(p.at("gpu_memory").size(), 1u);
    EXPECT_EQ(p.at("gpu_memory")[0].value("source", ""), c.source);
    EXPECT_EQ(p.at("gpu_memory")[0].value("free", 0ull), 16ull << 30) << p.dump();
  }
  p = testdata::probeInChild({{"COLLVIZ_STANDIN_FAULT", "nvmlInit_v2=NVML_ERROR_UNKNOWN,cudaMemGetInfo=cudaErrorUnknown"}});
  EXPECT_TRUE(has(p.at("gpu_memory")[0].value("error", ""), "cudaMemGetInfo: cudaErrorUnknown")) << p.dump();
  p = testdata::probeInChild({{"COLLVIZ_STANDIN_FAULT", "ncclGetVersion=ncclSystemError"}});
  EXPECT_EQ(p.value("reason", ""), "ncclGetVersion failed");
  p = testdata::probeInChild({{"COLLVIZ_STANDIN_FAULT", "cudaRuntimeGetVersion=cudaErrorUnknown"}});
  EXPECT_EQ(p.value("cuda_runtime", ""), "0.0");
  p = testdata::probeInChild({{"COLLVIZ_STANDIN_NCCL_VERSION", "20900"}});  // before bf16 and ncclAvg
  EXPECT_EQ(p.at("dtypes").dump(), R"(["f32","f64","f16","i32","i64","u8"])");
  EXPECT_EQ(p.at("redops").dump(), R"(["sum","prod","min","max"])");
  // A GPU whose properties cannot be read keeps its place, and its unknown
  // memory caps nothing.
  p = testdata::probeInChild({{"COLLVIZ_STANDIN_FAULT", "cudaGetDeviceProperties=cudaErrorUnknown"}});
  EXPECT_EQ(p.value("devices", ""), "1 x GPU 0 (properties unavailable)");
  EXPECT_TRUE(p.value("available", false)) << p.dump();
  EXPECT_EQ(p.value("max_rank_bytes", 0ull), std::uint64_t(kMaxRankBytes)) << p.dump();
  p = testdata::probeInChild({{"COLLVIZ_STANDIN_GPUS", "3"}, {"CUDA_VISIBLE_DEVICES", "2,0"}});
  EXPECT_EQ(p.value("devices", ""), "2 x stand-in: host memory, not a GPU (16 GiB)");
}

// Several GPUs: 4 ranks on 2, two on each (one NCCL_HOSTID per slot).
TEST(NcclFaults, SeveralRanksOnEachOfSeveralGpus) {
  GroupOptions o;
  o.env = {{"COLLVIZ_STANDIN_GPUS", "2"}};
  auto ends = test::runRanks(4, 2, g_version, [](int rank, Communicator& comm) -> std::string {
    std::string r = allReduce(comm, rank, 4);
    const BackendInfo b = comm.describe();
    if (!has(b.devices, "2 x stand-in: host memory, not a GPU (16 GiB); 4 ranks, up to 2 per GPU"))
      r += " devices: " + b.devices;
    if (!has(b.transport, "4 ranks on 2 GPUs")) r += " transport: " + b.transport;
    return r;
  }, o);
  EXPECT_TRUE(test::failures(ends).empty()) << test::joined(test::failures(ends));
}

}  // namespace
}  // namespace collviz

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const auto probe = collviz::testdata::probeInChild();
  const std::string devices = probe.value("devices", std::string());
  if (!probe.value("available", false) || devices.find("stand-in") == std::string::npos) {
    std::printf("SKIPPED: these tests inject faults through the stand-in CUDA runtime and NCCL "
                "(COLLVIZ_STANDIN=1, build/standin on LD_LIBRARY_PATH); here NCCL is %s\n",
                probe.value("available", false) ? ("on " + devices).c_str()
                                                 : probe.value("reason", std::string("?")).c_str());
    return 77;
  }
  collviz::g_version = probe.value("version_code", 0);
  return RUN_ALL_TESTS();
}
