// The string table, in parts: one per area, so each area's texts sit in a
// file of their own. translations() (lang.h) is all of them in this order;
// a text in two parts must have one Chinese (strings_test checks).
#pragma once

#include <span>

#include "app/lang/lang.h"

namespace collviz {

std::span<const Translation> tableApp();     // translations.cpp: the window, exports, decks
std::span<const Translation> tableEngine();  // translations_engine.cpp: engine/*.cpp messages
std::span<const Translation> tableChecks();  // translations_checks.cpp: verification, spec, devices, bench
std::span<const Translation> tableWorker();  // translations_worker.cpp: engine/worker/ messages
std::span<const Translation> tableAlgo();    // translations_algo.cpp: engine/algo/ messages, formulas
std::span<const Translation> tableCli();     // translations_cli.cpp: collviz run/algos/bench/devices
std::span<const Translation> tableHosts();   // translations_hosts.cpp: ranks on several hosts (issue 33)
std::span<const Translation> tableJob();     // translations_job.cpp: a real job's files, collviz job (issue 48)
std::span<const Translation> tableWatch();   // translations_watch.cpp: collviz watch, tap-path (issue 54)
std::span<const Translation> tableCall();    // translations_call.cpp: a captured call's grid, arrivals, export --call (issue 58)

}  // namespace collviz
