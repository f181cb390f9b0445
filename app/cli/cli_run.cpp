// `collviz run`: run one op (or the decomposition) and print what came back.
#include <cstdio>
#include <iostream>

#include "app/cli/cli_common.h"
#include "app/cli/cli_commands.h"
#include "app/cli/cli_input.h"
#include "engine/memory_budget.h"
#include "engine/report.h"

namespace collviz {
namespace {

std::size_t displayWidth(const std::string& s) {
  std::size_t w = 0;
  for (unsigned char c : s) w += (c & 0xC0) != 0x80;
  return w;
}

std::string pad(const std::string& s, std::size_t w) {
  const std::size_t d = displayWidth(s);
  return s + std::string(d < w ? w - d : 0, ' ');
}

std::string labelRow(const BufferView& b, RedOp r) {
  if (!b.present) return "—";
  std::string out;
  for (const auto& l : b.labels) {
    if (!out.empty()) out += ' ';
    out += l.text(r) + (l.bad ? "!" : "");
  }
  return out;
}

// Straight to stdout: a big run's rows are hundreds of MB as strings.
void printValues(const BufferView& b, DType t, int64_t elems) {
  if (!b.present) {
    std::fputs("—", stdout);
    return;
  }
  const std::size_t n = b.count(t);
  for (std::size_t i = 0; i < n; ++i) {
    if (i && i % std::size_t(elems) == 0) std::fputs(" |", stdout);
    std::printf(" %g", b.value(i, t));
  }
}

void printTable(const Snapshot& s) {
  const OpSpec& sp = s.spec;
  std::printf("collviz run: %s  ranks=%d elems=%lld dtype=%s redop=%s root=%d\n",
              s.program == Program::single ? std::string(name(sp.op)).c_str()
                                           : "all_reduce_decomposed",
              sp.ranks, static_cast<long long>(sp.elems), std::string(name(sp.dtype)).c_str(),
              std::string(name(sp.redop)).c_str(), sp.root);
  std::printf("backend: %s %s · %s · %s\n", s.backend.name.c_str(), s.backend.version.c_str(),
              s.backend.devices.c_str(), s.backend.transport.c_str());
  if (!s.notice.empty()) std::printf("notice: %s\n", s.notice.c_str());
  for (std::size_t k = 0; k < s.steps.size(); ++k) {
    const StepResult& st = s.steps[k];
    std::size_t w = 5;
    for (const auto& r : st.ranks) w = std::max(w, displayWidth(labelRow(r.input, sp.redop)));
    std::printf("\nstep %zu: %s  (%s)\n", k + 1, std::string(name(st.spec.op)).c_str(),
                st.verify.mode.c_str());
    std::printf("      %s   %s\n", pad("input", w).c_str(), "output");
    for (const auto& r : st.ranks)
      std::printf("  R%-2d %s → %s\n", r.rank, pad(labelRow(r.input, sp.redop), w).c_str(),
                  labelRow(r.output, sp.redop).c_str());
    std::printf("  values:\n");
    for (const auto& r : st.ranks) {
      std::printf("  R%-2d in :", r.rank);
      printValues(r.input, st.spec.dtype, sp.elems);
      std::printf("\n       out:");
      printValues(r.output, st.spec.dtype, sp.elems);
      std::printf("\n");
    }
    std::printf("  %s: %lld mismatches, %lld undecodable · op %.1f us (slowest rank)\n",
                st.verify.verified ? "verified" : "NOT VERIFIED",
                static_cast<long long>(st.verify.mismatches),
                static_cast<long long>(st.verify.undecodable), st.time_us);
    if (!st.verify.first_problem.empty())
      std::printf("  first problem: %s\n", st.verify.first_problem.c_str());
  }
  if (s.all_reduce_compared)
    std::printf("\nreduce_scatter + all_gather %s a real all_reduce on the same inputs "
                "(%lld elements differ)\n",
                s.all_reduce_diffs == 0 ? "equals" : "DIFFERS FROM",
                static_cast<long long>(s.all_reduce_diffs));
  std::printf("\n%s · op time %.1f us · engine %.1f us\n",
              s.verified ? "verified" : "NOT VERIFIED", s.time_us, s.engine_us);
}

}  // namespace

void addRunCommand(CLI::App& app, std::function<int()>& action) {
  auto args = std::make_shared<SpecArgs>();
  auto json_out = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("run", "Run one collective for real and print the result");
  addSpecOptions(cmd, *args);
  cmd->add_flag("--json", *json_out, "Print one JSON document on stdout");
  cmd->callback([&action, args, json_out] {
    action = [args, json_out]() -> int {
      auto parsed = parseSpec(*args);
      if (!parsed) return fail("run", parsed.error().message, kExitUsage);
      // The engine checks the run itself (after the backend's limits); the
      // JSON report is this command's.
      const int steps = parsed->program == Program::all_reduce_decomposed ? 3 : 1;
      const OpSpec& sp = parsed->spec;
      const double per_rank = 2.0 * sp.ranks * double(sp.elems) * double(dtypeSize(sp.dtype));
      if (*json_out && per_rank <= double(kMaxRankBytes))  // beyond: the engine names the cap
        if (Status st = checkRunMemory(sp, steps, true); !st)
          return fail("run", st.message(), kExitUsage);
      EngineOptions eo;
      eo.deadline = std::chrono::milliseconds(args->deadline_ms);
      Engine engine(eo);
      const uint64_t id = engine.run(parsed->spec, parsed->program, parsed->backend);
      auto snap = waitInterruptible(engine, id);
      if (!snap) return fail("run", "interrupted", interruptedExitCode());
      if (!snap->notice.empty()) std::fprintf(stderr, "collviz: %s\n", snap->notice.c_str());
      if (!snap->error.empty()) {
        std::fprintf(stderr, "collviz run: %s\n", snap->error.c_str());
        if (*json_out) std::cout << toJson(*snap).dump(2) << "\n";
        return snap->rejected ? kExitUsage : kExitFailed;
      }
      if (*json_out) std::cout << toJson(*snap).dump(2) << "\n";
      else printTable(*snap);
      return snap->verified ? kExitOk : kExitFailed;
    };
  });
}

}  // namespace collviz
