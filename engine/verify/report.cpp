#include "engine/verify/report.h"

#include "engine/verify/held_values.h"
#include "engine/version.h"

namespace collviz {

using json = nlohmann::json;

namespace {

json number(double v) { return v == double(int64_t(v)) ? json(int64_t(v)) : json(v); }

json values(const BufferView& b, DType t, int64_t elems, const ValueLimit& asked) {
  if (!b.present) return nullptr;
  const std::size_t n = b.count(t);
  const ValueLimit limit = heldLimit(asked, b);  // only values the snapshot holds
  if (limit.none) return {{"elements", n}, {"shown", 0}, {"elided", n}};
  if (!summarised(limit, n)) {
    json out = json::array();
    for (std::size_t i = 0; i < n; ++i) out.push_back(number(b.value(i, t)));
    return out;
  }
  json blocks = json::array();
  const std::size_t shown = forEachShown(
      limit, n, std::size_t(elems),
      [&](std::size_t blk, std::size_t first, std::size_t last) {
        if (blocks.size() <= blk) blocks.push_back(json::array());
        json run = json::array();
        for (std::size_t i = first; i < last; ++i) run.push_back(number(b.value(i, t)));
        blocks[blk].push_back(run);
      },
      [](std::size_t, std::size_t) {});
  return {{"elements", n}, {"shown", shown}, {"elided", n - shown}, {"blocks", blocks}};
}

json labels(const BufferView& b, RedOp r) {
  if (!b.present) return nullptr;
  json out = json::array();
  for (const auto& l : b.labels) out.push_back(l.text(r));
  return out;
}

// Per block: is every part of the label read from the bytes (false: from the oracle)?
json decoded(const BufferView& b) {
  if (!b.present) return nullptr;
  json out = json::array();
  for (const auto& l : b.labels) out.push_back(l.decoded);
  return out;
}

json contributors(const BufferView& b) {
  if (!b.present) return nullptr;
  json out = json::array();
  for (const auto& l : b.labels) {
    json ranks = json::array();
    for (int r = 0; r < 32; ++r)
      if (l.contributors & (1u << r)) ranks.push_back(r);
    out.push_back(ranks);
  }
  return out;
}

json transfers(const std::vector<Transfer>& ts) {
  json out = json::array();
  for (const Transfer& t : ts) {
    out.push_back({{"from", t.from}, {"to", t.to}, {"bytes", t.bytes}, {"block", t.block},
                   {"blocks", t.blocks}, {"src_slots", t.src_slots}, {"dst_slots", t.dst_slots},
                   {"kind", t.reduce ? "reduce" : "copy"}});
    if (!t.attrs.empty()) out.back()["attrs"] = t.attrs;
  }
  return out;
}

json localMoves(const std::vector<LocalMove>& ms) {
  json out = json::array();
  for (const LocalMove& m : ms) out.push_back({{"rank", m.rank}, {"from_slots", m.from}, {"to_slots", m.to},
                   {"kind", m.reduce ? "reduce" : "copy"}});
  return out;
}


// An algorithm run: traffic, the textbook figures, the final comparison.
void addAlgorithm(json& j, const Snapshot& s, const ValueLimit& limit) {
  j["rounds"] = s.steps.size();
  j["bytes_sent"] = s.bytes_sent;
  j["bytes_received"] = s.bytes_received;
  j["formula"] = {{"text", s.formula.text},
                  {"rounds", s.formula.rounds},
                  {"bytes_per_rank", s.formula.bytes},
                  {"exact", s.formula.exact}};
  j["final_matches_native"] = s.final_compared ? json(s.final_diffs == 0) : json(nullptr);
  j["differing_elements"] = s.final_compared ? json(s.final_diffs) : json(nullptr);
  j["differing_places"] = s.final_diff_places;
  j["problem"] = s.problem.empty() ? json(nullptr) : json(s.problem);
  json fin = json::array();
  for (const auto& r : s.final_ranks)
    fin.push_back({{"rank", r.rank},
                   {"output", values(r.output, s.spec.dtype, s.spec.elems, limit)},
                   {"output_labels", labels(r.output, s.spec.redop)},
                   {"output_contributors", contributors(r.output)}});
  j["final"] = fin;
  // The working buffers before the first step, so every step replays from here.
  json start = json::array();
  for (std::size_t r = 0; r < s.start_labels.size(); ++r) {
    BufferView b;
    b.present = true;
    b.labels = s.start_labels[r];
    start.push_back({{"rank", r}, {"labels", labels(b, s.spec.redop)}, {"contributors", contributors(b)}});
  }
  j["start"] = start;
}

}  // namespace

// collviz_version/collviz_commit: which collviz drove the backend (engine/version.h).
json toJson(const BackendInfo& b) {
  return {{"name", b.name}, {"version", b.version}, {"devices", b.devices},
          {"transport", b.transport}, {"notes", b.notes},
          {"collviz_version", collvizVersion()}, {"collviz_commit", collvizCommit()}};
}

json toJson(const Snapshot& s) { return toJson(s, ValueLimit::all()); }

json toJson(const Snapshot& s, const ValueLimit& limit) {
  json j;
  j["op"] = s.program == Program::all_reduce_decomposed ? std::string(name(s.program))
                                                        : std::string(name(s.spec.op));
  j["ranks"] = s.spec.ranks;
  j["elems"] = s.spec.elems;
  j["dtype"] = name(s.spec.dtype);
  j["redop"] = name(s.spec.redop);
  j["root"] = s.spec.root;
  j["backend"] = toJson(s.backend);
  if (!s.places.empty()) {  // ranks on several hosts: where each ran
    json hosts = json::array();
    for (const RankPlace& p : s.places) hosts.push_back({{"rank", p.rank}, {"host", p.host}, {"pid", p.pid}});
    j["hosts"] = hosts;
  }
  j["steps"] = json::array();
  for (const auto& st : s.steps) {
    json step = {{"name", st.name.empty() ? std::string(name(st.spec.op)) : std::string(st.name)},
                 {"time_us", st.time_us},
                 {"verified", st.verify.verified},
                 {"wrong", st.verify.wrong},
                 {"mismatches", st.verify.mismatches},
                 {"undecodable", st.verify.undecodable},
                 {"unwritten", st.verify.unwritten},
                 {"bad_blocks", english(st.verify.bad_blocks)},
                 {"pattern", st.verify.mode}};
    if (!st.verify.first_problem.empty()) step["first_problem"] = st.verify.first_problem;
    if (st.wire_bytes) {  // across hosts: the remote ranks' buffers on the engine's connections
      step["wire_bytes"] = st.wire_bytes;
      step["wire_us"] = st.wire_us;
    }
    if (!st.name.empty()) {
      step["phase"] = st.phase;
      step["transfers"] = transfers(st.transfers);
      step["local"] = localMoves(st.local);
    }
    step["ranks"] = json::array();
    for (const auto& r : st.ranks) {
      step["ranks"].push_back({{"rank", r.rank},
                               {"input", values(r.input, st.spec.dtype, st.spec.elems, limit)},
                               {"output", values(r.output, st.spec.dtype, st.spec.elems, limit)},
                               {"input_labels", labels(r.input, st.spec.redop)},
                               {"output_labels", labels(r.output, st.spec.redop)},
                               {"output_contributors", contributors(r.output)},
                               {"output_labels_decoded", decoded(r.output)},
                               {"op_us", r.op_us},
                               {"copy_us", r.copy_us}});
      if (!r.copies.empty()) step["ranks"].back()["copies"] = r.copies;
    }
    j["steps"].push_back(step);
  }
  j["verified"] = s.verified;
  j["mismatches"] = s.mismatches;
  j["time_us"] = s.time_us;
  j["engine_us"] = s.engine_us;
  if (s.all_reduce_compared) j["equals_all_reduce"] = s.all_reduce_diffs == 0;
  j["algo"] = s.algo;
  if (s.algo != "native") addAlgorithm(j, s, limit);
  if (!s.notice.empty()) j["notice"] = s.notice;
  if (!s.error.empty()) j["error"] = s.error;
  return j;
}

}  // namespace collviz
