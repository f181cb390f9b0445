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
  p.reach_us = t.reach_us, p.warmup_us = t.warmup_us, p.rank_poison_us = t.rank_poison_us;
  p.timed_us = t.timed_us, p.replies_us = t.replies_us;
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
          {"other_us", p.other_us},     {"wall_us", p.wall_us},     {"engine_work_us", p.engineWorkUs()},
          {"reach_us", p.reach_us},     {"warmup_us", p.warmup_us}, {"rank_poison_us", p.rank_poison_us},
          {"timed_us", p.timed_us},     {"replies_us", p.replies_us}};
}

void printProfile(const RunProfile& p) {
  // The op's parts, indented under it, where the ranks said what they did.
  const bool split = p.timed_us > 0;
  const std::pair<const char*, double> rows[] = {
      {"start-up (backends probed, ranks and their memory made)", p.startup_us},
      {"inputs written", p.inputs_us},
      {"outputs poisoned", p.poison_us},
      {"op (the ranks' calls, warm-up included)", p.op_us},
      {split ? "the run reaching every rank" : nullptr, p.reach_us},
      {split ? "the ranks' warm-up calls" : nullptr, p.warmup_us},
      {split ? "the ranks' outputs poisoned before the timed call" : nullptr, p.rank_poison_us},
      {split ? "the ranks' timed calls" : nullptr, p.timed_us},
      {split ? "the replies back" : nullptr, p.replies_us},
      {"verify (decode, check, overviews)", p.verify_us},
      {"copies out (values kept)", p.copies_us},
      {"compare", p.compare_us},
      {"print", p.print_us},
      {"shut-down (ranks ended)", p.shutdown_us},
      {"other", p.other_us}};
  auto sub = [](const char* label) { return label && *label == 't'; };  // the op's parts: "the ..."
  std::size_t w = 0;
  for (const auto& [label, us] : rows)
    if (label) w = std::max(w, columns(tr(label)) + (sub(label) ? 2 : 0));
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.1f", p.wall_us / 1e3);
  std::printf("\n%s\n", trf("profile: where the run's time went (wall {0} ms)", {ms}).c_str());
  for (const auto& [label, us] : rows) {
    if (!label) continue;
    std::printf("  %s%s %10.1f ms %6.1f %%\n", sub(label) ? "  " : "", padColumns(tr(label), w - (sub(label) ? 2 : 0)).c_str(),
                us / 1e3, p.wall_us > 0 ? 100.0 * us / p.wall_us : 0.0);
  }
  char ratio[32];
  std::snprintf(ms, sizeof ms, "%.1f", p.engineWorkUs() / 1e3);
  std::snprintf(ratio, sizeof ratio, "%.2f", p.op_us > 0 ? p.engineWorkUs() / p.op_us : 0.0);
  std::printf("  %s\n", trf("the engine's own work (inputs, poison, verify, copies, compare): {0} ms = {1} x the op",
                            {ms, ratio}).c_str());
}

}  // namespace collviz
