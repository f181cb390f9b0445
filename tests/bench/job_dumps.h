// The benchmarks' job (job_bench, job_figure_bench): rank r's Flight
// Recorder dump of a job of n ranks, written as PyTorch writes it
// (tests/engine/job/fr_writer.h).
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "tests/engine/job/fr_writer.h"

namespace collviz::test {

// Rank r of a job of n ranks: tensor-parallel groups of 8, data-parallel
// groups across them; rank 13 stops 40 collectives short in its
// data-parallel group, so the analysis has a hang to find.
inline FrDump benchDump(int r, int n, int entries) {
  FrDump d;
  std::vector<int> all(std::size_t(n), 0), tp, dp;
  for (int k = 0; k < n; ++k) all[std::size_t(k)] = k;
  for (int k = r / 8 * 8; k < r / 8 * 8 + 8 && k < n; ++k) tp.push_back(k);
  for (int k = r % 8; k < n; k += 8) dp.push_back(k);
  const std::string tpName = std::to_string(100 + r / 8), dpName = std::to_string(200 + r % 8);
  d.groups = {{"0", "default_pg", all}, {tpName, "TENSOR_MODEL_PARALLEL_GROUP", tp}, {dpName, "DATA_PARALLEL_GROUP", dp},
              {std::to_string(1000 + r), "SOLO", {r}}};
  const int last = r == 13 ? entries / 2 - 40 : entries / 2;  // collectives a group
  std::int64_t t = 1758610505000000000LL + r;
  for (int s = 1; s <= entries / 2; ++s)
    for (int g = 0; g < 2; ++g) {
      if (g == 1 && s > last) continue;
      FrEntry e;
      e.pg = g ? dpName : tpName;
      e.desc = g ? "DATA_PARALLEL_GROUP" : "TENSOR_MODEL_PARALLEL_GROUP";
      e.pgId = g + 1;
      e.seq = s;
      e.record = std::int64_t(d.entries.size());
      e.name = g ? "nccl:all_reduce" : "nccl:_all_gather_base";
      e.in = {{4096, 5120}};
      e.out = g ? e.in : std::vector<std::vector<std::int64_t>>{{4096 * std::int64_t(tp.size()), 5120}};
      e.dtype = "BFloat16";
      e.created = t += 1000;
      const bool done = s < entries / 2 - 20;
      e.state = done ? "completed" : "scheduled";
      e.started = done ? t + 10 : 0;
      e.completed = done ? t + 500 : 0;
      d.entries.push_back(e);
    }
  d.status[1] = {entries / 2, -1, entries / 2 - 21};
  d.status[2] = {last, -1, std::min(last, entries / 2 - 21)};
  return d;
}

}  // namespace collviz::test
