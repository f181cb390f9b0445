// Engine: an algorithm's schedule run round by round on the rank workers.
// After every round each rank's working buffer is copied out, decoded and
// held against the symbolic reference; after the last, the output is
// compared byte for byte with the backend's own call on the same inputs.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <sstream>

#include "engine/algo/algorithms.h"
#include "engine/algo/reference.h"
#include "engine/algo/round_check.h"
#include "engine/dtype.h"
#include "engine/engine.h"
#include "engine/verify/held_values.h"
#include "engine/verify/provenance.h"
#include "engine/group/rank_group.h"
#include "engine/verify/verify.h"
#include "engine/worker/fault.h"

namespace collviz {
namespace {

// The output buffers the working buffers give (Schedule::output slots).
StepResult outputStep(const algo::Schedule& s, const StepResult& inputs,
                      const std::vector<std::vector<std::byte>>& work) {
  StepResult step = inputs;
  const std::size_t slot = s.slotBytes();
  for (int r = 0; r < s.spec.ranks; ++r) {
    BufferView& out = step.ranks[std::size_t(r)].output;
    out.present = outputBlocks(s.spec.op, s.spec.ranks, r, s.spec.root) > 0;
    out.bytes.clear();
    for (int k : s.output[std::size_t(r)]) {
      const std::byte* p = work[std::size_t(r)].data() + std::size_t(k) * slot;
      out.bytes.insert(out.bytes.end(), p, p + slot);
    }
  }
  return step;
}

std::vector<Transfer> transfersOf(const algo::Schedule& s, const algo::Round& round) {
  std::vector<Transfer> out;
  for (const algo::Move& m : round.moves)
    out.push_back({m.from, m.to, m.src.size() * s.slotBytes(), m.src.empty() ? 0 : m.src[0],
                   int(m.src.size()), m.reduce, m.src, m.dst.empty() ? m.src : m.dst, m.attrs});
  return out;
}

std::vector<LocalMove> localMovesOf(const algo::Round& round) {
  std::vector<LocalMove> out;
  for (const auto* list : {&round.before, &round.after})
    for (const algo::LocalCopy& c : *list) out.push_back({c.rank, c.src, c.dst, c.reduce});
  return out;
}

// The working buffers before the first round, labelled from their bytes:
// each rank's input blocks where the schedule's init places them.
std::vector<std::vector<BlockLabel>> startLabels(const algo::Schedule& s, const StepResult& inputs,
                                                 const Pattern& p, const algo::Reference& ref,
                                                 algo::ExpectedSlots& expected) {
  StepResult start;
  start.spec = s.spec;
  const std::size_t slot = s.slotBytes();
  for (int r = 0; r < s.spec.ranks; ++r) {
    RankResult rr;
    rr.rank = r;
    rr.output.present = true;
    rr.output.bytes.assign(s.workBytes(), std::byte{0});
    const auto& in = inputs.ranks[std::size_t(r)].input.bytes;
    for (int k = 0; k < s.slots; ++k) {
      const int b = s.init[std::size_t(r)][std::size_t(k)];
      if (b >= 0 && (std::size_t(b) + 1) * slot <= in.size())
        std::memcpy(rr.output.bytes.data() + std::size_t(k) * slot, in.data() + std::size_t(b) * slot, slot);
    }
    start.ranks.push_back(std::move(rr));
  }
  algo::checkRound(start, p, ref.start, expected, s.parts);
  std::vector<std::vector<BlockLabel>> out;
  for (const RankResult& rr : start.ranks) out.push_back(rr.output.labels);
  return out;
}

// Elements that differ between the rounds' outputs and the native op's
// (where the workers wrote them); the first few are named in `places`.
int64_t differingElements(const OpSpec& s, const StepResult& a, const StepBytes& b,
                          std::vector<Said>& places) {
  constexpr std::size_t kNamed = 8;
  const std::size_t sz = dtypeSize(s.dtype);
  int64_t diffs = 0;
  for (int r = 0; r < s.ranks; ++r) {
    const auto& x = a.ranks[std::size_t(r)].output.bytes;
    const ByteSpan& y = b.out[std::size_t(r)];
    const std::size_t common = std::min(x.size(), y.size);
    if (common && std::memcmp(x.data(), y.data, common) != 0)
      for (std::size_t i = 0; i + sz <= common; i += sz) {
        if (std::memcmp(x.data() + i, y.data + i, sz) == 0) continue;
        ++diffs;
        if (places.size() < kNamed) {
          std::ostringstream here, there;
          here << readElement(x.data() + i, s.dtype, 0);
          there << readElement(y.data + i, s.dtype, 0);
          places.push_back(say("rank {0} output element {1}: {2} here, {3} from the native op", r,
                               i / sz, here.str(), there.str()));
        }
      }
    if (x.size() != y.size) diffs += int64_t((std::max(x.size(), y.size) - common) / sz);
  }
  return diffs;
}

// "round 3/6 (reduce-scatter 3/3): 2 slots differ from the reference"
// ("step k/n" where the schedule has local steps, as the view counts them).
Text roundProblem(const algo::Schedule& sch, const StepResult& step, int k) {
  const int rounds = int(sch.rounds.size());
  int slots = 0;
  for (const RankResult& rr : step.ranks)
    for (const BlockLabel& l : rr.output.labels) slots += l.bad > 0 ? 1 : 0;
  const Text differ = slots == 1 ? say("1 slot differs from the reference")
                                 : say("{0} slots differ from the reference", slots);
  return sch.messageRounds() == rounds ? say("round {0}/{1} ({2}): {3}", k + 1, rounds, step.name, differ)
                                       : say("step {0}/{1} ({2}): {3}", k + 1, rounds, step.name, differ);
}

// "the output after 6 rounds: 3 elements wrong"
Text outputWrong(int rounds, int64_t wrong) {
  return say("the output after {0} rounds: {1} elements wrong", rounds, wrong);
}


// Round k's working buffers (moved out of `work`) as a step to check.
StepResult roundStep(const algo::Schedule& s, int k, std::vector<std::vector<std::byte>>& work) {
  StepResult step;
  step.spec = s.spec;
  step.name = s.rounds[std::size_t(k)].name();
  step.phase = s.rounds[std::size_t(k)].phase;
  step.transfers = transfersOf(s, s.rounds[std::size_t(k)]);
  step.local = localMovesOf(s.rounds[std::size_t(k)]);
  step.ranks.resize(std::size_t(s.spec.ranks));
  for (int q = 0; q < s.spec.ranks; ++q) {
    RankResult& rr = step.ranks[std::size_t(q)];
    rr.rank = q;
    rr.output.present = true;
    rr.output.bytes = std::move(work[std::size_t(q)]);
  }
  return step;
}

// The snapshot keeps of each round's buffers what it keeps of an op's.
void keepEndsOf(StepResult& step, int64_t keep) {
  for (RankResult& rr : step.ranks) {
    keepEnds(rr.input, step.spec.dtype, step.spec.elems, keep);
    keepEnds(rr.output, step.spec.dtype, step.spec.elems, keep);
  }
}

// The first round that went wrong, and its wrong elements.
struct BadRound {
  Text problem;
  int64_t wrong = 0;
};

// Back to back the timed rounds are checked at the end; a checked request
// (bench -c) then runs the rounds again one at a time, untimed, checked
// each (the same group, so the same fault, if any): that names the first
// that went wrong, and catches a round gone wrong whose error a later round
// covered (a flipped low bit lost in the sums after it), whose output is
// right. Nothing when every round checks out (or they cannot run again).
std::optional<BadRound> firstBadRound(RankGroup& group, const algo::Schedule& sch, const StepResult& inputs,
                                      const Pattern& pattern, const algo::Reference& ref) {
  const int rounds = int(sch.rounds.size());
  algo::ExpectedSlots expected(sch.spec, inputsAsDoubles(inputs));
  for (int k = 0; k < rounds; ++k) {
    std::vector<RoundsReply> replies;
    std::vector<std::vector<std::byte>> work;
    if (Status st = group.runRounds(sch, inputs, k, k + 1, RunOptions{}, replies, &work); !st)
      break;
    StepResult step = roundStep(sch, k, work);
    algo::checkRound(step, pattern, ref.rounds[std::size_t(k)], expected, sch.parts);
    if (!step.verify.verified)
      return BadRound{roundProblem(sch, step, k),
                      std::max<int64_t>(1, step.verify.wrong + step.verify.undecodable)};
  }
  return std::nullopt;
}

}  // namespace

Status Engine::faultFitsRun(const Request& r, const algo::Schedule* s) {
  const char* env_fault = std::getenv("COLLVIZ_FAULT");
  const std::string text = r.fault ? *r.fault : env_fault ? env_fault : "";
  auto f = parseFault(text, std::max(1, s ? s->spec.ranks : r.spec.ranks));
  if (!f) return f.error();
  return faultFits(*f, s);
}

// The COLLVIZ_FAULT of a request (its own, else the environment's).
// Said once the run is over: a fault meant to make the result wrong whose
// run still checked out is said to have changed nothing (never "wrong by
// design" beside a clean verdict); a late reply changes no result.
void Engine::noteFault(const Request& r, Said& notice, bool verified) {
  const char* env_fault = std::getenv("COLLVIZ_FAULT");
  const std::string f = r.fault ? *r.fault : env_fault ? env_fault : "";
  if (f.empty()) return;
  const auto parsed = parseFault(f, std::max(1, r.spec.ranks));
  const bool late = parsed && (parsed->kind == Fault::Kind::delay || parsed->kind == Fault::Kind::busy ||
                                    parsed->kind == Fault::Kind::late);
  const Text note =
      late ? say("COLLVIZ_FAULT={0}: a fault injected on purpose, a rank replies late (its result is not changed)", f)
      : verified
          ? say("COLLVIZ_FAULT={0}: a fault injected on purpose, but this run's result checked out: "
                "the fault changed nothing here",
                f)
          : say("COLLVIZ_FAULT={0}: a fault injected on purpose, the result is wrong by design", f);
  notice = notice.empty() ? note : joined({text_detail::arg(notice), note});
}

void Engine::runAlgorithm(const Request& r, Snapshot& snap, const BackendStatus& backend) {
  const BackendCaps& caps = backend.caps;
  snap.algo = r.algo;
  const OpSpec& s = snap.spec;
  auto reject = [&](Text why) {
    snap.error = std::move(why);
    snap.rejected = true;
  };
  if (r.program != Program::single)
    return reject(
        say("algo {0} runs one op; all_reduce_decomposed is two ops of the backend (use algo native, or --op all_reduce --algo ring)",
            r.algo));
  auto built = algo::buildSchedule(r.algo, s);
  if (!built) return reject(built.error().text);
  const algo::Schedule& sch = *built;
  if (Status st = faultFitsRun(r, &sch); !st) return reject(st.text());
  std::size_t in_max = 0;
  for (int k = 0; k < s.ranks; ++k) in_max = std::max(in_max, inputBytes(s, k));
  const double need = double(in_max) + double(sch.workBytes());
  if (need > double(caps.max_rank_bytes))
    return reject(say("algo {0} needs {1} bytes per rank (input + working buffer), over the cap of {2} bytes for backend {3}",
                      r.algo, uint64_t(need), caps.max_rank_bytes, caps.name));
  const algo::Figures fig = algo::figuresFor(r.algo, s);
  snap.formula = {fig.text, fig.rounds, fig.bytes, fig.exact};
  const algo::Reference ref = algo::simulate(sch);
  if (Status st = algo::matchesOracle(sch, ref); !st) {
    snap.error = say("internal: the schedule does not compute the op: {0}", st.text());
    return;
  }
  if (Status st = ensureGroup(s.ranks, backend.kind, &snap.notice); !st) {
    snap.error = st.text();
    return;
  }
  snap.backend = group_->info();
  // The fault goes with every rounds message (round_* act on the rounds,
  // the others on the native call the output is compared with).
  group_->setFault(r.fault);
  group_->setRunDeadline(r.deadline);
  const Pattern pattern = choosePattern(s);
  setPhase(Progress::Phase::inputs);
  StepResult inputs;
  inputs.spec = s;
  inputs.ranks.resize(std::size_t(s.ranks));
  for (int k = 0; k < s.ranks; ++k) inputs.ranks[std::size_t(k)].rank = k;
  fillInputs(inputs, pattern);
  const int rounds = int(sch.rounds.size());
  const int n = s.ranks;
  snap.bytes_sent.assign(std::size_t(n), 0);
  snap.bytes_received.assign(std::size_t(n), 0);
  std::vector<RoundsReply> replies;
  std::vector<std::vector<std::byte>> work;
  auto failed = [&](const Status& st, const Text& where) {
    if (!group_->healthy()) dropGroup();  // the next request starts a fresh group
    snap.error = say("{0} {1} {2}: {3}", r.algo, name(s.op), where, st.text());
  };
  auto count = [&] {
    double slowest = 0;
    for (int k = 0; k < n; ++k) {
      snap.bytes_sent[std::size_t(k)] += replies[std::size_t(k)].sent;
      snap.bytes_received[std::size_t(k)] += replies[std::size_t(k)].received;
      slowest = std::max(slowest, replies[std::size_t(k)].op_us);
    }
    return slowest;
  };

  if (!r.every_round) {  // back to back: one request, the output checked once
    const RunOptions reps{std::max(0, r.warmup), std::max(1, r.iters)};
    setPhase(Progress::Phase::op);
    if (Status st = group_->runRounds(sch, inputs, 0, rounds, reps, replies, &work); !st)
      return failed(st, say("rounds 1 to {0}", rounds));
    StepResult step = outputStep(sch, inputs, work);
    step.time_us = count();
    for (int k = 0; k < n; ++k) step.ranks[std::size_t(k)].op_us = replies[std::size_t(k)].op_us;
    setPhase(Progress::Phase::verify);
    if (r.verify) labelAndVerify(step, pattern, opProvenance(s));
    else step.verify.mode = "not checked";
    keepEndsOf(step, r.keep_values);
    snap.time_us = step.time_us;
    snap.mismatches = step.verify.mismatches + step.verify.undecodable;
    snap.verified = step.verify.verified;
    if (r.verify) {
      const auto bad = firstBadRound(*group_, sch, inputs, pattern, ref);
      if (bad && step.verify.verified) {  // the output is right, a round was not
        step.verify.verified = false;
        step.verify.wrong = bad->wrong;
        step.verify.first_problem = bad->problem;
        snap.mismatches += bad->wrong;
        snap.verified = false;
      }
      if (bad) snap.problem = bad->problem;
      else if (!step.verify.verified) snap.problem = outputWrong(rounds, step.verify.wrong);
    }
    snap.steps.push_back(std::move(step));
    return;
  }

  algo::ExpectedSlots expected(s, inputsAsDoubles(inputs));
  if (r.verify) snap.start_labels = startLabels(sch, inputs, pattern, ref, expected);
  bool all_ok = true;
  {
    std::lock_guard<std::mutex> lock(mu_);
    progress_.steps = std::max(1, rounds) + 1;
  }
  std::vector<std::vector<std::byte>> last(static_cast<std::size_t>(n));
  for (int k = 0; k < std::max(1, rounds); ++k) {
    if (opts_.on_round) opts_.on_round(k, rounds);
    {
      std::lock_guard<std::mutex> lock(mu_);
      progress_.step = k;
      progress_.phase = Progress::Phase::op;
      progress_.fraction = -1;
    }
    const int to = rounds ? k + 1 : 0;
    if (Status st = group_->runRounds(sch, inputs, k, to, RunOptions{}, replies, &work); !st)
      return failed(st, !rounds ? say("start")
                        : sch.messageRounds() == rounds
                            ? say("round {0}/{1} ({2})", k + 1, rounds, sch.rounds[std::size_t(k)].name())
                            : say("step {0}/{1} ({2})", k + 1, rounds, sch.rounds[std::size_t(k)].name()));
    const double slowest = count();
    if (!rounds) break;
    StepResult step = roundStep(sch, k, work);
    step.time_us = slowest;
    for (int q = 0; q < n; ++q) step.ranks[std::size_t(q)].op_us = replies[std::size_t(q)].op_us;
    setPhase(Progress::Phase::verify);
    if (r.verify) algo::checkRound(step, pattern, ref.rounds[std::size_t(k)], expected, sch.parts);
    // The output is read from the last round's buffers, whole.
    if (k + 1 == rounds)
      for (int q = 0; q < n; ++q) last[std::size_t(q)] = step.ranks[std::size_t(q)].output.bytes;
    keepEndsOf(step, r.keep_values);
    if (r.verify && !step.verify.verified && snap.problem.empty())
      snap.problem = roundProblem(sch, step, k);
    all_ok = all_ok && (!r.verify || step.verify.verified);
    snap.mismatches += step.verify.mismatches + step.verify.undecodable;
    snap.time_us += step.time_us;
    snap.steps.push_back(std::move(step));
  }
  // The output: from the last round's buffers.
  if (!rounds)
    for (int q = 0; q < n; ++q) last[std::size_t(q)] = std::move(work[std::size_t(q)]);
  StepResult final_step = outputStep(sch, inputs, last);
  if (r.verify) {
    labelAndVerify(final_step, pattern, opProvenance(s));
    all_ok = all_ok && final_step.verify.verified;
    snap.mismatches += final_step.verify.mismatches + final_step.verify.undecodable;
  }
  // The same op through the backend's own call, on the same inputs.
  {
    std::lock_guard<std::mutex> lock(mu_);
    progress_.step = std::max(1, rounds);
  }
  setPhase(Progress::Phase::compare);
  const StepPlace at = singlePlace(s);
  Status placed = group_->reserve(placeBytes(s, at));
  if (placed) placed = placeInputs(s, pattern);
  StepBytes native_bytes;
  verify_ = false;  // only its bytes are compared
  auto native = placed ? runStep(s, pattern, opProvenance(s), at, RunOptions{}, &native_bytes, false)
                       : Result<StepResult>(placed.error());
  if (!native) {
    snap.error = say("comparing with the native {0}: {1}", name(s.op), native.error().text);
    return;
  }
  snap.final_compared = true;
  snap.final_diffs = differingElements(s, final_step, native_bytes, snap.final_diff_places);
  if (snap.problem.empty() && r.verify && !final_step.verify.verified)
    snap.problem = outputWrong(rounds, final_step.verify.wrong);
  if (snap.problem.empty() && snap.final_diffs)
    snap.problem = say("the output differs from the native {0} in {1} elements", name(s.op),
                       snap.final_diffs);
  keepEndsOf(final_step, r.keep_values);
  snap.final_ranks = std::move(final_step.ranks);
  snap.verified = all_ok && snap.final_diffs == 0;
}

}  // namespace collviz
