#include "engine/algo/schedule_wire.h"

namespace collviz::algo {
namespace {

using json = nlohmann::json;

// [v0, c0, v1, c1, ...]: c copies counting up from v (v >= 0), or c times v
// (v < 0: an empty slot, -1).
json runs(const std::vector<int>& v) {
  json out = json::array();
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i + 1;
    while (j < v.size() && (v[i] < 0 ? v[j] == v[i] : v[j] == v[j - 1] + 1)) ++j;
    out.push_back(v[i]);
    out.push_back(j - i);
    i = j;
  }
  return out;
}

// Back from runs; at most `most` values (a list never holds more than the
// schedule's slots), else false.
bool unruns(const json& j, std::size_t most, std::vector<int>& out) {
  out.clear();
  if (!j.is_array() || j.size() % 2) return false;
  for (std::size_t i = 0; i < j.size(); i += 2) {
    if (!j[i].is_number_integer() || !j[i + 1].is_number_integer()) return false;
    const int64_t v = j[i].get<int64_t>(), c = j[i + 1].get<int64_t>();
    if (v < -1 || v > INT32_MAX || c < 1 || uint64_t(c) > most - out.size()) return false;
    for (int64_t k = 0; k < c; ++k) out.push_back(v < 0 ? int(v) : int(v + k));
    if (v >= 0 && v + c - 1 > INT32_MAX) return false;
  }
  return true;
}

bool integer(const json& j, const char* key, int64_t lo, int64_t hi, int64_t& out) {
  if (!j.contains(key) || !j[key].is_number_integer()) return false;
  out = j[key].get<int64_t>();
  return out >= lo && out <= hi;
}

}  // namespace

json rankPart(const Schedule& s, int rank) {
  json rounds = json::array();
  for (const Round& r : s.rounds) {
    json moves = json::array(), before = json::array(), after = json::array();
    for (const Move& m : r.moves)
      if (m.from == rank || m.to == rank) moves.push_back({m.from, m.to, m.reduce ? 1 : 0, runs(m.src), runs(m.dst)});
    auto copies = [&](const std::vector<LocalCopy>& list, json& out) {
      for (const LocalCopy& c : list)
        if (c.rank == rank) out.push_back({c.reduce ? 1 : 0, runs(c.src), runs(c.dst)});
    };
    copies(r.before, before);
    copies(r.after, after);
    rounds.push_back({std::move(moves), std::move(before), std::move(after)});
  }
  const OpSpec& p = s.spec;
  return {{"algo", s.algo},
          {"rank", rank},
          {"op", name(p.op)},
          {"ranks", p.ranks},
          {"elems", p.elems},
          {"dtype", name(p.dtype)},
          {"redop", name(p.redop)},
          {"root", p.root},
          {"slots", s.slots},
          {"parts", s.parts},
          {"average", s.average},
          {"file", s.file},
          {"init", runs(s.init[std::size_t(rank)])},
          {"output", runs(s.output[std::size_t(rank)])},
          {"rounds", std::move(rounds)}};
}

Result<Schedule> scheduleFromPart(const json& j) {
  auto bad = [](const char* what) { return Error{say("the schedule sent to this rank is malformed: {0}", lit(what))}; };
  if (!j.is_object()) return bad("not an object");
  Schedule s;
  int64_t rank = 0, ranks = 0, elems = 0, root = 0, slots = 0, parts = 0;
  if (!integer(j, "ranks", 1, 1 << 20, ranks) || !integer(j, "rank", 0, ranks - 1, rank)) return bad("ranks");
  if (!integer(j, "elems", 1, INT64_MAX, elems) || !integer(j, "root", 0, ranks - 1, root)) return bad("elems");
  if (!integer(j, "slots", 1, INT32_MAX, slots) || !integer(j, "parts", 1, INT32_MAX, parts)) return bad("slots");
  const auto op = parseOp(j.value("op", ""));
  const auto dtype = parseDType(j.value("dtype", ""));
  const auto redop = parseRedOp(j.value("redop", ""));
  if (!op || !dtype || !redop) return bad("op");
  if (!j.contains("algo") || !j["algo"].is_string() || !j.contains("average") || !j["average"].is_boolean())
    return bad("algo");
  s.spec = OpSpec{*op, int(ranks), elems, *dtype, *redop, int(root)};
  s.algo = j["algo"].get<std::string>();
  s.file = j.value("file", "");
  s.slots = int(slots);
  s.parts = int(parts);
  s.average = j["average"].get<bool>();
  const std::size_t most = std::size_t(slots);
  s.init.assign(std::size_t(ranks), {});
  s.output.assign(std::size_t(ranks), {});
  if (!j.contains("init") || !j.contains("output") || !j.contains("rounds")) return bad("init, output or rounds");
  if (!unruns(j["init"], most, s.init[std::size_t(rank)]) || !unruns(j["output"], most, s.output[std::size_t(rank)]))
    return bad("init or output");
  const json& rounds = j["rounds"];
  if (!rounds.is_array()) return bad("rounds");
  for (const json& r : rounds) {
    if (!r.is_array() || r.size() != 3 || !r[0].is_array() || !r[1].is_array() || !r[2].is_array())
      return bad("a round");
    Round round;
    for (const json& m : r[0]) {
      Move mv;
      if (!m.is_array() || m.size() != 5 || !m[0].is_number_integer() || !m[1].is_number_integer() ||
          !m[2].is_number_integer() || !unruns(m[3], most, mv.src) || !unruns(m[4], most, mv.dst))
        return bad("a message");
      const int64_t from = m[0].get<int64_t>(), to = m[1].get<int64_t>();
      if (from < 0 || from >= ranks || to < 0 || to >= ranks) return bad("a message's ranks");
      mv.from = int(from), mv.to = int(to), mv.reduce = m[2].get<int64_t>() != 0;
      round.moves.push_back(std::move(mv));
    }
    for (int side = 1; side <= 2; ++side)
      for (const json& c : r[std::size_t(side)]) {
        LocalCopy lc;
        lc.rank = int(rank);
        if (!c.is_array() || c.size() != 3 || !c[0].is_number_integer() || !unruns(c[1], most, lc.src) ||
            !unruns(c[2], most, lc.dst))
          return bad("a local copy");
        lc.reduce = c[0].get<int64_t>() != 0;
        (side == 1 ? round.before : round.after).push_back(std::move(lc));
      }
    s.rounds.push_back(std::move(round));
  }
  return s;
}

}  // namespace collviz::algo
