#include "app/cli/cli_profile.h"

#include <algorithm>
#include <cstdio>

#include "app/cli/cli_input.h"
#include "app/lang/lang.h"

namespace collviz {

RunProfile makeProfile(const PhaseTimes& t, double before_us, double print_us, double shutdown_us,
                       double wall_us) {
  RunProfile p;
  p.startup_us = before_us + t.start_us;
  p.inputs_us = t.inputs_us;
  p.poison_us = t.poison_us;
  p.op_us = t.op_us;
  p.verify_us = t.verify_us;
  p.copies_us = t.copy_us;
  p.compare_us = t.compare_us;
  p.print_us = print_us;
  p.shutdown_us = shutdown_us;
  p.wall_us = wall_us;
  const double named = p.startup_us + p.inputs_us + p.poison_us + p.op_us + p.verify_us +
                       p.copies_us + p.compare_us + p.print_us + p.shutdown_us;
  p.other_us = std::max(0.0, wall_us - named);
  return p;
}

nlohmann::json profileJson(const RunProfile& p) {
  return {{"startup_us", p.startup_us}, {"inputs_us", p.inputs_us}, {"poison_us", p.poison_us},
          {"op_us", p.op_us},           {"verify_us", p.verify_us}, {"copies_us", p.copies_us},
          {"compare_us", p.compare_us}, {"print_us", p.print_us},   {"shutdown_us", p.shutdown_us},
          {"other_us", p.other_us},     {"wall_us", p.wall_us},     {"engine_work_us", p.engineWorkUs()}};
}

void printProfile(const RunProfile& p) {
  const std::pair<const char*, double> rows[] = {
      {"start-up (engine, backends probed, ranks started)", p.startup_us},
      {"inputs written", p.inputs_us},
      {"outputs poisoned", p.poison_us},
      {"op (the ranks' calls, warm-up included)", p.op_us},
      {"verify (decode, check, overviews)", p.verify_us},
      {"copies out (values kept)", p.copies_us},
      {"compare", p.compare_us},
      {"print", p.print_us},
      {"shut-down (ranks ended)", p.shutdown_us},
      {"other", p.other_us}};
  std::size_t w = 0;
  for (const auto& [label, us] : rows) w = std::max(w, columns(tr(label)));
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.1f", p.wall_us / 1e3);
  std::printf("\n%s\n", trf("profile: where the run's time went (wall {0} ms)", {ms}).c_str());
  for (const auto& [label, us] : rows) {
    std::printf("  %s %10.1f ms %6.1f %%\n", padColumns(tr(label), w).c_str(), us / 1e3,
                p.wall_us > 0 ? 100.0 * us / p.wall_us : 0.0);
  }
  char ratio[32];
  std::snprintf(ms, sizeof ms, "%.1f", p.engineWorkUs() / 1e3);
  std::snprintf(ratio, sizeof ratio, "%.2f", p.op_us > 0 ? p.engineWorkUs() / p.op_us : 0.0);
  std::printf("  %s\n", trf("the engine's own work (inputs, poison, verify, copies, compare): {0} ms = {1} x the op",
                            {ms, ratio}).c_str());
}

}  // namespace collviz
