// A job's call as collviz's own op (engine/job/to_op.cpp): the op, the
// group's ranks (at most 16), the dtype, the elements per block from the
// call's own, capped to what a rank may hold; and the reason for what
// collviz cannot run (point-to-point, barrier, coalesced ops, a dtype it
// has not, an op it has not).
#include <gtest/gtest.h>

#include "engine/job/job.h"
#include "tap/capture_format.h"
#include "tests/engine/job/fr_writer.h"

namespace collviz::job {
namespace {

struct One {
  Job job;
  Call call;
  One(const std::string& op, const std::string& dtype, int ranks, std::int64_t inElems, bool p2p = false) {
    Builder b(job);
    const int g = b.group("5");
    for (int r = 0; r < ranks; ++r) job.groups[std::size_t(g)].ranks.push_back(r);
    job.groups[std::size_t(g)].size = ranks;
    call.group = g;
    call.op = b.intern(op);
    call.dtype = b.intern(dtype);
    call.inElems = inElems;
    call.p2p = p2p;
  }
};

TEST(ToOpSpec, AnAllReduceAtItsShape) {
  One o("all_reduce", "BFloat16", 4, 4096 * 5120);
  const OpMapping m = toOpSpec(o.job, o.call);
  ASSERT_TRUE(m.ok) << std::string(m.reason);
  EXPECT_EQ(m.spec.op, Op::all_reduce);
  EXPECT_EQ(m.spec.ranks, 4);
  EXPECT_EQ(m.spec.dtype, DType::bf16);
  const int blocks = inputBlocks(Op::all_reduce, 4, 1, 0);
  EXPECT_EQ(m.elems, 4096 * 5120 / blocks);
  EXPECT_EQ(m.spec.elems, m.elems);
  ASSERT_EQ(m.changes.size(), 1u);
  EXPECT_EQ(std::string(m.changes[0]), "the reduction is not in the file: sum");
  EXPECT_TRUE(validate(m.spec));
}

TEST(ToOpSpec, CappedToTheMachineAndToSixteenRanks) {
  One o("all_gather", "ncclFloat32", 64, 1 << 20);
  const OpMapping m = toOpSpec(o.job, o.call, 1 << 20);  // 1 MiB a rank
  ASSERT_TRUE(m.ok) << std::string(m.reason);
  EXPECT_EQ(m.spec.ranks, 16);
  EXPECT_EQ(m.spec.dtype, DType::f32);
  EXPECT_LE(std::int64_t(inputBytes(m.spec, 0) + outputBytes(m.spec, 0)), 1 << 20);
  EXPECT_LT(m.spec.elems, m.elems);
  ASSERT_EQ(m.changes.size(), 2u);
  EXPECT_EQ(std::string(m.changes[0]), "64 ranks shown as 16: collviz runs at most 16");
  EXPECT_NE(std::string(m.changes[1]).find("elements per block capped to"), std::string::npos);
}

TEST(ToOpSpec, WhatCollvizCannotRunSaysWhy) {
  const struct {
    const char* op;
    const char* dtype;
    bool p2p;
    const char* why;
  } cases[] = {
      {"send", "Float", true, "send is point-to-point: collviz runs collectives"},
      {"barrier", "Float", false, "a barrier moves no data: collviz has no op of its own for it"},
      {"all_gather_into_tensor_coalesced", "Float", false, "all_gather_into_tensor_coalesced is several ops launched as one"},
      {"all_reduce", "Bool", false, "dtype Bool has no collviz equivalent; allowed: "},
      {"frobnicate", "Float", false, "collviz has no op frobnicate; its ops: "},
  };
  for (const auto& c : cases) {
    One o(c.op, c.dtype, 4, 1024, c.p2p);
    const OpMapping m = toOpSpec(o.job, o.call);
    EXPECT_FALSE(m.ok) << c.op;
    EXPECT_EQ(std::string(m.reason).rfind(c.why, 0), 0u) << std::string(m.reason);
  }
  One unknownSize("all_reduce", "Float", 4, -1);
  EXPECT_EQ(std::string(toOpSpec(unknownSize.job, unknownSize.call).reason), "its size is not known");
}

TEST(ToOpSpec, ARealStuckCollectiveMaps) {
  Job job;
  Builder b(job);
  const int g = b.group("74");
  job.groups[std::size_t(g)].ranks = {12, 13, 14, 15};
  job.groups[std::size_t(g)].size = 4;
  Call c;  // rank 13's all_to_all #20537 of the first real run: 4027x5120 BFloat16
  c.group = g, c.op = b.intern("all_to_all"), c.dtype = b.intern("BFloat16"), c.inElems = 4027 * 5120;
  const OpMapping m = toOpSpec(job, c);
  ASSERT_TRUE(m.ok) << std::string(m.reason);
  EXPECT_EQ(m.spec.op, Op::all_to_all);
  EXPECT_EQ(m.elems, 4027 * 5120 / 4);
  EXPECT_TRUE(m.changes.empty());
}

// The names PyTorch and NCCL give a collective, read from a Flight Recorder
// dump, open as collviz's op (restated here, not read from the alias table):
// a wrong alias would open a call as another op.
TEST(ToOpSpec, EveryAliasOpensAsItsOwnOp) {
  const struct {
    const char* name;
    const char* plain;
    Op op;
  } cases[] = {
      {"nccl:allreduce", "all_reduce", Op::all_reduce},
      {"nccl:AllReduce", "all_reduce", Op::all_reduce},
      {"nccl:allgather", "all_gather", Op::all_gather},
      {"nccl:_allgather_base", "all_gather", Op::all_gather},
      {"nccl:all_gather_into_tensor", "all_gather", Op::all_gather},
      {"nccl:reducescatter", "reduce_scatter", Op::reduce_scatter},
      {"nccl:_reduce_scatter_base", "reduce_scatter", Op::reduce_scatter},
      {"nccl:reduce_scatter_tensor", "reduce_scatter", Op::reduce_scatter},
      {"nccl:alltoall", "all_to_all", Op::all_to_all},
      {"nccl:all_to_all_single", "all_to_all", Op::all_to_all},
      {"nccl:alltoallv", "all_to_all", Op::all_to_all},
      {"nccl:all_to_allv", "all_to_all", Op::all_to_all},
      {"gloo:broadcast", "broadcast", Op::broadcast},
  };
  for (const auto& c : cases) {
    test::FrDump d;
    d.groups = {{"0", "default_pg", {0, 1, 2, 3}}};
    test::FrEntry e;
    e.name = c.name;
    e.in = {{4096}}, e.out = {{4096}};
    d.entries = {e};
    auto job = readBytes(test::pickleDump(d), "_dump_1");
    ASSERT_TRUE(job) << job.error().message;
    ASSERT_EQ(job->calls.size(), 1u) << c.name;
    EXPECT_EQ(job->str(job->calls[0].op), c.plain) << c.name;
    const OpMapping m = toOpSpec(*job, job->calls[0]);
    ASSERT_TRUE(m.ok) << c.name << ": " << std::string(m.reason);
    EXPECT_EQ(m.spec.op, c.op) << c.name << " opened as " << name(m.spec.op);
  }
  // A barrier, however it is named, is no data op: refused, said why.
  test::FrDump d;
  d.groups = {{"0", "default_pg", {0, 1, 2, 3}}};
  test::FrEntry e;
  e.name = "nccl:all_reduce_barrier";
  d.entries = {e};
  auto job = readBytes(test::pickleDump(d), "_dump_1");
  ASSERT_TRUE(job) << job.error().message;
  EXPECT_EQ(job->str(job->calls[0].op), "barrier");
  EXPECT_FALSE(toOpSpec(*job, job->calls[0]).ok);
}

// A capture's call (the MPI tap's): MPI's dtype names, the reduce op the
// capture kept, and fewer elements than blocks (LAMMPS' one-double
// MPI_MAX all-reduces on 4 ranks) run as one element a block, said.
TEST(ToOpSpec, ACapturedCallKeepsItsReduceOpAndRunsWhenSmallerThanItsBlocks) {
  One o("all_reduce", "MPI_DOUBLE", 4, 1);
  auto data = std::make_shared<CaptureData>();
  Captured cap;
  cap.redop = std::uint8_t(tap::ROp::max);
  data->calls.push_back(cap);
  Source src;
  src.capture = data;
  o.job.sources.push_back(src);
  o.call.source = 0, o.call.record = 0;
  const OpMapping m = toOpSpec(o.job, o.call);
  ASSERT_TRUE(m.ok) << std::string(m.reason);
  EXPECT_EQ(m.spec.dtype, DType::f64);
  EXPECT_EQ(m.spec.redop, RedOp::max);
  EXPECT_EQ(m.spec.elems, 1);
  ASSERT_EQ(m.changes.size(), 1u);
  EXPECT_EQ(std::string(m.changes[0]), "1 elements do not split into 4 blocks: run with 1 element a block");
  data->calls[0].redop = std::uint8_t(tap::ROp::band);
  const OpMapping band = toOpSpec(o.job, o.call);
  ASSERT_TRUE(band.ok);
  EXPECT_EQ(band.spec.redop, RedOp::sum);
  EXPECT_EQ(std::string(band.changes.back()), "its reduction MPI_BAND has no collviz equivalent: sum");
}

}  // namespace
}  // namespace collviz::job
