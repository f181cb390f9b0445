#include "engine/worker/rounds_message.h"

#include <map>
#include <memory>

#include "engine/algo/algorithms.h"

namespace collviz {
namespace {

using json = nlohmann::json;

json error(const std::string& m) { return json{{"type", "error"}, {"message", m}}; }

// The last schedule built: a schedule is asked for round after round.
struct ScheduleCache {
  std::string algo;
  OpSpec spec;
  std::unique_ptr<algo::Schedule> schedule;
};

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

json handleRounds(Communicator& comm, int rank, const json& j, SharedMemory& shm) {
  static ScheduleCache cache;  // one rank per process, one request at a time
  const OpSpec s = specFromMessage(j);
  const std::string name = j.value("algo", "");
  if (!cache.schedule || cache.algo != name || cache.spec != s) {
    auto built = algo::buildSchedule(name, s);
    if (!built) return error(built.error().message);
    cache = {name, s, std::make_unique<algo::Schedule>(std::move(*built))};
  }
  const algo::Schedule& sch = *cache.schedule;
  const std::size_t in_off = j.value("in_offset", std::size_t(0));
  const std::size_t work_off = j.value("work_offset", std::size_t(0));
  if (!shm.data() || in_off + inputBytes(s, rank) > shm.size() ||
      work_off + sch.workBytes() > shm.size())
    return error("shared memory too small for the working buffer");
  const RunOptions o{j.value("warmup", 0), j.value("iters", 1), j.value("timeout_ms", 0)};
  auto t = comm.runRounds(sch, j.value("from", 0), j.value("to", 0), shm.data() + in_off,
                          shm.data() + work_off, o);
  if (!t) return error(name + " " + std::string(collviz::name(s.op)) + " on rank " +
                       std::to_string(rank) + ": " + t.error().message);
  return json{{"type", "done"},       {"op_us", t->op_us}, {"copy_us", t->copy_us},
              {"sent", t->sent},      {"received", t->received}};
}

}  // namespace collviz
