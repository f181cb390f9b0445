#include "engine/worker/rounds_message.h"

#include <memory>
#include <optional>

#include "engine/algo/algorithms.h"
#include "engine/algo/schedule_wire.h"
#include "engine/group/protocol.h"

namespace collviz {
namespace {

using json = nlohmann::json;

json error(const Error& e) { return protocol::errorMessage(e); }

// The last schedule built: a schedule is asked for round after round. A
// built-in algorithm's is built here by name; an MSCCL file's is the part
// the engine sent (the "schedule" message), never the file itself.
struct ScheduleCache {
  std::string algo;
  OpSpec spec;
  bool from_file = false;
  std::unique_ptr<algo::Schedule> schedule;
};
ScheduleCache& theCache() {
  static ScheduleCache c;  // one rank per process, one request at a time
  return c;
}

// The frames of a part so far, and their cap: the engine's part of the
// largest schedule it accepts is far smaller.
std::string& partText() {
  static std::string t;
  return t;
}
constexpr std::size_t kMaxPartBytes = std::size_t(1) << 30;

}  // namespace

OpSpec specFromMessage(const json& j) {
  OpSpec s;
  s.op = parseOp(j.value("op", "")).value_or(Op::all_reduce);
  s.ranks = j.value("ranks", 1);
  s.elems = j.value("elems", int64_t(1));
  s.dtype = parseDType(j.value("dtype", "")).value_or(DType::f32);
  s.redop = parseRedOp(j.value("redop", "")).value_or(RedOp::sum);
  s.root = j.value("root", 0);
  return s;
}

std::optional<json> handleSchedulePart(int rank, const json& j) {
  std::string& text = partText();
  const std::string piece = j.value("text", "");
  if (text.size() + piece.size() > kMaxPartBytes) {
    text.clear();
    return error(say("the schedule sent to this rank is malformed: {0}", lit("over 1 GiB")));
  }
  text += piece;
  if (!j.value("last", true)) return std::nullopt;
  const json part = json::parse(text, nullptr, false);
  text.clear();
  text.shrink_to_fit();
  auto sch = algo::scheduleFromPart(part);
  if (!sch) return error(sch.error());
  if (part.value("rank", -1) != rank)
    return error(say("the schedule sent to this rank is malformed: {0}", lit("another rank's part")));
  ScheduleCache& c = theCache();
  c = {sch->algo, sch->spec, true, std::make_unique<algo::Schedule>(std::move(*sch))};
  return json{{"type", "done"}};
}

json handleRounds(Communicator& comm, int rank, const json& j, SharedMemory& shm) {
  ScheduleCache& cache = theCache();
  const OpSpec s = specFromMessage(j);
  const std::string name = j.value("algo", "");
  const bool from_file = j.value("from_file", false);
  if (!cache.schedule || cache.algo != name || cache.spec != s || cache.from_file != from_file) {
    if (from_file) return error(say("{0}: this rank has not been sent its part of the schedule", name));
    auto built = algo::buildSchedule(name, s);
    if (!built) return error(built.error());
    cache = {name, s, false, std::make_unique<algo::Schedule>(std::move(*built))};
  }
  const algo::Schedule& sch = *cache.schedule;
  const std::size_t in_off = j.value("in_offset", std::size_t(0));
  const std::size_t work_off = j.value("work_offset", std::size_t(0));
  if (!shm.data() || in_off + inputBytes(s, rank) > shm.size() ||
      work_off + sch.workBytes() > shm.size())
    return error(say("shared memory too small for the working buffer"));
  const RunOptions o{j.value("warmup", 0), j.value("iters", 1), j.value("timeout_ms", 0)};
  auto t = comm.runRounds(sch, j.value("from", 0), j.value("to", 0), shm.data() + in_off,
                          shm.data() + work_off, o);
  if (!t) return error(say("{0} {1} on rank {2}: {3}", name, collviz::name(s.op), rank, t.error().text));
  return json{{"type", "done"},       {"op_us", t->op_us}, {"copy_us", t->copy_us},
              {"sent", t->sent},      {"received", t->received}};
}

}  // namespace collviz
