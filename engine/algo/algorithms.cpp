#include "engine/algo/algorithms.h"

#include <algorithm>

#include "engine/algo/msccl/msccl.h"

namespace collviz::algo {

const std::vector<Algorithm>& algorithms() {
  static const std::vector<Algorithm> kTable = {
      {kNative,
       {Op::broadcast, Op::scatter, Op::gather, Op::reduce, Op::all_gather, Op::reduce_scatter,
        Op::all_reduce, Op::all_to_all},
       "the backend's own call, one opaque step",
       nullptr, nullptr},
      {"ring",
       {Op::all_reduce, Op::reduce_scatter, Op::all_gather, Op::broadcast},
       "ring: each rank sends to the next, one block per round (broadcast: a pipelined chain)",
       &buildRing, &ringFigures},
      {"tree",
       {Op::broadcast, Op::reduce, Op::all_reduce},
       "binomial tree from the root (all_reduce: reduce to rank 0, then broadcast)",
       &buildTree, &treeFigures},
      {"recursive_doubling",
       {Op::all_gather},
       "partners at distance 1, 2, 4, ... swap everything they hold",
       &buildRecursiveDoubling, &recursiveDoublingFigures},
      {"halving_doubling",
       {Op::all_reduce, Op::reduce_scatter},
       "Rabenseifner: recursive halving reduce-scatter, then recursive doubling all-gather",
       &buildHalvingDoubling, &halvingDoublingFigures},
      {"direct",
       {Op::scatter, Op::gather},
       "the root sends to / receives from every rank in one round",
       &buildDirect, &directFigures},
      {"pairwise",
       {Op::all_to_all},
       "round s: send to rank r+s, receive from rank r-s",
       &buildPairwise, &pairwiseFigures},
      {"bruck",
       {Op::all_to_all},
       "Bruck: rotate, then in round k send the blocks whose index has bit k to rank r+2^k",
       &buildBruck, &bruckFigures},
  };
  return kTable;
}

const Algorithm* findAlgorithm(std::string_view name) {
  for (const Algorithm& a : algorithms())
    if (a.name == name) return &a;
  return nullptr;
}

bool serves(const Algorithm& a, Op op) {
  return std::find(a.ops.begin(), a.ops.end(), op) != a.ops.end();
}

std::string algorithmsFor(Op op) {
  std::string out;
  for (const Algorithm& a : algorithms())
    if (serves(a, op)) out += (out.empty() ? "" : ", ") + std::string(a.name);
  for (const auto& f : mscclFiles())
    if (f->op == op) out += ", " + mscclAlgoName(*f);
  return out;
}

std::string allowedAlgorithms() {
  std::string out;
  for (const Algorithm& a : algorithms()) out += (out.empty() ? "" : ", ") + std::string(a.name);
  for (const auto& f : mscclFiles()) out += ", " + mscclAlgoName(*f);
  return out;
}

Status checkAlgorithm(std::string_view algo, const OpSpec& s) {
  if (auto f = findMscclFile(algo)) return checkMscclRun(*f, s);
  const Algorithm* a = findAlgorithm(algo);
  if (!a)
    return Error{say("algo {0} is not an algorithm; allowed: {1} (for {2}: {3})", algo, allowedAlgorithms(),
                     name(s.op), algorithmsFor(s.op))};
  if (!serves(*a, s.op))
    return Error{say("algo {0} does not run {1}; algorithms for {1}: {2}", algo, name(s.op), algorithmsFor(s.op))};
  if (s.ranks > 32)
    return Error{say("algo {0} tracks contributors in 32 bits; ranks = {1} is more; allowed: 1 to 32, or algo native",
                     algo, s.ranks)};
  return {};
}

Result<Schedule> buildSchedule(std::string_view algo, const OpSpec& s) {
  if (Status st = checkAlgorithm(algo, s); !st) return st.error();
  if (auto f = findMscclFile(algo)) return lowerMscclFile(*f, s);
  const Algorithm* a = findAlgorithm(algo);
  if (!a->build) return Error{say("algo native has no schedule: it is the backend's own call")};
  Schedule sch = a->build(s);
  separateLocalSteps(sch);  // local work as steps of its own (schedule.h)
  return sch;
}

Figures figuresFor(std::string_view algo, const OpSpec& s) {
  if (auto f = findMscclFile(algo)) {  // the file's own: its rounds and bytes
    auto sch = lowerMscclFile(*f, s);
    if (!sch) return {};
    Figures out;
    out.rounds = int(sch->rounds.size());
    for (int r = 0; r < s.ranks; ++r) out.bytes = std::max(out.bytes, double(sch->bytesSent(r)));
    out.text = say("MSCCL file: {0} rounds; bytes as its steps send", out.rounds);
    return out;
  }
  const Algorithm* a = findAlgorithm(algo);
  if (!a || !a->figures || !serves(*a, s.op)) return {};
  return a->figures(s);
}

}  // namespace collviz::algo
