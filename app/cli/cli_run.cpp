// `collviz run`: run one op (or the decomposition) and print what came back.
#include <algorithm>
#include <cstdio>
#include "app/lang/backend_line.h"
#include "app/lang/lang.h"
#include "engine/verify/provenance.h"
#include <iostream>

#include "app/cli/cli_algo_file.h"
#include "app/cli/cli_algos.h"
#include "app/cli/cli_common.h"
#include "app/cli/cli_commands.h"
#include "app/cli/cli_input.h"
#include "app/cli/cli_profile.h"
#include "engine/job/nccl_log/json.h"
#include "engine/job/nccl_log/nccl_log.h"
#include "engine/verify/held_values.h"
#include "engine/group/memory_budget.h"
#include "engine/verify/report.h"
#include "engine/verify/value_summary.h"

namespace collviz {
namespace {

std::string oneDecimal(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string labelRow(const BufferView& b, RedOp r) {
  if (!b.present) return "—";
  std::string out;
  for (const auto& l : b.labels) {
    if (!out.empty()) out += ' ';
    out += l.text(r) + (l.decoded ? "" : "*") + (l.bad ? "!" : "");
  }
  return out;
}

// Every value up to the limit, past it each block's first and last few with
// "…" and how many were left out (elided counts the values not printed).
// Straight to stdout: with --values all a big run's rows are hundreds of MB.
void printValues(const BufferView& b, DType t, int64_t elems, const ValueLimit& asked,
                 std::size_t* elided) {
  if (!b.present) {
    std::fputs("—", stdout);
    return;
  }
  const ValueLimit limit = heldLimit(asked, b);  // only values the snapshot holds
  const std::size_t n = b.count(t);
  const std::size_t shown = forEachShown(
      limit, n, std::size_t(elems),
      [&](std::size_t blk, std::size_t first, std::size_t last) {
        if (blk && first % std::size_t(elems) == 0) std::fputs(" |", stdout);
        for (std::size_t i = first; i < last; ++i) std::printf(" %g", b.value(i, t));
      },
      [&](std::size_t, std::size_t gap) { std::printf(" …(%zu)…", gap); });
  *elided += n - shown;
  if (limit.none) std::printf(" %s", trf("({0} values)", {std::to_string(n)}).c_str());
}

bool anyFromOracle(const StepResult& st) {
  for (const auto& r : st.ranks)
    for (const BufferView* b : {&r.input, &r.output})
      for (const auto& l : b->labels)
        if (!l.decoded) return true;
  return false;
}

void printTable(const Snapshot& s, const ValueLimit& limit) {
  std::size_t elided = 0;
  const OpSpec& sp = s.spec;
  std::printf("collviz run: %s  ranks=%d elems=%lld dtype=%s%s root=%d\n",
              s.program == Program::single ? std::string(name(sp.op)).c_str()
                                           : "all_reduce_decomposed",
              sp.ranks, static_cast<long long>(sp.elems), std::string(name(sp.dtype)).c_str(),
              redopField(s.program, sp).c_str(), sp.root);
  std::printf("%s\n", backendLine(s.backend).text().c_str());  // as the window's status line
  for (const RankPlace& p : s.places)  // across hosts: where each rank ran
    std::printf("  %s\n", trf("rank {0} on {1} (pid {2})", {std::to_string(p.rank), p.host, std::to_string(p.pid)}).c_str());
  for (const StepResult& st : s.steps)  // across hosts: the remote ranks' buffers on the engine's connections
    if (st.wire_bytes)
      std::printf("  %s\n", trf("wire: {0} bytes in {1} us", {std::to_string(st.wire_bytes), oneDecimal(st.wire_us)}).c_str());
  if (!s.notice.empty()) std::printf("%s\n", render(say("notice: {0}", s.notice)).c_str());
  for (std::size_t k = 0; k < s.steps.size(); ++k) {
    const StepResult& st = s.steps[k];
    std::size_t w = 5;
    for (const auto& r : st.ranks) w = std::max(w, columns(labelRow(r.input, sp.redop)));
    std::printf("\n%s\n",
                render(say("step {0}: {1}  ({2})", k + 1, name(st.spec.op), patternText(st.verify.mode))).c_str());
    std::printf("      %s   %s\n", padColumns(tr("input"), w).c_str(), tr("output"));
    for (const auto& r : st.ranks)
      std::printf("  R%-2d %s → %s\n", r.rank, padColumns(labelRow(r.input, sp.redop), w).c_str(),
                  labelRow(r.output, sp.redop).c_str());
    std::printf("  %s\n", tr("values:"));
    for (const auto& r : st.ranks) {
      std::printf("  R%-2d %s", r.rank, tr("in :"));
      printValues(r.input, st.spec.dtype, sp.elems, limit, &elided);
      std::printf("\n       %s", tr("out:"));
      printValues(r.output, st.spec.dtype, sp.elems, limit, &elided);
      std::printf("\n");
    }
    if (anyFromOracle(st))
      std::printf("  %s\n", trf("* label from the oracle, not from the bytes: the pattern does not carry it here ({0})",
                                {render(patternText(st.verify.mode))}).c_str());
    std::printf("  %s%s\n", tr(st.verify.verified ? "verified: " : "NOT VERIFIED: "),
                trf("{0} wrong elements ({1} differ from the oracle, {2} undecodable, {3} not written) · op {4} us (slowest rank)",
                    {std::to_string(st.verify.wrong), std::to_string(st.verify.mismatches),
                     std::to_string(st.verify.undecodable), std::to_string(st.verify.unwritten),
                     oneDecimal(st.time_us)}).c_str());
    const std::size_t shown = std::min<std::size_t>(st.verify.bad_blocks.size(), 16);
    for (std::size_t i = 0; i < shown; ++i)
      std::printf("  %s\n", render(say("bad block: {0}", st.verify.bad_blocks[i])).c_str());
    if (st.verify.bad_blocks.size() > shown)
      std::printf("  %s\n", trf("… and {0} more bad blocks",
                                {std::to_string(st.verify.bad_blocks.size() - shown)}).c_str());
    if (!st.verify.first_problem.empty())
      std::printf("  %s\n", render(say("first problem: {0}", st.verify.first_problem)).c_str());
  }
  if (s.all_reduce_compared)
    std::printf("\n%s\n", trf(s.all_reduce_diffs == 0
                                    ? "reduce_scatter + all_gather equals a real all_reduce on the same inputs ({0} elements differ)"
                                    : "reduce_scatter + all_gather DIFFERS FROM a real all_reduce on the same inputs ({0} elements differ)",
                                {std::to_string(s.all_reduce_diffs)}).c_str());
  if (elided)
    std::printf("\n%s\n", trf("{0} values not printed (…(k)… marks k left out of a block); --values all "
                               "prints every value, --values N summarises buffers past N",
                               {std::to_string(elided)}).c_str());
  std::printf("\n%s · %s\n", tr(s.verified ? "verified" : "NOT VERIFIED"),
              trf("op time {0} us · engine {1} us", {oneDecimal(s.time_us), oneDecimal(s.engine_us)}).c_str());
}

}  // namespace

void addRunCommand(CLI::App& app, std::function<int()>& action) {
  auto args = std::make_shared<SpecArgs>();
  auto json_out = std::make_shared<bool>(false);
  auto algo = std::make_shared<std::string>("native");
  auto sharing = std::make_shared<std::string>("host-id");
  auto values = std::make_shared<std::string>("1000");
  auto host_args = std::make_shared<HostArgs>();
  auto profile = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("run", "Run one collective for real and print the result");
  addSpecOptions(cmd, *args);
  addHostOptions(cmd, *host_args);
  cmd->add_option("--algo", *algo,
                  "native (the backend's own call), or an algorithm run round by round on "
                  "point-to-point calls (`collviz algos` lists them)")
      ->capture_default_str();
  auto algo_file = std::make_shared<std::string>();
  addAlgoFileOption(cmd, *algo_file);
  addGpuSharingOption(cmd, *sharing);
  cmd->add_flag("--json", *json_out, "Print one JSON document on stdout");
  cmd->add_flag("--profile", *profile,
                "Also print where the run's time went, by phase (start-up, inputs, op, verify, "
                "copies, print, shut-down); with --json as \"profile\"");
  cmd->add_option("--values", *values,
                  "all, none, or N: buffers of more than N values print the first and last "
                  "few of each block (labels, contributors and counts stay complete)")
      ->capture_default_str();
  cmd->callback([&action, cmd, args, json_out, algo, algo_file, sharing, values, host_args, profile] {
    if (cmd->count("--algo-file") > 0) {  // the file sets the op and ranks: read it before the spec ("" is refused)
      auto name = useAlgoFile(*algo_file, cmd, *args);
      if (!name) {
        const Error why = name.error();
        action = [why] { return fail("run", why, kExitUsage); };
        return;
      }
      *algo = *name;
    }
    action = [args, json_out, algo, sharing, values, host_args, profile]() -> int {
      using Clock = std::chrono::steady_clock;
      const auto started = Clock::now();
      auto usSince = [](Clock::time_point t) {
        return std::chrono::duration<double, std::micro>(Clock::now() - t).count();
      };
      auto parsed = parseSpec(*args);
      auto placement = parseGpuSharing(*sharing);
      if (!parsed) return fail("run", parsed.error(), kExitUsage);
      if (!placement) return fail("run", placement.error(), kExitUsage);
      auto hosts = parseHosts(*host_args);
      if (!hosts) return fail("run", hosts.error(), kExitUsage);
      if (!hosts->empty())
        if (auto fits = placeOnHosts(*hosts, parsed->spec.ranks); !fits) return fail("run", fits.error(), kExitUsage);
      std::string values_error;
      const auto limit = parseValueLimit(*values, &values_error);
      if (!limit) return fail("run", values_error, kExitUsage);
      if (*algo != "native" && *profile)
        return fail("run", Error{say("--profile times a backend's own call; with --algo {0} leave out --profile (allowed: --profile with --algo native)", *algo)},
                    kExitUsage);
      if (*algo != "native")
        return runWithAlgorithm(*parsed, *algo, *json_out, args->deadline_ms, *placement, *hosts);
      // The engine checks the run itself (after the backend's limits); the
      // JSON report is this command's.
      const int steps = parsed->program == Program::all_reduce_decomposed ? 3 : 1;
      const OpSpec& sp = parsed->spec;
      const double per_rank = 2.0 * sp.ranks * double(sp.elems) * double(dtypeSize(sp.dtype));
      // A JSON tree of every value only with --values all (else the ends of big blocks).
      if (*json_out && limit->max < 0 && per_rank <= double(kMaxRankBytes))  // beyond: the engine names the cap
        if (Status st = checkRunMemory(sp, steps, true, true); !st)
          return fail("run", st.error(), kExitUsage);
      EngineOptions eo;
      eo.deadline = std::chrono::milliseconds(args->deadline_ms);
      eo.placement = *placement;
      eo.hosts = *hosts;
      auto engine_owned = std::make_unique<Engine>(eo);
      Engine& engine = *engine_owned;
      Request req;
      req.spec = parsed->spec;
      req.program = parsed->program;
      req.backend = parsed->backend;
      // The snapshot keeps every value of the buffers this printout shows whole.
      req.keep_values = limit->none ? 0 : limit->max;
      req.last = true;  // one op, then the engine ends: its ranks end while it checks their bytes
      const double before_us = usSince(started);
      const uint64_t id = engine.submit(req);
      auto snap = waitInterruptible(engine, id);
      if (!snap) return fail("run", say("interrupted"), interruptedExitCode());
      // The notice once: in the printed table, or on stderr when stdout is
      // JSON or there is no table.
      if (!snap->notice.empty() && (*json_out || !snap->error.empty()))
        std::fprintf(stderr, "collviz: %s\n", render(snap->notice).c_str());
      if (!snap->error.empty())
        return failWithReport("run", toJson(*snap, *limit), errorOf(snap->error),
                              snap->rejected ? kExitUsage : kExitFailed);
      const auto choice = nccl_log::lastChoice(engine.ncclLogDir(), sp.op);
      const auto print_start = Clock::now();
      // --profile: the ranks are ended before the profile is printed, so
      // that it can say what ending them took.
      const PhaseTimes phases = engine.phases();
      auto profiled = [&](double print_us) {
        const auto t = Clock::now();
        engine_owned.reset();
        return makeProfile(phases, before_us, print_us, usSince(t), usSince(started));
      };
      if (*json_out) {
        auto j = toJson(*snap, *limit);
        if (choice)
          j["nccl_choice"] = {{"op", choice->op}, {"bytes", choice->bytes}, {"algo", choice->algo}, {"proto", choice->proto},
                              {"channel_lo", choice->chLo}, {"channel_hi", choice->chHi}};
        if (snap->nccl_log)  // the communicator NCCL built, as collviz nccl-log --json gives it
          j["nccl_log"] = nccl_log::toJson(*snap->nccl_log, [](const Text& t) { return render(t); });
        if (*profile) j["profile"] = profileJson(profiled(usSince(print_start)));
        std::cout << j.dump(2) << "\n";
      } else {
        printTable(*snap, *limit);
        if (choice) std::printf("%s\n", render(nccl_log::choiceText(*choice)).c_str());
        if (snap->nccl_log) printNcclComms(*snap->nccl_log);
        if (*profile) {
          std::fflush(stdout);
          printProfile(profiled(usSince(print_start)));
        }
      }
      if (!snap->verified)
        std::fprintf(stderr, "collviz run: %s\n",
                     render(say("the result failed verification ({0} wrong elements)",
                                static_cast<long long>(snap->mismatches))).c_str());
      return snap->verified ? kExitOk : kExitFailed;
    };
  });
}

}  // namespace collviz
