// RankGroup's side of an algorithm's rounds: the working buffer sits in each
// rank's shared memory after its input, so the engine reads every rank's
// state after a round with one copy.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "engine/algo/schedule.h"
#include "engine/algo/schedule_wire.h"
#include "engine/group/deadline.h"
#include "engine/group/rank_group.h"

namespace collviz {

using json = nlohmann::json;

namespace {
// A part's text goes in frames of at most this much (JSON-escaped, at most
// twice as long: far under the channel's 64 MiB).
constexpr std::size_t kPartFrame = std::size_t(8) << 20;
}  // namespace

// Every rank gets its part of the schedule (engine/algo/schedule_wire.h) and
// says it is ready before round 1 is timed: the file was read, checked and
// lowered once, here, and nothing of that counts in a round's time or
// deadline.
Status RankGroup::sendParts(const algo::Schedule& s, const Text& what, std::chrono::milliseconds per_call) {
  const int n = cfg_.ranks;
  for (int r = 0; r < n; ++r) {
    const std::string text = algo::rankPart(s, r).dump();
    for (std::size_t at = 0; at == 0 || at < text.size(); at += kPartFrame) {
      const bool last = at + kPartFrame >= text.size();
      const json m = {{"type", "schedule"}, {"text", text.substr(at, kPartFrame)}, {"last", last}};
      if (!workers_[std::size_t(r)].ch.send(m.dump())) {
        healthy_ = false;
        return Error{say("{0}: {1}", what, describeExit(r))};
      }
    }
  }
  std::vector<std::string> ready;
  return awaitReplies(say("{0}: each rank's part of the schedule", what), per_call, 1, ready);
}

Status RankGroup::runRounds(const algo::Schedule& s, const StepResult& inputs, int from, int to,
                            const RunOptions& opts, std::vector<RoundsReply>& replies,
                            std::vector<std::vector<std::byte>>* work) {
  const OpSpec& sp = s.spec;
  const int n = cfg_.ranks;
  if (sp.ranks != n) return Error{say("internal: spec ranks differ from the group")};
  const Text what = lit(s.algo + " " + std::string(name(sp.op)));  // names: the same in every language
  std::vector<std::size_t> work_off(std::size_t(n), 0), need(std::size_t(n), 0);
  for (int r = 0; r < n; ++r) {
    work_off[std::size_t(r)] = alignToPage(inputBytes(sp, r));
    need[std::size_t(r)] = work_off[std::size_t(r)] + alignToPage(s.workBytes());
  }
  // Every rank's memory at once (its huge pages in one kernel call).
  if (Status st = reserve(need); !st) return Error{say("{0}: {1}", what, st.text())};
  for (int r = 0; r < n; ++r) {
    const std::size_t in = inputBytes(sp, r);
    if (from == 0 && in)
      std::memcpy(workers_[std::size_t(r)].shm.data(), inputs.ranks[std::size_t(r)].input.bytes.data(), in);
  }
  if (from == 0) inputs_held_.reset();  // offset 0 now holds `inputs`, whatever they are
  poisoned_.reset();                    // the rounds write the memory
  std::vector<Span> in_spans, work_spans;
  for (int r = 0; r < n; ++r) {
    if (!workers_[std::size_t(r)].remote) continue;
    if (from == 0 && inputBytes(sp, r)) in_spans.push_back({r, 0, inputBytes(sp, r)});
    work_spans.push_back({r, work_off[std::size_t(r)], s.workBytes()});
  }
  if (Status st = pushSpans(in_spans); !st) return Error{say("{0}: {1}", what, st.text())};
  // The rounds' deadline scales with their bytes as a native op's does: each
  // round reads and writes at most the working buffer on every rank.
  const std::chrono::milliseconds per_call =
      opDeadline(sp, deadline()) +
      std::chrono::milliseconds(std::llround(2.0 * double(n) * double(s.workBytes()) *
                                             double(std::max(1, to - from)) /
                                             kSlowestBytesPerSecond * 1000.0));
  const json base = {{"type", "rounds"}, {"algo", s.algo},          {"op", name(sp.op)},
                     {"ranks", sp.ranks}, {"elems", sp.elems},      {"dtype", name(sp.dtype)},
                     {"redop", name(sp.redop)}, {"root", sp.root},  {"in_offset", 0},
                     {"from", from},      {"to", to},               {"warmup", opts.warmup},
                     {"iters", opts.iters}, {"timeout_ms", per_call.count()}};
  json with_file = base;
  if (fault_) with_file["fault"] = *fault_;
  if (!s.file.empty()) {  // an MSCCL file: each rank runs the part it was sent
    with_file["from_file"] = true;
    if (from == 0)
      if (Status st = sendParts(s, what, per_call); !st) return st;
  }
  for (int r = 0; r < n; ++r) {
    json m = with_file;
    m["work_offset"] = work_off[std::size_t(r)];
    if (workers_[std::size_t(r)].remote) m["beat_ms"] = beatPeriod(cfg_.deadline).count();
    if (!workers_[std::size_t(r)].ch.send(m.dump())) {
      healthy_ = false;
      return Error{say("{0}: {1}", what, describeExit(r))};
    }
  }
  std::vector<std::string> done;
  if (Status st = awaitReplies(what, per_call, opts.warmup + opts.iters, done); !st) return st;
  if (work)
    if (Status st = pullSpans(work_spans); !st) return Error{say("{0}: {1}", what, st.text())};
  replies.assign(std::size_t(n), {});
  for (int r = 0; r < n; ++r) {
    const json j = json::parse(done[std::size_t(r)], nullptr, false);
    replies[std::size_t(r)] = {j.value("op_us", 0.0), j.value("sent", uint64_t(0)),
                               j.value("received", uint64_t(0))};
  }
  if (work) {
    work->resize(std::size_t(n));
    for (int r = 0; r < n; ++r) {
      auto& buf = (*work)[std::size_t(r)];
      buf.resize(s.workBytes());
      std::memcpy(buf.data(), workers_[std::size_t(r)].shm.data() + work_off[std::size_t(r)],
                  buf.size());
    }
  }
  return {};
}

}  // namespace collviz
