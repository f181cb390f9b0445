// collviz job: the verdict of each real Flight Recorder run in English and
// 中文 (skipped, saying so, where ../shared/data is missing), a job written
// here (text, --json, the ranks' standing), the NCCL tools' tables, and the
// errors: a pickle that would run code (exit 1, the opcode named, nothing
// run, --json's error document), a missing file, no file at all (exit 2),
// --window with two paths (exit 2) or one that does not read (exit 1).
#include <nlohmann/json.hpp>

#include "tests/app/cli/cli_process.h"
#include "tests/engine/job/fr_writer.h"

namespace collviz::test {
namespace {

namespace fs = std::filesystem;

fs::path data() { return fs::path(COLLVIZ_JOB_DATA_DIR); }

// Four ranks; rank 2 never enters all_reduce #4 of group 5.
void writeJob(const fs::path& dir) {
  fs::create_directories(dir);
  for (int r = 0; r < 4; ++r) {
    FrDump d;
    d.groups = {{"0", "default_pg", {0, 1, 2, 3}}, {"5", "DATA_PARALLEL_GROUP", {0, 1, 2, 3}}, {"9" + std::to_string(r), "SOLO", {r}}};
    const int last = r == 2 ? 3 : 4;
    d.status[3] = {last, -1, 3};
    for (int s = 2; s <= last; ++s) {
      FrEntry e;
      e.pg = "5", e.desc = "DATA_PARALLEL_GROUP", e.pgId = 3, e.seq = s, e.record = s, e.created = 1000 * s + r;
      e.in = e.out = {{4096, 5120}};
      e.dtype = "BFloat16";
      e.state = s == 4 ? "scheduled" : "completed";
      d.entries.push_back(e);
    }
    std::ofstream(dir / ("_dump_" + std::to_string(r)), std::ios::binary) << pickleDump(d);
  }
}

TEST(JobCli, TheRealRunsVerdictsInBothLanguages) {
  const struct {
    const char* run;
    const char* en;
    const char* zh;
  } runs[] = {
      {"gpu_error_1st", "verdict: rank 12 never entered all_to_all #20537 of EXPERT_MODEL_PARALLEL_GROUP (74); 3 ranks wait there",
       "结论：rank 12 从未进入 EXPERT_MODEL_PARALLEL_GROUP (74) 的 all_to_all #20537；3 个 rank 在那里等待"},
      {"lock_gil_1st", "verdict: ranks 9 and 14 never entered all_to_all #45265 of EXPERT_MODEL_PARALLEL_GROUP (72); 6 ranks wait there",
       "结论：rank 9 和 14 从未进入 EXPERT_MODEL_PARALLEL_GROUP (72) 的 all_to_all #45265；6 个 rank 在那里等待"},
      {"lock_gil_2nd",
       "verdict: rank 10 never entered all_to_all #20947 of EXPERT_MODEL_PARALLEL_GROUP (73); 3 ranks wait there. Also: rank 15 never "
       "entered all_to_all #20947 of EXPERT_MODEL_PARALLEL_GROUP (74); 3 ranks wait there",
       "结论：rank 10 从未进入 EXPERT_MODEL_PARALLEL_GROUP (73) 的 all_to_all #20947；3 个 rank 在那里等待。另外：rank 15 从未进入 "
       "EXPERT_MODEL_PARALLEL_GROUP (74) 的 all_to_all #20947；3 个 rank 在那里等待"},
  };
  if (!fs::exists(data() / "flight-recorder"))
    GTEST_SKIP() << data() / "flight-recorder" << " is missing (the real dumps live in ../shared/data beside the source)";
  for (const auto& r : runs) {
    const std::string dir = (data() / "flight-recorder" / r.run).string();
    Cli en("job_cli_", {"job", dir});
    ASSERT_EQ(en.wait(), 0) << en.err;
    EXPECT_NE(en.out.find(r.en), std::string::npos) << en.out.substr(0, 600);
    Cli zh("job_cli_", {"--lang", "zh", "job", dir});
    ASSERT_EQ(zh.wait(), 0) << zh.err;
    EXPECT_NE(zh.out.find(r.zh), std::string::npos) << zh.out.substr(0, 600);
    EXPECT_EQ(zh.out.find("never entered"), std::string::npos);
  }
}

TEST(JobCli, TextAndJsonOfAJob) {
  Cli c("job_cli_", {"job", "x"});
  c.wait();
  writeJob(c.dir / "dumps");
  Cli t("job_cli_", {"job", (c.dir / "dumps").string()});
  ASSERT_EQ(t.wait(), 0) << t.err;
  EXPECT_NE(t.out.find("collviz job: 4 files (4 × PyTorch Flight Recorder dump (pickle)) · 4 ranks · 6 groups · 11 calls"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("verdict: rank 2 never entered all_reduce #4 of DATA_PARALLEL_GROUP (5); 3 ranks wait there"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("rank 2: entered 3, completed 3  never entered #4"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("rank 0: entered 4, completed 3  waits in #4"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("all_reduce       #4        DATA_PARALLEL_GROUP (5)"), std::string::npos) << t.out;  // rank 0's last collectives
  Cli j("job_cli_", {"job", "--json", (c.dir / "dumps").string()});
  ASSERT_EQ(j.wait(), 0) << j.err;
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["verdict"], "rank 2 never entered all_reduce #4 of DATA_PARALLEL_GROUP (5); 3 ranks wait there");
  ASSERT_FALSE(doc["findings"].empty());
  EXPECT_EQ(doc["findings"][0]["kind"], "hang");
  EXPECT_EQ(doc["findings"][0]["group"], "5");
  EXPECT_EQ(doc["findings"][0]["seq"], 4);
  EXPECT_EQ(doc["findings"][0]["ranks"], nlohmann::json::array({2}));
  EXPECT_EQ(doc["findings"][0]["waiting"], nlohmann::json::array({0, 1, 3}));
  EXPECT_EQ(doc["files"].size(), 4u);
  EXPECT_EQ(doc["files"][0]["format"], "flight_recorder_pickle");
  EXPECT_EQ(doc["world_size"], 4);
  Cli z("job_cli_", {"--lang", "zh", "job", "--json", (c.dir / "dumps").string()});
  ASSERT_EQ(z.wait(), 0) << z.err;
  EXPECT_EQ(nlohmann::json::parse(z.out)["verdict"], "rank 2 从未进入 DATA_PARALLEL_GROUP (5) 的 all_reduce #4；3 个 rank 在那里等待");
}

TEST(JobCli, TheNcclToolsTables) {
  const fs::path fx = COLLVIZ_JOB_FIXTURES;
  Cli t("job_cli_", {"job", (fx / "nccl_tests_wrong_srun.txt").string(), (fx / "ras_report_errors.txt").string(),
                     (fx / "profiler_p2p.jsonl").string()});
  ASSERT_EQ(t.wait(), 0) << t.err;
  EXPECT_NE(t.out.find("nccl-tests reduce_scatter_perf ("), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("      3 |      20.1     0.10     0.05     N/A  ← wrong values"), std::string::npos) << t.out;  // the row with #wrong 3
  EXPECT_NE(t.out.find("rank 1: MISMATCH — Rank 1 has launched up to operation 9"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("0x63                 send→1                -        2097152        110.0      19.07 -          -        2"), std::string::npos)
      << t.out;  // the profiler's p2p: comm 99, its kernel channels' 110 us
  Cli z("job_cli_", {"--lang", "zh", "job", (fx / "nccl_tests_wrong_srun.txt").string()});
  ASSERT_EQ(z.wait(), 0) << z.err;
  EXPECT_NE(z.out.find("← 错误值"), std::string::npos) << z.out;
  EXPECT_NE(z.out.find("结论：nccl-tests reduce_scatter_perf：1 个大小上共有 3 个错误值"), std::string::npos) << z.out;
}

TEST(JobCli, APickleThatWouldRunCodeExits1AndNothingRuns) {
  Cli c("job_cli_", {"job", "x"});
  c.wait();
  const fs::path ran = c.dir / "ran";
  // pickle.dumps of an object whose __reduce__ returns (os.system, ("touch <dir>/ran",)), protocol 2.
  const std::string cmd = "touch " + ran.string();
  std::string evil = std::string("\x80\x02" "cposix\nsystem\nq\x00X", 18);
  for (int k = 0; k < 4; ++k) evil += char((cmd.size() >> (8 * k)) & 255);
  evil += cmd + std::string("q\x01\x85q\x02Rq\x03.", 9);
  std::ofstream(c.dir / "_dump_0", std::ios::binary) << evil;
  Cli e("job_cli_", {"job", (c.dir / "_dump_0").string()});
  EXPECT_EQ(e.wait(), 1);
  EXPECT_NE(e.err.find("_dump_0: refused: pickle opcode GLOBAL (0x63) at byte 2"), std::string::npos) << e.err;
  Cli z("job_cli_", {"--lang", "zh", "job", (c.dir / "_dump_0").string()});
  EXPECT_EQ(z.wait(), 1);
  EXPECT_NE(z.err.find("拒绝读取：第 2 字节的 pickle 操作码 GLOBAL（0x63）"), std::string::npos) << z.err;
  Cli j("job_cli_", {"job", "--json", (c.dir / "_dump_0").string()});
  EXPECT_EQ(j.wait(), 1);
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["exit_code"], 1);
  EXPECT_NE(doc["error"].get<std::string>().find("GLOBAL"), std::string::npos);
  EXPECT_FALSE(fs::exists(ran)) << "the pickle ran code";
}

TEST(JobCli, MissingAndNoFiles) {
  Cli m("job_cli_", {"job", "/nonexistent/_dump_0"});
  EXPECT_EQ(m.wait(), 1);
  EXPECT_NE(m.err.find("/nonexistent/_dump_0: no such file or folder"), std::string::npos) << m.err;
  Cli u("job_cli_", {"job"});
  EXPECT_EQ(u.wait(), 2);
  // --window: one file or folder, read on the terminal before any window opens.
  Cli two("job_cli_", {"job", "a", "b", "--window"});
  EXPECT_EQ(two.wait(), 2);
  EXPECT_NE(two.err.find("--window opens one file or folder"), std::string::npos) << two.err;
  Cli gone("job_cli_", {"job", "/nonexistent/_dump_0", "--window"});
  EXPECT_EQ(gone.wait(), 1);
  EXPECT_NE(gone.err.find("/nonexistent/_dump_0: no such file or folder"), std::string::npos) << gone.err;
}

}  // namespace
}  // namespace collviz::test
