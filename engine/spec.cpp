#include "engine/spec.h"

#include <algorithm>
#include <array>
#include <cstdio>

#include "engine/collectives.h"

namespace collviz {
namespace {

constexpr std::array<std::string_view, kDTypeCount> kDTypeNames = {
    "f32", "f64", "f16", "bf16", "i32", "i64", "u8"};
constexpr std::array<std::size_t, kDTypeCount> kDTypeSizes = {4, 8, 2, 2, 4, 8, 1};
constexpr std::array<std::string_view, kRedOpCount> kRedOpNames = {
    "sum", "prod", "min", "max", "avg"};

template <typename E, std::size_t N>
std::optional<E> parseIn(const std::array<std::string_view, N>& names, std::string_view s) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == s) return static_cast<E>(i);
  return std::nullopt;
}

template <typename Names>
std::string joined(const Names& names) {
  std::string out;
  for (auto n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

constexpr std::array<std::string_view, kOpCount> opNames() {
  std::array<std::string_view, kOpCount> out{};
  for (int i = 0; i < kOpCount; ++i) out[i] = kCollectives[i].name;
  return out;
}
constexpr auto kOpNames = opNames();

Status fail(Text msg) { return Error{std::move(msg)}; }

}  // namespace

std::string_view name(Op op) { return collective(op).name; }
std::string_view name(Program p) {
  return p == Program::single ? "single" : "all_reduce_decomposed";
}
std::string_view name(DType t) { return kDTypeNames[static_cast<int>(t)]; }
std::string_view name(RedOp r) { return kRedOpNames[static_cast<int>(r)]; }
std::string_view name(BackendKind b) {
  switch (b) {
    case BackendKind::automatic: return "auto";
    case BackendKind::gloo: return "gloo";
    case BackendKind::nccl: return "nccl";
    case BackendKind::mpi: return "mpi";
  }
  return "?";
}
std::optional<Op> parseOp(std::string_view s) { return parseIn<Op>(kOpNames, s); }
std::optional<DType> parseDType(std::string_view s) { return parseIn<DType>(kDTypeNames, s); }
std::optional<RedOp> parseRedOp(std::string_view s) { return parseIn<RedOp>(kRedOpNames, s); }
std::optional<BackendKind> parseBackend(std::string_view s) {
  if (s == "auto") return BackendKind::automatic;
  if (s == "gloo") return BackendKind::gloo;
  if (s == "nccl") return BackendKind::nccl;
  if (s == "mpi") return BackendKind::mpi;
  return std::nullopt;
}
std::string allowedOps() { return joined(kOpNames); }
std::string allowedDTypes() { return joined(kDTypeNames); }
std::string allowedRedOps() { return joined(kRedOpNames); }

int opNumber(Op op) { return collective(op).number; }
int programNumber(Program p, Op op) {
  return p == Program::all_reduce_decomposed ? kDecompositionNumber : opNumber(op);
}
std::string_view opTitle(Op op) { return collective(op).title; }
std::string_view opPhrase(Op op) { return collective(op).phrase; }
std::string numberText(int number) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%02d", number);
  return buf;
}

std::size_t dtypeSize(DType t) { return kDTypeSizes[static_cast<int>(t)]; }
bool isFloat(DType t) {
  return t == DType::f32 || t == DType::f64 || t == DType::f16 || t == DType::bf16;
}
bool reduces(Op op) { return collective(op).reduces; }
bool usesRoot(Op op) { return collective(op).uses_root; }

int inputBlocks(Op op, int ranks, int rank, int root) {
  const BufferShape& b = collective(op).input;
  return blockCount(rank == root ? b.root : b.other, ranks);
}

int outputBlocks(Op op, int ranks, int rank, int root) {
  const BufferShape& b = collective(op).output;
  return blockCount(rank == root ? b.root : b.other, ranks);
}

std::size_t inputBytes(const OpSpec& s, int rank) {
  return std::size_t(inputBlocks(s.op, s.ranks, rank, s.root)) * std::size_t(s.elems) *
         dtypeSize(s.dtype);
}
std::size_t outputBytes(const OpSpec& s, int rank) {
  return std::size_t(outputBlocks(s.op, s.ranks, rank, s.root)) * std::size_t(s.elems) *
         dtypeSize(s.dtype);
}

Status validate(const OpSpec& s) {
  if (s.ranks < kMinRanks || s.ranks > kMaxRanks)
    return fail(say("ranks = {0} is out of range; allowed: {1} to {2}", s.ranks, kMinRanks,
                    kMaxRanks));
  if (s.elems < 1)
    return fail(say("elems = {0} is out of range; allowed: 1 or more elements per block", s.elems));
  if (s.root < 0 || s.root >= s.ranks)
    return fail(say("root = {0} is out of range; allowed: 0 to {1} (ranks = {2})", s.root,
                    s.ranks - 1, s.ranks));
  if (s.redop == RedOp::avg && !isFloat(s.dtype))
    return fail(say("redop avg needs a floating dtype (f32, f64, f16, bf16); dtype is {0}",
                    name(s.dtype)));
  return {};
}

std::int64_t largestElemsWithinCap(const OpSpec& s, const BackendCaps& caps) {
  return std::int64_t(caps.max_rank_bytes / (2 * std::size_t(std::max(1, s.ranks)) * dtypeSize(s.dtype)));
}

Status validate(const OpSpec& s, const BackendCaps& caps) {
  if (Status st = validate(s); !st) return st;
  if (s.ranks > caps.max_ranks)
    return fail(say("ranks = {0} is more than backend {1} allows; allowed: 1 to {2}", s.ranks,
                    caps.name, caps.max_ranks));
  auto list = [](const auto& v) {
    std::string out;
    for (auto x : v) out += (out.empty() ? "" : ", ") + std::string(name(x));
    return out;
  };
  if (std::find(caps.dtypes.begin(), caps.dtypes.end(), s.dtype) == caps.dtypes.end())
    return fail(say("dtype {0} is not supported by backend {1}; allowed: {2}", name(s.dtype),
                    caps.name, list(caps.dtypes)));
  if (reduces(s.op) &&
      std::find(caps.redops.begin(), caps.redops.end(), s.redop) == caps.redops.end())
    return fail(say("redop {0} is not supported by backend {1}; allowed: {2}", name(s.redop),
                    caps.name, list(caps.redops)));
  // Size cap: the largest rank's input + output must fit.
  const double per_rank = double(s.ranks) * double(s.elems) * double(dtypeSize(s.dtype)) * 2.0;
  if (per_rank > double(caps.max_rank_bytes)) {
    const std::int64_t allowed = largestElemsWithinCap(s, caps);
    const Text needs = per_rank < 9e18 ? lit(std::to_string(static_cast<long long>(per_rank)))
                                       : say("more than 9e18");
    return fail(say("elems = {0} needs {1} bytes per rank (input + output), over the cap of {2} "
                    "bytes for backend {3}; allowed: elems <= {4}",
                    s.elems, needs, caps.max_rank_bytes, caps.name, allowed));
  }
  return {};
}

}  // namespace collviz
