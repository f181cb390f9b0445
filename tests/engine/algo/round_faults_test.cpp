// COLLVIZ_FAULT's round_* modes (engine/worker/fault.h): a fault inside one
// round of an algorithm, made by the round runner in the workers. Each must
// be caught by the per-round check and named by the round it hit, the
// rounds before it must still check out, and the output's comparison with
// the native op must name the elements that differ. Back to back (bench -c)
// the engine must still name the round.
#include <gmock/gmock.h>

#include "tests/engine/engine_test_support.h"

namespace collviz::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

std::shared_ptr<const Snapshot> runAlgo(Engine& e, const std::string& algo, const OpSpec& s,
                                        const std::string& fault, bool every_round = true) {
  Request r;
  r.spec = s;
  r.backend = BackendKind::gloo;
  r.algo = algo;
  r.fault = fault;
  r.every_round = every_round;
  const uint64_t id = e.submit(r);
  auto snap = e.waitFor(id, 60s);
  return snap && snap->request == id ? snap : nullptr;
}

struct Case {
  std::string fault;
  std::string algo;
  Op op;
  int ranks;
  int round;  // the round the fault hits, 1-based
};

// Every mode, on several algorithms and in both phases of ring all_reduce.
const Case kCases[] = {
    {"round_skip_recv:3", "ring", Op::all_reduce, 4, 3},
    {"round_skip_recv:5", "ring", Op::all_reduce, 4, 5},
    {"rank:2,round_skip_recv:2", "bruck", Op::all_to_all, 5, 2},
    {"round_skip_recv:2", "tree", Op::broadcast, 4, 2},
    {"round_skip_reduce:2", "ring", Op::all_reduce, 4, 2},
    {"rank:1,round_skip_reduce:1", "halving_doubling", Op::all_reduce, 4, 1},
    {"round_skip_reduce:1", "tree", Op::reduce, 5, 1},
    {"round_corrupt:5", "ring", Op::all_reduce, 4, 5},
    {"rank:3,round_corrupt:1", "pairwise", Op::all_to_all, 4, 1},
    {"round_corrupt:2", "recursive_doubling", Op::all_gather, 4, 2},
    {"round_swap:4", "ring", Op::all_reduce, 4, 4},
    {"rank:0,round_swap:1", "recursive_doubling", Op::all_gather, 4, 1},
    {"round_swap:1", "direct", Op::scatter, 3, 1},
};

TEST(RoundFaults, EachIsCaughtAndNamedByTheRoundItHit) {
  Engine engine;
  for (const Case& c : kCases) {
    const OpSpec s = makeSpec(c.op, c.ranks, 4);
    SCOPED_TRACE(c.fault + " on " + c.algo + " " + describe(s));
    auto snap = runAlgo(engine, c.algo, s, c.fault);
    ASSERT_TRUE(snap && snap->error.empty()) << (snap ? snap->error : "no snapshot");
    EXPECT_FALSE(snap->verified);
    const int rounds = int(snap->steps.size());
    ASSERT_GE(rounds, c.round);
    for (int k = 0; k < c.round - 1; ++k)
      EXPECT_TRUE(snap->steps[std::size_t(k)].verify.verified)
          << "round " << k + 1 << " was before the fault: " << snap->steps[std::size_t(k)].verify.first_problem;
    const StepResult& hit = snap->steps[std::size_t(c.round - 1)];
    EXPECT_FALSE(hit.verify.verified) << "round " << c.round << " was broken and checked out";
    // Counted as the view counts them: "step k/n" where the schedule has
    // local steps (Bruck's rotations, pairwise's own block), else "round".
    bool local_steps = false;
    for (const StepResult& st : snap->steps) local_steps = local_steps || (st.transfers.empty() && !st.local.empty());
    const std::string want = std::string(local_steps ? "step " : "round ") + std::to_string(c.round) + "/" +
                             std::to_string(rounds) +
                             " (" + hit.name + "): ";
    EXPECT_THAT(snap->problem, StartsWith(want));
    EXPECT_THAT(snap->problem, HasSubstr("from the reference"));
    // The output against the native op: counted and named, never silently equal.
    ASSERT_TRUE(snap->final_compared);
    if (snap->final_diffs > 0) {
      EXPECT_FALSE(snap->final_diff_places.empty());
      EXPECT_THAT(snap->final_diff_places.front(), HasSubstr("from the native op"));
    }
  }
}

// Where the fault leaves the output wrong, the comparison with the native
// op must say so (not only the rounds' checks).
TEST(RoundFaults, TheOutputDiffersFromTheNativeOp) {
  Engine engine;
  const OpSpec s = makeSpec(Op::all_reduce, 4, 4);
  for (const std::string f : {"round_skip_recv:3", "round_corrupt:6", "round_skip_reduce:1"}) {
    SCOPED_TRACE(f);
    auto snap = runAlgo(engine, "ring", s, f);
    ASSERT_TRUE(snap && snap->error.empty()) << (snap ? snap->error : "no snapshot");
    ASSERT_TRUE(snap->final_compared);
    EXPECT_GT(snap->final_diffs, 0);
    ASSERT_FALSE(snap->final_diff_places.empty());
    EXPECT_THAT(snap->final_diff_places.front(), StartsWith("rank "));
  }
}

// bench -c: the rounds back to back, checked once at the end; a wrong
// output still names the first round that went wrong.
TEST(RoundFaults, BackToBackTheRoundIsStillNamed) {
  Engine engine;
  const OpSpec s = makeSpec(Op::all_reduce, 4, 4);
  auto snap = runAlgo(engine, "ring", s, "round_skip_recv:3", false);
  ASSERT_TRUE(snap && snap->error.empty()) << (snap ? snap->error : "no snapshot");
  EXPECT_FALSE(snap->verified);
  EXPECT_THAT(snap->problem, StartsWith("round 3/6 (reduce-scatter 3/3): "));
}

// round_corrupt:1 on ring all_reduce flips a low bit that the later sums
// lose: the output is right and the native op agrees, but round 1 was
// wrong. Back to back (bench -c) that must still be a wrong run, naming
// the round, as round by round it is.
TEST(RoundFaults, BackToBackARoundCoveredLaterIsStillWrong) {
  Engine engine;
  const OpSpec s = makeSpec(Op::all_reduce, 4, 64);
  for (bool every_round : {true, false}) {
    SCOPED_TRACE(every_round ? "round by round" : "back to back");
    auto snap = runAlgo(engine, "ring", s, "round_corrupt:1", every_round);
    ASSERT_TRUE(snap && snap->error.empty()) << (snap ? snap->error : "no snapshot");
    EXPECT_FALSE(snap->verified);
    EXPECT_THAT(std::string(snap->problem), StartsWith("round 1/6 (reduce-scatter 1/3): "));
    if (!every_round) {
      ASSERT_EQ(snap->steps.size(), 1u);
      EXPECT_FALSE(snap->steps[0].verify.verified);
      EXPECT_GT(snap->steps[0].verify.wrong, 0);
    }
  }
}

TEST(RoundFaults, NoFaultNoProblem) {
  Engine engine;
  auto snap = runAlgo(engine, "ring", makeSpec(Op::all_reduce, 4, 4), "");
  ASSERT_TRUE(snap && snap->error.empty()) << (snap ? snap->error : "no snapshot");
  EXPECT_TRUE(snap->verified);
  EXPECT_EQ(snap->problem, "");
  EXPECT_EQ(snap->final_diffs, 0);
  EXPECT_TRUE(snap->final_diff_places.empty());
}

TEST(RoundFaults, ARoundPastTheLastSaysWhatIsAllowed) {
  Engine engine;
  auto snap = runAlgo(engine, "ring", makeSpec(Op::all_reduce, 4, 4), "round_corrupt:7");
  ASSERT_TRUE(snap);
  EXPECT_THAT(snap->error, HasSubstr("COLLVIZ_FAULT=round_corrupt:7"));
  EXPECT_THAT(snap->error, HasSubstr("has 6 round(s) (allowed: 1 to 6)"));
  auto bad = runAlgo(engine, "ring", makeSpec(Op::all_reduce, 4, 4), "round_corrupt:x");
  ASSERT_TRUE(bad);
  EXPECT_THAT(bad->error, HasSubstr("is not a round number"));
  EXPECT_THAT(bad->error, HasSubstr("round_skip_recv:K"));
}

// The native op is the reference the rounds are compared with: a round
// fault never touches it. Asked of a native run alone it would do nothing,
// so it is refused there (it ran "verified" beside "wrong by design").
TEST(RoundFaults, TheNativeCallIsLeftAlone) {
  Engine engine;
  Request r;
  r.spec = makeSpec(Op::all_reduce, 4, 4);
  r.backend = BackendKind::gloo;
  r.fault = "round_corrupt:1";
  auto snap = engine.waitFor(engine.submit(r), 60s);
  ASSERT_TRUE(snap);
  EXPECT_TRUE(snap->rejected);
  EXPECT_FALSE(snap->verified);
  EXPECT_THAT(std::string(snap->error), HasSubstr("a round fault acts on an algorithm's rounds"));
  // In an algorithm's run the native call it is compared with stays right:
  // the rounds' output differs from it where the fault hit.
  auto algo = runAlgo(engine, "ring", r.spec, "round_skip_recv:3");
  ASSERT_TRUE(algo && algo->error.empty()) << (algo ? algo->error : "no snapshot");
  EXPECT_FALSE(algo->verified);
  EXPECT_GT(algo->final_diffs, 0);
}

// A fault that would do nothing on the run it is given is refused before a
// worker runs, naming what it can apply to (issues 38 and 39: these ended
// "verified", exit 0, beside "the result is wrong by design").
struct Refused {
  std::string fault, algo;
  Op op;
  int ranks;
  std::string says;
};
const Refused kRefused[] = {
    {"skip_after_first", "ring", Op::all_reduce, 4,
     "skip_after_first skips the backend's collective calls after the first, and an algorithm's run "
     "(ring all_reduce) makes one"},
    {"rank:1,skip_after_first", "recursive_doubling", Op::all_gather, 4, "allowed with --algo: round_skip_recv:K"},
    {"round_skip_reduce:1", "ring", Op::all_gather, 4,
     "round_skip_reduce: round 1 of ring all_gather at N=4 has no reduce, so nothing would be dropped "
     "(rounds with a reduce: none)"},
    {"round_skip_reduce:2", "pairwise", Op::all_to_all, 4, "has no reduce"},
    {"round_skip_reduce:4", "ring", Op::all_reduce, 4,
     "round 4 of ring all_reduce at N=4 has no reduce, so nothing would be dropped (rounds with a reduce: 1, 2, 3)"},
    {"rank:0,round_skip_recv:1", "tree", Op::broadcast, 4,
     "round_skip_recv: rank 0 receives nothing in round 1 of tree broadcast at N=4, so nothing would be "
     "dropped (rounds where it receives: none)"},
    {"rank:3,round_skip_reduce:1", "tree", Op::reduce, 4, "rank 3 combines nothing in round 1"},
    {"round_skip_reduce:1", "native", Op::all_reduce, 4,
     "a round fault acts on an algorithm's rounds (--algo, --algo-file); this run is the backend's own call"},
    {"rank:2,round_corrupt:1", "native", Op::all_gather, 4, "a round fault acts on an algorithm's rounds"},
};

TEST(RoundFaults, AFaultThatWouldDoNothingIsRefusedWithWhatItCanApplyTo) {
  Engine engine;
  for (const Refused& c : kRefused) {
    SCOPED_TRACE(c.fault + " on " + c.algo);
    for (bool every_round : {true, false}) {  // run and bench -c alike
      auto snap = runAlgo(engine, c.algo, makeSpec(c.op, c.ranks, 4), c.fault, every_round);
      ASSERT_TRUE(snap);
      EXPECT_TRUE(snap->rejected) << "ran: " << snap->notice;
      EXPECT_FALSE(snap->verified);
      EXPECT_THAT(std::string(snap->error), HasSubstr("COLLVIZ_FAULT=" + c.fault + ": "));
      EXPECT_THAT(std::string(snap->error), HasSubstr(c.says));
    }
  }
  // The same modes where they do act still run (and are caught).
  for (auto [fault, algo, op] : {std::tuple{"rank:1,round_skip_recv:1", "tree", Op::broadcast},
                                 {"round_skip_reduce:3", "ring", Op::all_reduce},
                                 {"skip_after_first", "native", Op::all_reduce}}) {
    SCOPED_TRACE(fault);
    auto snap = runAlgo(engine, algo, makeSpec(op, 4, 4), fault);
    ASSERT_TRUE(snap && snap->error.empty()) << (snap ? snap->error : "no snapshot");
    EXPECT_FALSE(snap->verified);
  }
}

// Never the notice "wrong by design" beside a clean verdict: a fault that
// is meant to break the result and did not (skip_after_first on a group's
// first call with no warm-up) says it changed nothing; a late reply says
// the result is not changed.
TEST(RoundFaults, NeverWrongByDesignBesideACleanVerdict) {
  Engine engine;
  Request r;
  r.spec = makeSpec(Op::all_reduce, 4, 4);
  r.backend = BackendKind::gloo;
  r.fault = "skip_after_first";
  r.warmup = 0;
  r.iters = 1;
  auto first = engine.waitFor(engine.submit(r), 60s);
  ASSERT_TRUE(first && first->error.empty()) << (first ? first->error : "no snapshot");
  EXPECT_TRUE(first->verified);  // the first call runs
  EXPECT_THAT(std::string(first->notice), Not(HasSubstr("wrong by design")));
  EXPECT_THAT(std::string(first->notice), HasSubstr("COLLVIZ_FAULT=skip_after_first: a fault injected on purpose, but this "
                                       "run's result checked out: the fault changed nothing here"));
  auto second = engine.waitFor(engine.submit(r), 60s);  // skipped: wrong, and said so
  ASSERT_TRUE(second && second->error.empty()) << (second ? second->error : "no snapshot");
  EXPECT_FALSE(second->verified);
  EXPECT_THAT(std::string(second->notice), HasSubstr("the result is wrong by design"));
  r.fault = "delay_ms:1";
  auto late = engine.waitFor(engine.submit(r), 60s);
  ASSERT_TRUE(late && late->error.empty()) << (late ? late->error : "no snapshot");
  EXPECT_TRUE(late->verified);
  EXPECT_THAT(std::string(late->notice), HasSubstr("a rank replies late (its result is not changed)"));
  EXPECT_THAT(std::string(late->notice), Not(HasSubstr("wrong by design")));
}

}  // namespace
}  // namespace collviz::test
