#include "app/view/job_call.h"

#include <algorithm>

namespace collviz::ui {

JobCallOpened openJobCall(AppState& s, const job::Job& j, int call, const BackendCaps* caps) {
  JobCallOpened out;
  if (call < 0 || std::size_t(call) >= j.calls.size()) {
    out.what = say("no such call");
    return out;
  }
  const job::Call& c = j.calls[std::size_t(call)];
  const std::string call_name = std::string(j.str(c.op)) + " #" + std::to_string(c.seq) + " " +
                           (c.group >= 0 ? job::groupName(j, c.group) : std::string("?"));
  const job::OpMapping m = job::toOpSpec(j, c);
  if (!m.ok) {
    out.what = say("{0}: not opened: {1}", call_name, m.reason);
    return out;
  }
  OpSpec spec = m.spec;
  out.changes = m.changes;
  if (caps) {
    auto has = [&](DType d) { return std::find(caps->dtypes.begin(), caps->dtypes.end(), d) != caps->dtypes.end(); };
    if (!has(spec.dtype) && !caps->dtypes.empty()) {
      const DType to = spec.dtype == DType::bf16 && has(DType::f16) ? DType::f16 : has(DType::f32) ? DType::f32 : caps->dtypes.front();
      out.changes.push_back(Said(say("{0} run as {1}: backend {2} has no {0}", std::string(name(spec.dtype)), std::string(name(to)), caps->name)));
      spec.dtype = to;
    }
    if (spec.ranks > caps->max_ranks) {
      out.changes.push_back(Said(say("{0} ranks shown as {1}: collviz runs at most {1}", spec.ranks, caps->max_ranks)));
      spec.ranks = caps->max_ranks;
    }
    if (const std::int64_t most = largestElemsWithinCap(spec, *caps); most > 0 && spec.elems > most) {
      out.changes.push_back(Said(say("{0} elements per block capped to {1}: what this machine runs", spec.elems, most)));
      spec.elems = most;
    }
  }
  s.entry = int(spec.op);
  s.spec = spec;
  s.view.algo = "native";
  s.view.round = 0;
  out.ok = true;
  out.what = say("{0} opened as {1}: {2} ranks, {3}, {4} elements a block, run here", call_name, std::string(collviz::name(spec.op)), spec.ranks,
                 std::string(collviz::name(spec.dtype)), spec.elems);
  return out;
}

}  // namespace collviz::ui
