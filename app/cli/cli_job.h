// What `collviz job` prints of the NCCL tools' tables (cli_job_tables.cpp):
// the Inspector's and profiler's calls, RAS' communicators, ranks,
// errors, warnings and events, nccl-tests' table with #wrong marked.
#pragma once

#include "engine/job/job.h"

namespace collviz {

void printNcclCalls(const job::Job& j, bool all);
void printRas(const job::Job& j);
void printNcclTests(const job::Job& j);

}  // namespace collviz
