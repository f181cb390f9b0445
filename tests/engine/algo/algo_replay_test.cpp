// Replay every step of every algorithm × op × N 1..16 from the run's JSON
// alone (`collviz run --json`'s document, made in-process by toJson): the
// working buffers start as "start" says; in each step every transfer's
// sender labels at src_slots (before the step) equal, or reduce into, the
// receiver's labels at dst_slots after it; every local move's labels at
// from_slots land at to_slots; and no slot that nothing writes changes.
// This reads only the JSON (labels decoded from the bytes, contributors,
// slots): it shares no code with engine/algo/reference.cpp. Its mutation
// cases drop a local move and put a slot off by one, and the replay fails.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "engine/algo/algorithms.h"
#include "engine/verify/report.h"
#include "tests/engine/algo/algo_run_check.h"

namespace collviz::test {
namespace {

using json = nlohmann::json;

struct Slot {
  std::string label;
  std::set<int> ranks;  // contributors
  bool operator==(const Slot&) const = default;
};
using Buffers = std::vector<std::vector<Slot>>;  // [rank][slot]

// The subscript at the end of a label ("A₂" → "₂", "A₁+B₁" → "₁", "Σ" → "").
std::string subscript(const std::string& l) {
  std::size_t i = l.size();
  while (i >= 3 && static_cast<unsigned char>(l[i - 3]) == 0xE2 &&
         static_cast<unsigned char>(l[i - 2]) == 0x82)
    i -= 3;
  return l.substr(i);
}

Buffers buffersOf(const json& ranks, const char* labels, const char* contributors) {
  Buffers out;
  for (const json& r : ranks) {
    std::vector<Slot> row;
    for (std::size_t k = 0; k < r[labels].size(); ++k) {
      const std::vector<int> c = r[contributors][k].get<std::vector<int>>();
      row.push_back({r[labels][k].get<std::string>(), {c.begin(), c.end()}});
    }
    out.push_back(std::move(row));
  }
  return out;
}

std::string where(const json& step, int rank, int slot) {
  return step["name"].get<std::string>() + ": rank " + std::to_string(rank) + " slot " +
         std::to_string(slot);
}

// "" when every step replays; else what did not.
std::string replay(const json& doc) {
  if (!doc.contains("start") || doc["start"].empty()) return "no start buffers";
  Buffers now = buffersOf(doc["start"], "labels", "contributors");
  for (const json& step : doc["steps"]) {
    if (!step.contains("transfers") || !step.contains("local")) return "a step without transfers/local";
    const Buffers after = buffersOf(step["ranks"], "output_labels", "output_contributors");
    if (after.size() != now.size()) return "rank count changes";
    // What each slot is written with this step: (copy?, what the writer held before).
    std::map<std::pair<int, int>, std::vector<std::pair<bool, Slot>>> writes;
    for (const json& t : step["transfers"]) {
      const auto src = t["src_slots"].get<std::vector<int>>(), dst = t["dst_slots"].get<std::vector<int>>();
      if (src.size() != dst.size() || src.empty()) return step["name"].get<std::string>() + ": slot lists differ";
      const int from = t["from"], to = t["to"];
      for (std::size_t i = 0; i < src.size(); ++i) {
        const Slot& sent = now.at(std::size_t(from)).at(std::size_t(src[i]));
        if (sent.ranks.empty()) return where(step, from, src[i]) + " sends an empty slot";
        writes[{to, dst[i]}].push_back({t["kind"] == "copy", sent});
      }
    }
    for (const json& l : step["local"]) {
      const auto from = l["from_slots"].get<std::vector<int>>(), to = l["to_slots"].get<std::vector<int>>();
      if (from.size() != to.size()) return step["name"].get<std::string>() + ": local slot lists differ";
      const int r = l["rank"];
      for (std::size_t i = 0; i < from.size(); ++i)
        writes[{r, to[i]}].push_back({true, now.at(std::size_t(r)).at(std::size_t(from[i]))});
    }
    for (int r = 0; r < int(now.size()); ++r)
      for (int k = 0; k < int(now[std::size_t(r)].size()); ++k) {
        const Slot& was = now[std::size_t(r)][std::size_t(k)];
        const Slot& is = after.at(std::size_t(r)).at(std::size_t(k));
        auto it = writes.find({r, k});
        if (it == writes.end()) {
          if (!(is == was)) return where(step, r, k) + " changes from " + was.label + " to " + is.label +
                                   " and nothing writes it";
          continue;
        }
        const auto& ws = it->second;
        if (ws.size() == 1 && ws[0].first) {  // a copy
          if (!(is == ws[0].second))
            return where(step, r, k) + " should hold the copied " + ws[0].second.label + ", holds " + is.label;
          continue;
        }
        std::set<int> want = was.ranks;  // reduces: the union, each contributor once
        for (const auto& [copy, w] : ws) {
          if (copy) return where(step, r, k) + " is copied and reduced into in one step";
          if (subscript(w.label) != subscript(was.label))
            return where(step, r, k) + " combines " + w.label + " with " + was.label;
          for (int c : w.ranks)
            if (!want.insert(c).second) return where(step, r, k) + " counts rank " + std::to_string(c) + " twice";
        }
        if (is.ranks != want || subscript(is.label) != subscript(was.label))
          return where(step, r, k) + " holds " + is.label + " after the reduce";
      }
    now = after;
  }
  return "";
}

json runJson(Engine& engine, const OpSpec& s, const std::string& algo) {
  auto snap = runAlgo(engine, s, algo);
  if (!snap || !snap->error.empty()) {
    ADD_FAILURE() << algo << " " << describe(s) << ": " << (snap ? snap->error : "no answer");
    return {};
  }
  EXPECT_TRUE(snap->verified) << algo << " " << describe(s);
  return toJson(*snap);
}

class ReplayEveryN : public ::testing::TestWithParam<int> {};

TEST_P(ReplayEveryN, EveryAlgorithmEveryOpFromTheJsonAlone) {
  const int n = GetParam();
  Engine engine;
  int steps = 0;
  for (const algo::Algorithm& a : algo::algorithms()) {
    if (!a.build) continue;
    for (Op op : a.ops) {
      const OpSpec s = makeSpec(op, n, 2, DType::f32, RedOp::sum, usesRoot(op) ? n - 1 : 0);
      const json doc = runJson(engine, s, std::string(a.name));
      if (doc.is_null()) continue;
      EXPECT_EQ(replay(doc), "") << a.name << " " << describe(s);
      steps += int(doc["steps"].size());
    }
  }
  if (n > 1) {
    EXPECT_GT(steps, 0);
  }
}
INSTANTIATE_TEST_SUITE_P(Ranks, ReplayEveryN, ::testing::Range(1, 17));

// The replay is not a rubber stamp: the same documents with one local move
// dropped, or one slot off by one, fail it.
TEST(Replay, MutationsFail) {
  Engine engine;
  const json bruck = runJson(engine, makeSpec(Op::all_to_all, 4, 2), "bruck");
  const json pairwise = runJson(engine, makeSpec(Op::all_to_all, 3, 2), "pairwise");
  const json ring = runJson(engine, makeSpec(Op::all_reduce, 4, 2), "ring");
  ASSERT_EQ(replay(bruck), "");
  ASSERT_EQ(replay(pairwise), "");
  ASSERT_EQ(replay(ring), "");

  auto firstLocal = [](json& doc) -> json& {
    for (json& st : doc["steps"])
      if (!st["local"].empty()) return st;
    throw std::runtime_error("no local step");
  };
  {  // Bruck's rotation of rank 1 left out
    json d = bruck;
    json& st = firstLocal(d);
    st["local"].erase(1);
    EXPECT_NE(replay(d), "");
  }
  {  // pairwise's own block left out
    json d = pairwise;
    json& st = firstLocal(d);
    st["local"].erase(0);
    EXPECT_NE(replay(d), "");
  }
  {  // one local destination off by one
    json d = bruck;
    json& st = firstLocal(d);
    st["local"][1]["to_slots"][0] = (st["local"][1]["to_slots"][0].get<int>() + 1) % 4;
    EXPECT_NE(replay(d), "");
  }
  for (const char* key : {"src_slots", "dst_slots"}) {  // a transfer's slot off by one
    for (const json* base : {&bruck, &ring}) {
      json d = *base;
      for (json& st : d["steps"])
        if (!st["transfers"].empty()) {
          json& t = st["transfers"][0];
          t[key][0] = (t[key][0].get<int>() + 1) % int(st["ranks"][0]["output_labels"].size());
          break;
        }
      EXPECT_NE(replay(d), "") << key;
    }
  }
  {  // a transfer dropped
    json d = ring;
    d["steps"][0]["transfers"].erase(0);
    EXPECT_NE(replay(d), "");
  }
}

}  // namespace
}  // namespace collviz::test
