#include "engine/worker/rounds_message.h"

#include <map>
#include <memory>

#include "engine/algo/algorithms.h"
#include "engine/algo/msccl/msccl.h"
#include "engine/group/protocol.h"

namespace collviz {
namespace {

using json = nlohmann::json;

json error(const Error& e) { return protocol::errorMessage(e); }

// The last schedule built: a schedule is asked for round after round.
struct ScheduleCache {
  std::string algo;
  OpSpec spec;
  std::string file_text;  // an MSCCL file's text ("" for a built-in algorithm)
  std::unique_ptr<algo::Schedule> schedule;
};

// The schedule of the message: a built-in algorithm by name, or an MSCCL
// file lowered from its text (sent with the first round of a run, the
// same code as the engine's).
Result<algo::Schedule> scheduleOf(const json& j, const OpSpec& s, const std::string& name) {
  if (!j.contains("algo_file_text")) return algo::buildSchedule(name, s);
  auto file = algo::parseMscclText(j.value("algo_file", ""), j.value("algo_file_text", ""),
                                   s.ranks, s.root);
  if (!file) return file.error();
  return algo::lowerMscclFile(*file, s);
}

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
  const std::string text = j.value("algo_file_text", "");
  const bool from_file = j.value("from_file", false);
  if (!cache.schedule || cache.algo != name || cache.spec != s ||
      (!text.empty() && cache.file_text != text)) {
    if (from_file && text.empty())
      return error(say("{0}: the file's text comes with round 1 of a run; this rank has not seen it", name));
    auto built = scheduleOf(j, s, name);
    if (!built) return error(built.error());
    cache = {name, s, text, std::make_unique<algo::Schedule>(std::move(*built))};
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
