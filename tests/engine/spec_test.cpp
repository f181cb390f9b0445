// Bad specs are rejected before anything runs, with a message naming the
// field and the allowed values: by validate(), and through the Engine.
#include <gmock/gmock.h>

#include "tests/engine/engine_test_support.h"

namespace collviz::test {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

BackendCaps glooCaps() {
  static BackendCaps caps = [] {
    Engine e;
    const BackendStatus* g = e.devices().find(BackendKind::gloo);
    return g ? g->caps : BackendCaps{};
  }();
  return caps;
}

struct Bad {
  const char* what;
  OpSpec spec;
  std::vector<std::string> says;  // every one must appear in the message
};

std::vector<Bad> badSpecs() {
  auto with = [](auto f) { OpSpec s; f(s); return s; };
  return {
      {"E = 0", with([](OpSpec& s) { s.elems = 0; }),
       {"elems = 0", "allowed: 1 or more"}},
      {"E < 0", with([](OpSpec& s) { s.elems = -5; }), {"elems = -5", "allowed: 1 or more"}},
      {"root = N", with([](OpSpec& s) { s.root = 4; }),
       {"root = 4", "allowed: 0 to 3", "ranks = 4"}},
      {"root < 0", with([](OpSpec& s) { s.op = Op::broadcast; s.root = -1; }),
       {"root = -1", "allowed: 0 to 3"}},
      {"root >= N for gather N=2", with([](OpSpec& s) { s.op = Op::gather; s.ranks = 2; s.root = 7; }),
       {"root = 7", "allowed: 0 to 1"}},
      {"N = 0", with([](OpSpec& s) { s.ranks = 0; }), {"ranks = 0", "allowed: 1 to 16"}},
      {"N = 17", with([](OpSpec& s) { s.ranks = 17; }), {"ranks = 17", "allowed: 1 to 16"}},
      {"N = -3", with([](OpSpec& s) { s.ranks = -3; }), {"ranks = -3", "allowed: 1 to 16"}},
      {"avg i32", with([](OpSpec& s) { s.redop = RedOp::avg; s.dtype = DType::i32; }),
       {"redop avg", "f32, f64, f16, bf16", "dtype is i32"}},
      {"avg u8", with([](OpSpec& s) { s.redop = RedOp::avg; s.dtype = DType::u8; }),
       {"redop avg", "dtype is u8"}},
  };
}

TEST(Validate, AcceptsTheDefaultsAndEveryGoodCorner) {
  EXPECT_TRUE(validate(OpSpec{}));
  EXPECT_TRUE(validate(OpSpec{}, glooCaps()));
  EXPECT_TRUE(validate(makeSpec(Op::broadcast, 1, 1, DType::u8, RedOp::sum, 0), glooCaps()));
  EXPECT_TRUE(validate(makeSpec(Op::reduce, 16, 1, DType::f16, RedOp::avg, 15), glooCaps()));
  // avg with an integer dtype is fine where the op does not reduce? No:
  // validate() refuses it for any op (the field combination is invalid).
  EXPECT_FALSE(validate(makeSpec(Op::broadcast, 4, 4, DType::i32, RedOp::avg)));
}

TEST(Validate, RejectsEachBadFieldWithItsAllowedValues) {
  for (const Bad& b : badSpecs()) {
    SCOPED_TRACE(b.what);
    const Status st = validate(b.spec);
    ASSERT_FALSE(st);
    for (const auto& want : b.says) EXPECT_THAT(st.message(), HasSubstr(want));
    EXPECT_FALSE(validate(b.spec, glooCaps()));
  }
}

TEST(Validate, BackendCapsAndMemoryCap) {
  const BackendCaps caps = glooCaps();
  ASSERT_EQ(caps.name, "gloo");
  OpSpec bf = makeSpec(Op::all_reduce, 4, 4, DType::bf16);
  EXPECT_TRUE(validate(bf));  // backend-independent: bf16 exists
  EXPECT_THAT(validate(bf, caps).message(),
              AllOf(HasSubstr("dtype bf16"), HasSubstr("backend gloo"),
                    HasSubstr("allowed: f32, f64, f16, i32, i64, u8")));
  // Sizes over the cap (4 GiB per rank, input + output): N*E*size*2.
  OpSpec big = makeSpec(Op::all_reduce, 4, int64_t(1) << 28, DType::f32);  // exactly 8 GiB
  EXPECT_THAT(validate(big, caps).message(),
              AllOf(HasSubstr("elems = 268435456"), HasSubstr("over the cap of 4294967296"),
                    HasSubstr("allowed: elems <= 134217728")));
  big.elems = 134217728;  // exactly at the cap
  EXPECT_TRUE(validate(big, caps));
  big.elems = 134217729;
  EXPECT_FALSE(validate(big, caps));
  big.elems = int64_t(1) << 62;  // no overflow into a small number
  EXPECT_FALSE(validate(big, caps));
  // A backend with fewer ranks and fewer reduce ops.
  BackendCaps small = caps;
  small.name = "tiny";
  small.max_ranks = 2;
  small.redops = {RedOp::sum};
  EXPECT_THAT(validate(makeSpec(Op::all_reduce, 3, 4), small).message(),
              AllOf(HasSubstr("ranks = 3"), HasSubstr("allowed: 1 to 2")));
  EXPECT_THAT(validate(makeSpec(Op::all_reduce, 2, 4, DType::f32, RedOp::max), small).message(),
              AllOf(HasSubstr("redop max"), HasSubstr("allowed: sum")));
  // A copy op does not use the reduce op: max on broadcast is not refused.
  EXPECT_TRUE(validate(makeSpec(Op::broadcast, 2, 4, DType::f32, RedOp::max), small));
}

TEST(Validate, NamesRoundTrip) {
  for (int i = 0; i < kOpCount; ++i) EXPECT_EQ(parseOp(name(Op(i))), Op(i));
  for (int i = 0; i < kDTypeCount; ++i) EXPECT_EQ(parseDType(name(DType(i))), DType(i));
  for (int i = 0; i < kRedOpCount; ++i) EXPECT_EQ(parseRedOp(name(RedOp(i))), RedOp(i));
  EXPECT_FALSE(parseOp("nope"));
  EXPECT_FALSE(parseOp("all_reduce_decomposed"));  // a program, not an op
  EXPECT_EQ(allowedOps(), "broadcast, scatter, gather, reduce, all_gather, reduce_scatter, "
                          "all_reduce, all_to_all");
}

// Through the Engine: the snapshot carries the message, has no steps, and no
// worker was started or touched.
TEST(EngineRejects, BadSpecsBeforeAnythingRuns) {
  Engine engine;
  std::vector<Bad> bad = badSpecs();
  bad.push_back({"bf16 on gloo", makeSpec(Op::all_reduce, 4, 4, DType::bf16),
                 {"dtype bf16", "allowed: f32, f64, f16, i32, i64, u8"}});
  bad.push_back({"over the memory cap", makeSpec(Op::all_to_all, 8, int64_t(1) << 40),
                 {"over the cap", "allowed: elems <="}});
  for (const Bad& b : bad) {
    SCOPED_TRACE(b.what);
    auto snap = runAndWait(engine, b.spec, Program::single, 10s);
    ASSERT_TRUE(snap);
    EXPECT_FALSE(snap->verified);
    EXPECT_TRUE(snap->steps.empty());
    for (const auto& want : b.says) EXPECT_THAT(snap->error, HasSubstr(want));
    EXPECT_TRUE(engine.workerPids().empty()) << "a worker started for a bad spec";
    // The decomposition is refused the same way.
    auto dec = runAndWait(engine, b.spec, Program::all_reduce_decomposed, 10s);
    ASSERT_TRUE(dec);
    EXPECT_FALSE(dec->error.empty());
    EXPECT_TRUE(dec->steps.empty());
  }
  // A live group is left alone by a bad request.
  auto ok = runAndWait(engine, makeSpec(Op::all_reduce, 2, 4));
  ASSERT_TRUE(ok && ok->verified);
  const auto pids = engine.workerPids();
  ASSERT_EQ(pids.size(), 2u);
  for (const Bad& b : bad) {
    auto snap = runAndWait(engine, b.spec, Program::single, 10s);
    ASSERT_TRUE(snap);
    EXPECT_FALSE(snap->error.empty()) << b.what;
    EXPECT_EQ(engine.workerPids(), pids) << b.what;
  }
  auto again = runAndWait(engine, makeSpec(Op::all_reduce, 2, 4));
  ASSERT_TRUE(again && again->verified);
  EXPECT_EQ(engine.workerPids(), pids);
  // reconfigure with a bad N is refused too.
  const uint64_t id = engine.reconfigure(0, BackendKind::gloo);
  auto rc = engine.waitFor(id, 10s);
  ASSERT_TRUE(rc);
  EXPECT_THAT(rc->error, HasSubstr("ranks = 0"));
}

TEST(EngineRejects, UnavailableBackendSaysWhy) {
  Engine engine;
  const BackendStatus* nccl = engine.devices().find(BackendKind::nccl);
  if (nccl && nccl->available) GTEST_SKIP() << "NCCL is available here";
  const uint64_t id = engine.run(makeSpec(Op::all_reduce, 2, 4), Program::single,
                                 BackendKind::nccl);
  auto snap = engine.waitFor(id, 10s);
  ASSERT_TRUE(snap);
  EXPECT_FALSE(snap->error.empty());
  EXPECT_TRUE(snap->steps.empty());
  EXPECT_TRUE(engine.workerPids().empty());
  // auto falls back to Gloo and says so.
  const uint64_t id2 = engine.run(makeSpec(Op::all_reduce, 2, 4));
  auto snap2 = engine.waitFor(id2, 60s);
  ASSERT_TRUE(snap2);
  EXPECT_TRUE(snap2->verified) << snap2->error;
  EXPECT_EQ(snap2->backend.name, "gloo");
  EXPECT_THAT(snap2->notice, HasSubstr("using Gloo"));
}

}  // namespace
}  // namespace collviz::test
