// A job's call as collviz's own op (job.h toOpSpec): the op by its plain
// name, the dtype by PyTorch's (c10::toString), NCCL's or nccl-tests' name,
// the group's ranks (at most kMaxRanks), the elements per block from the
// call's own elements over its blocks (engine/collectives.h), capped so a
// rank's input and output fit the bytes allowed.
#include <algorithm>

#include "engine/job/readers.h"
#include "tap/capture_format.h"

namespace collviz::job {

std::optional<DType> dtypeOf(std::string_view d) {
  struct Alias {
    const char* name;
    DType t;
  };
  static constexpr Alias kNames[] = {
      {"Float", DType::f32},        {"Double", DType::f64},      {"Half", DType::f16},        {"BFloat16", DType::bf16},
      {"Int", DType::i32},          {"Long", DType::i64},        {"Byte", DType::u8},         {"ncclFloat32", DType::f32},
      {"ncclFloat", DType::f32},    {"ncclFloat64", DType::f64}, {"ncclDouble", DType::f64},  {"ncclFloat16", DType::f16},
      {"ncclHalf", DType::f16},     {"ncclBfloat16", DType::bf16}, {"ncclInt32", DType::i32}, {"ncclInt", DType::i32},
      {"ncclInt64", DType::i64},    {"ncclUint8", DType::u8},    {"float", DType::f32},       {"double", DType::f64},
      {"half", DType::f16},         {"bfloat16", DType::bf16},   {"int32", DType::i32},       {"int64", DType::i64},
      {"uint8", DType::u8},         {"f32", DType::f32},         {"f64", DType::f64},         {"f16", DType::f16},
      {"bf16", DType::bf16},        {"i32", DType::i32},         {"i64", DType::i64},         {"u8", DType::u8},
      // MPI's, as a capture names them (tap::dtypeName; LP64: long is 64 bits)
      {"MPI_FLOAT", DType::f32},    {"MPI_REAL", DType::f32},    {"MPI_REAL4", DType::f32},   {"MPI_DOUBLE", DType::f64},
      {"MPI_DOUBLE_PRECISION", DType::f64}, {"MPI_REAL8", DType::f64}, {"MPI_INT", DType::i32}, {"MPI_INT32_T", DType::i32},
      {"MPI_INTEGER", DType::i32},  {"MPI_INTEGER4", DType::i32}, {"MPI_LONG", DType::i64},   {"MPI_LONG_LONG", DType::i64},
      {"MPI_INT64_T", DType::i64},  {"MPI_INTEGER8", DType::i64}, {"MPI_UINT8_T", DType::u8}, {"MPI_UNSIGNED_CHAR", DType::u8},
      {"MPI_BYTE", DType::u8},
  };
  for (const Alias& a : kNames)
    if (d == a.name) return a.t;
  return std::nullopt;
}

namespace {

// collviz's reduce op for a captured call's (MPI's or NCCL's built-ins).
std::optional<RedOp> redOpOf(tap::ROp o) {
  switch (o) {
    case tap::ROp::sum: case tap::ROp::nccl_sum: return RedOp::sum;
    case tap::ROp::prod: case tap::ROp::nccl_prod: return RedOp::prod;
    case tap::ROp::min: case tap::ROp::nccl_min: return RedOp::min;
    case tap::ROp::max: case tap::ROp::nccl_max: return RedOp::max;
    case tap::ROp::nccl_avg: return RedOp::avg;
    default: return std::nullopt;
  }
}

}  // namespace

OpMapping toOpSpec(const Job& job, const Call& call, std::int64_t maxRankBytes) {
  OpMapping m;
  const std::string opName(job.str(call.op));
  if (call.p2p || opName == "send" || opName == "recv") {
    m.reason = say("{0} is point-to-point: collviz runs collectives", opName.empty() ? "?" : opName);
    return m;
  }
  if (opName == "barrier") {
    m.reason = say("a barrier moves no data: collviz has no op of its own for it");
    return m;
  }
  if (opName.find("coalesced") != std::string::npos) {
    m.reason = say("{0} is several ops launched as one: open one of them instead", opName);
    return m;
  }
  const auto op = parseOp(opName);
  if (!op) {
    m.reason = say("collviz has no op {0}; its ops: {1}", opName.empty() ? "?" : opName, allowedOps());
    return m;
  }
  const std::string dt(job.str(call.dtype));
  const auto dtype = dtypeOf(dt);
  if (!dtype) {
    m.reason = say("dtype {0} has no collviz equivalent; allowed: {1}", dt.empty() ? "?" : dt, allowedDTypes());
    return m;
  }
  int ranks = -1;
  if (call.group >= 0 && std::size_t(call.group) < job.groups.size()) {
    const Group& g = job.groups[std::size_t(call.group)];
    ranks = g.size > 0 ? g.size : int(g.ranks.size());
  }
  if (ranks < 1) {
    m.reason = say("the size of its group is not known");
    return m;
  }
  OpSpec s;
  s.op = *op;
  s.dtype = *dtype;
  s.ranks = std::min(ranks, kMaxRanks);
  if (ranks > kMaxRanks) m.changes.push_back(Said(say("{0} ranks shown as {1}: collviz runs at most {1}", ranks, kMaxRanks)));
  // Elements per block: a non-root rank's input over its blocks (its output where it has no input).
  const int other = ranks > 1 ? 1 : 0;
  const int inBlocks = inputBlocks(s.op, ranks, other, 0), outBlocks = outputBlocks(s.op, ranks, other, 0);
  std::int64_t elems = -1;
  if (inBlocks > 0 && call.inElems > 0) elems = call.inElems / inBlocks;
  else if (outBlocks > 0 && call.outElems > 0) elems = call.outElems / outBlocks;
  else if (call.bytes > 0 && inBlocks > 0) elems = call.bytes / std::int64_t(dtypeSize(s.dtype)) / inBlocks;
  if (elems < 1 && (call.inElems > 0 || call.outElems > 0)) {
    // Fewer elements than blocks (LAMMPS' one-double all-reduces on 4 ranks): one a block.
    const std::int64_t had = std::max(call.inElems, call.outElems);
    m.changes.push_back(Said(say("{0} elements do not split into {1} blocks: run with 1 element a block", had,
                                 std::max(inBlocks, outBlocks))));
    elems = 1;
  }
  if (elems < 1) {
    m.reason = say("its size is not known");
    return m;
  }
  m.elems = elems;
  // The most blocks any rank of the shown op holds, in and out together.
  int blocks = 1;
  for (int r = 0; r < s.ranks; ++r) blocks = std::max(blocks, inputBlocks(s.op, s.ranks, r, 0) + outputBlocks(s.op, s.ranks, r, 0));
  const std::int64_t most = std::max<std::int64_t>(1, maxRankBytes / (std::int64_t(blocks) * std::int64_t(dtypeSize(s.dtype))));
  s.elems = std::min(elems, most);
  if (s.elems < elems)
    m.changes.push_back(Said(say("{0} elements per block capped to {1}: what this machine runs", elems, s.elems)));
  if (reduces(s.op)) {
    // A capture keeps the call's reduce op; the other files do not say it.
    const Captured* cap = job.captured(call);
    const std::optional<RedOp> r = cap ? redOpOf(tap::ROp(cap->redop)) : std::nullopt;
    if (r) s.redop = *r;
    else if (cap && cap->redop) m.changes.push_back(Said(say("its reduction {0} has no collviz equivalent: sum", tap::ropName(tap::ROp(cap->redop)))));
    else m.changes.push_back(Said(say("the reduction is not in the file: sum")));
  }
  if (Status v = validate(s); !v) {
    m.reason = v.text();
    return m;
  }
  m.spec = s;
  m.ok = true;
  return m;
}

}  // namespace collviz::job
