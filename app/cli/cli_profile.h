// `collviz run --profile`: where a run's wall time went, by phase: start-up
// (collviz's engine, probing the backends, starting the ranks), inputs,
// outputs poisoned, the op (the ranks' calls), verify, copies out, compare,
// print, shut-down (the ranks ended) and the rest, printed in the reader's
// language and carried in --json as "profile".
#pragma once

#include <nlohmann/json.hpp>

#include "engine/engine.h"

namespace collviz {

struct RunProfile {
  double startup_us = 0, inputs_us = 0, poison_us = 0, op_us = 0, verify_us = 0, copies_us = 0,
         compare_us = 0, print_us = 0, shutdown_us = 0, other_us = 0, wall_us = 0;
  // The op phase by what the ranks did in it, where they said (Gloo on this
  // host; else 0): the run reaching every rank, their warm-up calls, their
  // outputs poisoned before the timed call, the timed calls, the replies
  // back. They add up to op_us.
  double reach_us = 0, warmup_us = 0, rank_poison_us = 0, timed_us = 0, replies_us = 0;
  // The engine's own work: everything in the engine but start-up and the
  // ranks' calls (inputs, poison, verify, copies, compare, its other work).
  double engineWorkUs() const { return inputs_us + poison_us + verify_us + copies_us + compare_us; }
};

// `before_us`: from the command's start to the request's submission (the
// engine's construction); `print_us`, `shutdown_us`, `wall_us` as measured
// by the command. `other` is the wall time left (never negative).
RunProfile makeProfile(const PhaseTimes& t, double before_us, double print_us, double shutdown_us,
                       double wall_us);
nlohmann::json profileJson(const RunProfile& p);
void printProfile(const RunProfile& p);

}  // namespace collviz
