// PyTorch's own Flight Recorder analyser's cases
// (test/distributed/flight_recorder/test_fr_analysis.py), each written here
// as per-rank JSON dumps (as dump_json writes them: dtypes and sizes as
// lists, a group as [name, desc]) and read by collviz: its analysis must
// agree with what that test expects.
//  - test_match_one_event: two events of a 2-rank group "0", one a rank:
//    FULLY_MATCHED and UNDECIDED (all_to_all: sizes not compared) are no
//    mismatch; COLLECTIVE_TYPE_MISMATCH is one of field "op",
//    SIZE_OR_SYNTAX_MISMATCH of "size", COLLECTIVE_DTYPE_MISMATCH of
//    "dtype", COLLECTIVE_STATE_MISMATCH of "state" (said, no rank blamed).
//  - test_all_events: every collective it knows, matched with itself (its
//    sizes as that test gives them): no mismatch.
//  - testBuildDB's six scenarios (2 ranks, a group of each rank alone too):
//    pass_check true is no mismatch; false (the `_broadcast_oop` whose second
//    op differs in size inside a coalesced group) a size mismatch of that op.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/job/job.h"

namespace collviz::job {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Sizes = std::vector<std::vector<int>>;

struct Event {
  std::string name;  // the collective, without "nccl:"
  Sizes in, out;
  std::string state = "scheduled";
  int seq = 0;
  std::string outDtype = "float32";  // "" : none (an empty list)
  std::string pg = "0", desc = "default";
};

json entry(const Event& e, int record) {
  json dt = json::array({"float32"}), odt = e.outDtype.empty() ? json::array() : json::array({e.outDtype});
  return {{"record_id", record},        {"pg_id", e.pg == "0" ? 0 : 1},
          {"process_group", {e.pg, e.desc}}, {"collective_seq_id", e.seq},
          {"p2p_seq_id", 0},              {"op_id", record},
          {"profiling_name", "nccl:" + e.name}, {"time_created_ns", 1000 + record},
          {"input_sizes", e.in},          {"input_dtypes", dt},
          {"output_sizes", e.out},        {"output_dtypes", odt},
          {"state", e.state},             {"time_discovered_started_ns", 0},
          {"time_discovered_completed_ns", 0}, {"is_p2p", false}};
}

// Reads a 2-rank job: each rank's events in order; `solo`: each rank also
// has a group "1" of itself alone (the analyser's E2E template).
Analysis analyseDumps(const std::vector<std::vector<Event>>& ranks, bool solo, Job* keep = nullptr) {
  const fs::path dir = fs::temp_directory_path() / ("collviz_fr_cases_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    json d;
    d["version"] = "2.8";
    d["pg_config"]["0"] = {{"name", "0"}, {"desc", "default_pg"}, {"ranks", "[0, 1]"}};
    if (solo) d["pg_config"]["1"] = {{"name", "1"}, {"desc", "sub_pg"}, {"ranks", "[" + std::to_string(r) + "]"}};
    d["entries"] = json::array();
    for (std::size_t k = 0; k < ranks[r].size(); ++k) d["entries"].push_back(entry(ranks[r][k], int(k)));
    std::ofstream(dir / ("dump_file_rank_" + std::to_string(r) + ".json")) << d.dump();
  }
  auto job = read({dir.string()});
  fs::remove_all(dir);
  EXPECT_TRUE(job) << job.error().message;
  if (!job) return {};
  if (keep) *keep = *job;
  return analyse(*job);
}

// The mismatches found: their fields, in order ("" when none).
std::string mismatches(const Analysis& a) {
  std::string s;
  for (const Finding& f : a.findings)
    if (f.kind == FindingKind::mismatch) s += (s.empty() ? "" : ",") + f.field;
  return s;
}

const Sizes k44{{4, 4}};

TEST(PyTorchFrAnalysis, MatchOneEvent) {
  struct Case {
    const char* what;
    Event a, b;
    const char* expected;  // collviz's mismatch fields for PyTorch's MatchState
  };
  const Event e1{"all_reduce", k44, k44, "scheduled", 1};
  Event e5{"all_reduce", {{5, 4}}, k44, "scheduled", 1};
  Event e6{"all_reduce", k44, {{5, 4}}, "scheduled", 1};
  Event e7{"all_reduce", k44, {{5, 4}}, "scheduled", 2};
  Event e9{"all_reduce", k44, k44, "completed", 1};
  Event e10 = e9;
  e10.outDtype = "float16";
  Event e11{"gather", k44, {{4, 4}, {4, 4}}, "completed", 1};
  Event e12{"gather", k44, {{}}, "completed", 1, ""};
  Event e13{"gather", k44, k44, "completed", 1, ""};
  const std::vector<Case> cases = {
      {"e1, e1: FULLY_MATCHED", e1, e1, ""},
      {"e1, all_gather: COLLECTIVE_TYPE_MISMATCH", e1, {"all_gather", k44, k44, "scheduled", 1}, "op"},
      {"all_to_all, all_to_all: UNDECIDED", {"all_to_all", k44, k44, "scheduled", 1}, {"all_to_all", k44, k44, "scheduled", 1}, ""},
      {"e1, e5 (input 5x4): SIZE_OR_SYNTAX_MISMATCH", e1, e5, "size"},
      {"e1, e6 (output 5x4): SIZE_OR_SYNTAX_MISMATCH", e1, e6, "size"},
      {"e7, e7 (all_reduce 4x4 -> 5x4): SIZE_OR_SYNTAX_MISMATCH", e7, e7, "size"},
      {"e1, e9 (scheduled, completed): COLLECTIVE_STATE_MISMATCH", e1, e9, "state"},
      {"e10, e9 (output float16): COLLECTIVE_DTYPE_MISMATCH", e10, e9, "dtype"},
      {"e11, e12 (gather, a non-root's empty output): FULLY_MATCHED", e11, e12, ""},
      {"e11, e13 (gather): FULLY_MATCHED", e11, e13, ""},
  };
  for (const Case& c : cases) {
    const Analysis a = analyseDumps({{c.a}, {c.b}}, false);
    EXPECT_EQ(mismatches(a), c.expected) << c.what << ": " << std::string(a.verdict);
  }
}

TEST(PyTorchFrAnalysis, EveryCollectiveMatchesItself) {
  const char* kCollectives[] = {
      "broadcast", "_broadcast_oop", "reduce", "_reduce_oop", "all_gather", "all_gather_single", "all_gather_v", "all_reduce",
      "_all_gather_base", "all_gather_into_tensor_coalesced", "reduce_scatter", "reduce_scatter_single", "reduce_scatter_v",
      "reduce_scatter_tensor_coalesced", "_reduce_scatter_base", "gather", "scatter", "all_to_all", "all_to_all_single",
      "all_to_all_v_single", "all_reduce_barrier", "barrier", "split", "new_window", "allreduce_coalesced", "ALLGATHER_coalesced",
      "REDUCE_SCATTER_coalesced"};
  for (const std::string name : kCollectives) {
    Event e{name, k44, k44, "scheduled", 1};
    if (name == "reduce_scatter" || name == "_reduce_scatter_base" || name == "reduce_scatter_tensor_coalesced") e.out = {{8}};
    if (name == "all_gather" || name == "_all_gather_base" || name == "all_gather_into_tensor_coalesced") e.out = {{32}};
    const Analysis a = analyseDumps({{e}, {e}}, false);
    EXPECT_EQ(mismatches(a), "") << name << ": " << std::string(a.verdict);
  }
}

TEST(PyTorchFrAnalysis, BuildDbScenarios) {
  auto completed = [](const std::string& name, Sizes in, Sizes out, std::string pg = "0", std::string desc = "default") {
    return Event{name, std::move(in), std::move(out), "completed", 0, "float32", std::move(pg), std::move(desc)};
  };
  const Sizes none{{}};
  {  // 1: all_reduce in the default group and in each rank's own group: all pass
    auto r = [&] { return std::vector<Event>{completed("all_reduce", k44, k44), completed("all_reduce", {{5, 5}}, {{5, 5}}, "1", "sub_pg")}; };
    const Analysis a = analyseDumps({r(), r()}, true);
    EXPECT_EQ(mismatches(a), "") << std::string(a.verdict);
    EXPECT_TRUE(a.verdictRanks.empty());
  }
  {  // 2: allreduce_coalesced: passes
    const Analysis a = analyseDumps({{completed("allreduce_coalesced", k44, k44)}, {completed("allreduce_coalesced", k44, k44)}}, true);
    EXPECT_EQ(mismatches(a), "") << std::string(a.verdict);
  }
  {  // 3: two broadcasts coalesced (one sequence number, then "coalesced"): passes
    auto r = [&] { return std::vector<Event>{completed("broadcast", k44, k44), completed("broadcast", k44, k44), completed("coalesced", none, none)}; };
    const Analysis a = analyseDumps({r(), r()}, true);
    EXPECT_EQ(mismatches(a), "") << std::string(a.verdict);
  }
  {  // 4: _broadcast_oop coalesced, its second op 5x5 on rank 0 and 4x4 on rank 1: fails there, on size
    Job job;
    const Analysis a = analyseDumps({{completed("_broadcast_oop", k44, k44), completed("_broadcast_oop", {{5, 5}}, {{5, 5}}),
                                      completed("ALLGATHER_coalesced", none, none)},
                                     {completed("_broadcast_oop", k44, k44), completed("_broadcast_oop", k44, k44),
                                      completed("ALLGATHER_coalesced", none, none)}},
                                    true, &job);
    EXPECT_EQ(mismatches(a), "size") << std::string(a.verdict);
    for (const Finding& f : a.findings)
      if (f.kind == FindingKind::mismatch) {
        EXPECT_EQ(job.str(f.op), "broadcast_oop");
        EXPECT_EQ(std::string(f.text), "broadcast_oop #0 of default_pg (0): the ranks disagree on its size: rank 0: 5x5; rank 1: 4x4");
      }
  }
  {  // 5: _reduce_oop twice coalesced (REDUCE_SCATTER_coalesced): passes
    auto r = [&] { return std::vector<Event>{completed("_reduce_oop", k44, k44), completed("_reduce_oop", k44, k44), completed("REDUCE_SCATTER_coalesced", none, none)}; };
    const Analysis a = analyseDumps({r(), r()}, true);
    EXPECT_EQ(mismatches(a), "") << std::string(a.verdict);
  }
  {  // 6: rank 0 has no coalesced call after its all_reduce, rank 1 does: passes (nothing to compare it with)
    const Analysis a = analyseDumps({{completed("all_reduce", k44, k44)},
                                     {completed("all_reduce", k44, k44), completed("_reduce_oop", k44, k44), completed("_reduce_oop", k44, k44),
                                      completed("REDUCE_SCATTER_coalesced", none, none)}},
                                    true);
    EXPECT_EQ(mismatches(a), "") << std::string(a.verdict);
  }
}

}  // namespace
}  // namespace collviz::job
