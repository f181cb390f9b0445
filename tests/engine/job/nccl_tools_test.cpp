// The NCCL tools' output (engine/job/ras.cpp, inspector.cpp, profiler.cpp,
// nccl_tests.cpp): the real files of ../shared/data/nccl-tools read back
// exactly (skipped, saying so, where the folder is missing), and fixtures
// written from NCCL's and nccl-tests' format code for what they do not
// cover: a RAS status with a dead, an aborted and a lagging rank, monitor
// events one after another, a text report's ERROR and MISMATCH blocks, an
// Inspector p2p record and a verbose one, a cut profiler trace with
// unquoted values, a plugin's p2p event with its kernel channels,
// nccl-tests with per-iteration columns, srun labels and #wrong.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "engine/job/job.h"

namespace collviz::job {
namespace {

namespace fs = std::filesystem;

fs::path tools() {
  if (const char* e = std::getenv("COLLVIZ_JOB_DATA")) return fs::path(e) / "nccl-tools";
  return fs::path(COLLVIZ_JOB_DATA_DIR) / "nccl-tools";
}
std::string fixture(const char* name) { return (fs::path(COLLVIZ_JOB_FIXTURES) / name).string(); }

#define NEED(path) \
  if (!fs::exists(path)) GTEST_SKIP() << path << " is missing (the real files live in ../shared/data/nccl-tools beside the source, or set COLLVIZ_JOB_DATA)"

Finding only(const Analysis& a, FindingKind k) {
  for (const Finding& f : a.findings)
    if (f.kind == k) return f;
  return {};
}

TEST(NcclRas, RealTextReports) {
  const fs::path dir = tools() / "ras";
  NEED(dir);
  auto incomplete = read({(dir / "ncclras_v_2.30.7_8rank_2node_exit_INCOMPLETE_excerpt.txt").string()});
  ASSERT_TRUE(incomplete) << incomplete.error().message;
  EXPECT_EQ(incomplete->sources[0].format, Format::nccl_ras_text);
  ASSERT_EQ(incomplete->ras.size(), 1u);
  const RasReport& r = incomplete->ras[0];
  ASSERT_EQ(r.comms.size(), 1u);
  EXPECT_EQ(r.comms[0].size, 8);
  EXPECT_EQ(r.comms[0].ranksSeen, 7);
  EXPECT_EQ(r.comms[0].missing, 1) << "the report says rank 7 is missing (8 per comm, 7 in group)";
  EXPECT_EQ(r.comms[0].errors, "INCOMPLETE");
  EXPECT_EQ(r.comms[0].hash, "0x1bdb83b038775869");
  const Rank* seven = incomplete->rank(7);
  ASSERT_NE(seven, nullptr);
  EXPECT_EQ(seven->health, Health::incomplete);
  EXPECT_EQ(seven->host, "node1");
  EXPECT_EQ(seven->pid, 3748990);
  EXPECT_EQ(seven->device, 3);
  EXPECT_EQ(std::string(analyse(*incomplete).verdict), "NCCL RAS: rank 7 INCOMPLETE: Rank 7 -- GPU 3 managed by process 3748990 on node node1");

  auto mismatch = read({(dir / "ncclras_v_2.30.7_8rank_2node_sleep_MISMATCH_excerpt.txt").string()});
  ASSERT_TRUE(mismatch) << mismatch.error().message;
  EXPECT_EQ(mismatch->rank(7)->health, Health::mismatch);
  EXPECT_EQ(std::string(mismatch->rank(7)->healthText), "Rank 7 has launched up to operation 60 -- GPU 3 managed by process 1650386 on node node1");
  EXPECT_EQ(mismatch->ras[0].warnings.size(), 1u);

  auto healthy = read({(dir / "ncclras_v_2.30.7_8rank_2node_healthy.txt").string()});
  ASSERT_TRUE(healthy) << healthy.error().message;
  EXPECT_EQ(healthy->ras[0].version, "2.30.7");
  ASSERT_EQ(healthy->ras[0].comms.size(), 1u);
  EXPECT_EQ(healthy->ras[0].comms[0].errors, "OK");
  EXPECT_EQ(healthy->ras[0].comms[0].missing, 0);
  EXPECT_EQ(healthy->ras[0].comms[0].hash, "") << "the healthy report prints no hash";
  EXPECT_TRUE(analyse(*healthy).findings.empty());

  auto dead = read({(dir / "ncclras_v_2.30.7_8rank_2node_exit_DEAD_excerpt.txt").string()});
  ASSERT_TRUE(dead) << dead.error().message;
  ASSERT_EQ(dead->ras[0].processes.size(), 1u);
  EXPECT_EQ(dead->ras[0].processes[0].health, Health::dead);
  EXPECT_EQ(dead->ras[0].processes[0].pid, 3748990);
  EXPECT_EQ(dead->ras[0].processes[0].devices, (std::vector<int>{3}));
  // Read with the INCOMPLETE report, the dead process is rank 7: the same host and pid.
  auto both = read({(dir / "ncclras_v_2.30.7_8rank_2node_exit_DEAD_excerpt.txt").string(),
                    (dir / "ncclras_v_2.30.7_8rank_2node_exit_INCOMPLETE_excerpt.txt").string()});
  ASSERT_TRUE(both) << both.error().message;
  EXPECT_EQ(both->rank(7)->health, Health::dead);
}

TEST(NcclRas, RealJsonStatusAndEvent) {
  const fs::path dir = tools() / "ras";
  NEED(dir);
  auto status = read({(dir / "ncclras_status_2.29.1_json_from_ras_rst.json").string()});
  ASSERT_TRUE(status) << status.error().message;
  EXPECT_EQ(status->sources[0].format, Format::nccl_ras_json);
  EXPECT_EQ(status->sources[0].library, "2.29.1");
  ASSERT_EQ(status->ranks.size(), 2u);
  EXPECT_EQ(status->rank(0)->health, Health::ok);
  EXPECT_EQ(status->rank(1)->health, Health::unresponsive);
  EXPECT_EQ(status->rank(1)->pid, 1524345);
  EXPECT_EQ(status->ras[0].comms[0].errors, "INCOMPLETE");
  EXPECT_EQ(status->groups[0].id, "0xae94423cfbb2ef4a");
  auto event = read({(dir / "ncclras_monitor_event_PEER_DEAD_json_from_ras_rst.json").string()});
  ASSERT_TRUE(event) << event.error().message;
  EXPECT_EQ(event->sources[0].format, Format::nccl_ras_event);
  ASSERT_EQ(event->ras[0].events.size(), 1u);
  EXPECT_EQ(std::string(event->ras[0].events[0]), "2025-12-19 13:07:07 PEER_DEAD: Process 1524345 on node 172.16.64.245 managing GPU 1");
  // The event and the status together: the dead peer is rank 1.
  auto together = read({(dir / "ncclras_status_2.29.1_json_from_ras_rst.json").string(), (dir / "ncclras_monitor_event_PEER_DEAD_json_from_ras_rst.json").string()});
  ASSERT_TRUE(together) << together.error().message;
  EXPECT_EQ(together->rank(1)->health, Health::dead);
}

TEST(NcclRas, FixturesDeadAbortedLaggingAndEvents) {
  auto j = read({fixture("ras_status_dead.json")});
  ASSERT_TRUE(j) << j.error().message;
  EXPECT_EQ(j->rank(0)->health, Health::ok);
  EXPECT_EQ(j->rank(1)->health, Health::mismatch);
  EXPECT_EQ(std::string(j->rank(1)->healthText), "AllReduce 60 < 64");
  EXPECT_EQ(j->rank(2)->health, Health::error);
  EXPECT_EQ(j->rank(3)->health, Health::dead);
  EXPECT_EQ(j->rank(3)->host, "node1");
  EXPECT_EQ(j->ras[0].comms.size(), 2u);
  EXPECT_EQ(j->ras[0].comms[1].errors, "OK");
  // A communicator with a rank in error, one whose ranks' counts differ:
  // ERROR and MISMATCH, each its own (neither is INCOMPLETE: no rank missing).
  auto em = read({fixture("ras_status_error_mismatch.json")});
  ASSERT_TRUE(em) << em.error().message;
  ASSERT_EQ(em->ras[0].comms.size(), 2u);
  EXPECT_EQ(em->ras[0].comms[0].hash, "0xe1");
  EXPECT_EQ(em->ras[0].comms[0].errors, "ERROR");
  EXPECT_EQ(em->ras[0].comms[1].hash, "0xe2");
  EXPECT_EQ(em->ras[0].comms[1].errors, "MISMATCH");
  auto e = read({fixture("ras_events.json")});
  ASSERT_TRUE(e) << e.error().message;
  ASSERT_EQ(e->ras[0].events.size(), 3u);
  EXPECT_EQ(std::string(e->ras[0].events[2]), "2025-12-19 13:07:09 PEER_RETRY: 10.0.0.7<35841> retrying");
  ASSERT_EQ(e->ras[0].processes.size(), 1u);  // PEER_NEW and PEER_RETRY say nothing wrong of a rank
  auto t = read({fixture("ras_report_errors.txt")});
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->rank(2)->health, Health::error);
  EXPECT_EQ(t->rank(1)->health, Health::mismatch);
  EXPECT_EQ(t->ras[0].comms[0].errors, "ERROR,MISMATCH");
  EXPECT_EQ(t->ras[0].warnings.size(), 2u);  // TIMEOUT and MISMATCH
  EXPECT_EQ(t->ras[0].events.size(), 1u);
  const Analysis a = analyse(*t);
  int ras = 0;
  for (const Finding& f : a.findings) ras += f.kind == FindingKind::ras;
  EXPECT_EQ(ras, 3);  // rank 2's error, rank 1's mismatch, the dead process 201 (no rank of its own)
}

TEST(NcclInspector, RealAndFixtureRecords) {
  const fs::path f = tools() / "inspector" / "inspector_v4.0_record_nanogpt_3node_from_go_test_UNVERIFIED_REPO.jsonl";
  if (fs::exists(f)) {
    auto job = read({f.string()});
    ASSERT_TRUE(job) << job.error().message;
    ASSERT_EQ(job->calls.size(), 1u);
    const Call& c = job->calls[0];
    EXPECT_EQ(c.rank, 1);
    EXPECT_EQ(job->str(c.op), "all_reduce");
    EXPECT_EQ(c.seq, 8995);
    EXPECT_EQ(c.bytes, 2360832);
    EXPECT_FLOAT_EQ(c.durationMs, 5.663f);
    EXPECT_FLOAT_EQ(c.busbw, 0.555850f);
    EXPECT_EQ(job->groups[std::size_t(c.group)].id, "0xad56c683b0c4ef");
    EXPECT_EQ(job->groups[std::size_t(c.group)].size, 3);
    EXPECT_EQ(job->rank(1)->host, "nanogpt-nccl-test-worker-0");
    EXPECT_EQ(job->sources[0].version, "v4.0");
  }
  auto job = read({fixture("inspector_p2p_verbose.jsonl")});
  ASSERT_TRUE(job) << job.error().message;
  ASSERT_EQ(job->calls.size(), 2u);
  EXPECT_EQ(job->calls[0].channels, 2);  // its two kernel events
  // The record's own figures, as the real record's above (checked only
  // where ../shared/data is): op, sequence, bytes, time, bus bandwidth.
  EXPECT_EQ(job->str(job->calls[0].op), "all_gather");
  EXPECT_EQ(job->calls[0].seq, 7);
  EXPECT_EQ(job->calls[0].bytes, 1048576);
  EXPECT_FLOAT_EQ(job->calls[0].durationMs, 0.120f);
  EXPECT_FLOAT_EQ(job->calls[0].busbw, 4.369067f);
  EXPECT_FLOAT_EQ(job->calls[1].busbw, 0.455f);
  EXPECT_EQ(job->calls[1].bytes, 4096);
  EXPECT_EQ(job->groups[0].desc, "dp_group");
  EXPECT_TRUE(job->calls[1].p2p);
  EXPECT_EQ(job->calls[1].peer, 0);
  EXPECT_EQ(job->str(job->calls[1].op), "send");
  ASSERT_EQ(job->sources[0].notes.size(), 2u);  // a line that is no record, one of the wrong type
  if (!fs::exists(f)) GTEST_SKIP() << f << " is missing (../shared/data/nccl-tools); the fixture was read";
}

TEST(NcclProfiler, RealTraces) {
  const fs::path dir = tools() / "profiler_plugin" / "pha-Z-nccl";
  NEED(dir);
  auto chrome = read({(dir / "example_plugin_p2p_trace_rank0_sendrecv.json").string()});
  ASSERT_TRUE(chrome) << chrome.error().message;
  EXPECT_EQ(chrome->sources[0].format, Format::nccl_profiler_trace);
  ASSERT_EQ(chrome->calls.size(), 8u);
  for (const Call& c : chrome->calls) {
    EXPECT_TRUE(c.p2p);
    EXPECT_EQ(c.bytes, 1073741824);
    EXPECT_EQ(c.channels, 16);
    EXPECT_LT(c.durationMs, 0);  // the event ends at its enqueue: no time read from it
  }
  auto lines = read({(dir / "minimal_profiler_trace_2798216_allreduce++.jsonl").string()});
  ASSERT_TRUE(lines) << lines.error().message;
  ASSERT_EQ(lines->calls.size(), 8u);
  const Call& c = lines->calls[0];
  EXPECT_EQ(lines->str(c.algo), "RING");
  EXPECT_EQ(lines->str(c.proto), "SIMPLE");
  EXPECT_EQ(c.channels, 12);
  EXPECT_EQ(c.bytes, 134217728);
  EXPECT_NEAR(c.durationMs, 0.1639, 1e-4);  // rank 0's kernel channels, first start to last stop
  EXPECT_NEAR(c.busbw, 134217728 / 163.9e3 * 1.5, 0.5);
  EXPECT_EQ(lines->groups[0].size, 4);
}

TEST(NcclProfiler, AnUnquotedCutTraceAndAPluginsP2p) {
  auto cut = read({fixture("profiler_unquoted_cut.json")});
  ASSERT_TRUE(cut) << cut.error().message;
  ASSERT_EQ(cut->calls.size(), 2u);  // the third is cut mid-line: counted
  EXPECT_EQ(cut->str(cut->calls[0].dtype), "ncclFloat32");
  EXPECT_EQ(cut->str(cut->calls[0].algo), "RING");
  EXPECT_EQ(cut->str(cut->calls[0].proto), "LL128");
  EXPECT_EQ(cut->calls[0].state, State::completed);
  EXPECT_EQ(cut->calls[1].state, State::started);  // no end event
  EXPECT_EQ(cut->calls[1].bytes, 262144 * 2);
  EXPECT_EQ(cut->groups[0].id, "0xb0777fd29824eeb6");  // 12715772615376301750 in hex: the hash RAS and the Inspector print
  EXPECT_EQ(cut->rank(1)->pid, 4242);
  ASSERT_EQ(cut->sources[0].notes.size(), 1u);
  auto p2p = read({fixture("profiler_p2p.jsonl")});
  ASSERT_TRUE(p2p) << p2p.error().message;
  ASSERT_EQ(p2p->calls.size(), 1u);
  EXPECT_NEAR(p2p->calls[0].durationMs, 0.110, 1e-6);  // channels 102..212 us
  EXPECT_EQ(p2p->calls[0].peer, 1);
  EXPECT_EQ(p2p->calls[0].bytes, 2 * 1048576);
  EXPECT_NEAR(p2p->calls[0].busbw, 2 * 1048576 / 110e3, 1e-3);
  EXPECT_EQ(p2p->groups[0].size, 2);
}

TEST(NcclTests, RealOutputs) {
  const fs::path dir = tools() / "nccl_tests";
  NEED(dir);
  auto a3 = read({(dir / "a3mega_2node_16rank_H100_all_reduce_perf.txt").string()});
  ASSERT_TRUE(a3) << a3.error().message;
  ASSERT_EQ(a3->tests.size(), 1u);
  const TestRun& t = a3->tests[0];
  ASSERT_EQ(t.rows.size(), 31u);
  EXPECT_EQ(t.rows.front().bytes, 8);
  EXPECT_EQ(t.rows.back().bytes, 8589934592);
  EXPECT_DOUBLE_EQ(t.rows.back().busbw[0], 338.82);
  EXPECT_DOUBLE_EQ(t.rows.back().time[1], 47743);
  EXPECT_EQ(t.rows.back().wrong[1], 0);
  EXPECT_DOUBLE_EQ(t.avgBusbw, 70.742);
  EXPECT_EQ(t.outOfBounds, 0);
  EXPECT_EQ(a3->ranks.size(), 16u);
  EXPECT_EQ(a3->hosts, (std::vector<std::string>{"ztan-mig-235z", "ztan-mig-gq73"}));
  EXPECT_EQ(a3->rank(12)->device, 4);
  EXPECT_EQ(a3->rank(12)->busId, "0000:84:00");
  EXPECT_EQ(a3->rank(12)->gpu, "NVIDIA H100 80GB HBM3");
  auto tagged = read({(dir / "ncclebpf_1gpu_2rank_socket_mpi_tagged_all_reduce_perf.txt").string()});
  ASSERT_TRUE(tagged) << tagged.error().message;
  ASSERT_EQ(tagged->tests.size(), 1u);
  EXPECT_EQ(tagged->tests[0].test, "all_reduce_perf_mpi");
  EXPECT_EQ(tagged->tests[0].rows.size(), 8u);
  EXPECT_EQ(tagged->sources[0].version, "2.18.0");
  EXPECT_EQ(tagged->sources[0].library, "2.29.7");
  EXPECT_EQ(tagged->rank(1)->pid, 2994448);
  EXPECT_EQ(tagged->rank(1)->host, "lab");
}

// The folder holds two runs (16 ranks on two hosts, 2 ranks on "lab"):
// read together they are merged by rank number, and that is said, never
// silently "16 ranks" of one job (issue 57).
TEST(NcclTests, TwoRunsInOneFolderAreSaidToBeTwoJobs) {
  const fs::path dir = tools() / "nccl_tests";
  NEED(dir);
  auto both = read({dir.string()});
  ASSERT_TRUE(both) << both.error().message;
  ASSERT_EQ(both->tests.size(), 2u);
  EXPECT_NE(std::string(both->otherJob).find("more than one job: rank 0 is on host"), std::string::npos) << std::string(both->otherJob);
  const Analysis a = analyse(*both);
  EXPECT_EQ(only(a, FindingKind::other_job).kind, FindingKind::other_job);
  EXPECT_EQ(std::string(a.verdict), std::string(both->otherJob));
  auto one = read({(dir / "a3mega_2node_16rank_H100_all_reduce_perf.txt").string()});
  ASSERT_TRUE(one) << one.error().message;
  EXPECT_TRUE(one->otherJob.empty()) << std::string(one->otherJob);
}

TEST(NcclTests, PerIterationColumnsSrunLabelsAndWrongValues) {
  auto job = read({fixture("nccl_tests_wrong_srun.txt")});
  ASSERT_TRUE(job) << job.error().message;
  ASSERT_EQ(job->tests.size(), 1u);
  const TestRun& t = job->tests[0];
  EXPECT_EQ(t.test, "reduce_scatter_perf");
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.rows[1].wrong[0], 3);
  EXPECT_EQ(t.rows[1].wrong[1], -1);  // N/A
  EXPECT_DOUBLE_EQ(t.rows[1].time[1], 20.10);  // the in-place time, past the per-iteration columns
  EXPECT_DOUBLE_EQ(t.rows[2].busbw[1], 0.10);
  EXPECT_EQ(t.wrongTotal, 3);
  EXPECT_EQ(t.outOfBounds, 3);
  EXPECT_EQ(job->sources[0].library, "2.28.7");
  EXPECT_EQ(job->rank(1)->host, "nodeB");
  const Finding f = only(analyse(*job), FindingKind::wrong_results);
  EXPECT_EQ(std::string(f.text), "nccl-tests reduce_scatter_perf: 3 wrong values at one size");
}

TEST(JobFiles, KindsFromContentNotName) {
  const fs::path dir = fs::temp_directory_path() / ("collviz_job_kinds_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::copy_file(fixture("ras_report_errors.txt"), dir / "trace.json", fs::copy_options::overwrite_existing);  // a RAS report, named .json
  { std::ofstream(dir / "notes.pkl") << "just some notes\n"; }  // not a pickle, named .pkl
  auto job = read({dir.string()});
  ASSERT_TRUE(job) << job.error().message;
  EXPECT_EQ(job->sources.size(), 1u);
  EXPECT_EQ(job->sources[0].format, Format::nccl_ras_text);
  ASSERT_EQ(job->notes.size(), 1u);
  EXPECT_EQ(std::string(job->notes[0].text), "1 files are not job traces (skipped): notes.pkl");
  auto named = read({(dir / "notes.pkl").string()});  // named on its own: an error
  ASSERT_FALSE(named);
  EXPECT_NE(named.error().message.find("notes.pkl: not a job trace: none of the formats read"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace collviz::job
