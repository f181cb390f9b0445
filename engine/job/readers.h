// The readers of engine/job/, one per format (one file each), and what
// tells them apart: each takes one file's bytes and its path and gives a Job
// of that one source (read.cpp merges them). Internal to engine/job/.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/job/job.h"

namespace collviz::job {

// What a file's content says it is (never its name); nullopt: none of them.
// A text file may be two things at once (nccl-tests output with NCCL's INFO
// lines in it): `also` gets the second.
std::optional<Format> detect(std::string_view bytes, std::optional<Format>* also = nullptr);

// A file to read (inputs.cpp listInputs): the paths named, a folder's files
// (and its subfolders', kMaxFolderDepth levels down) in the order of their
// paths. Errors for a path that is no file or folder, saying what it is.
struct Input {
  std::string path;
  bool named = false;  // named on its own (not found in a folder): what fails in it fails the read
};
Status listInputs(const std::vector<std::string>& paths, std::vector<Input>& inputs);

Result<Job> readFlightRecorder(std::string_view bytes, const std::string& path, Format f);  // flight_recorder.cpp
Result<Job> readRas(std::string_view bytes, const std::string& path, Format f);             // ras.cpp
Result<Job> readInspector(std::string_view bytes, const std::string& path);                  // inspector.cpp
Result<Job> readProfiler(std::string_view bytes, const std::string& path, Format f);        // profiler.cpp
Result<Job> readNcclTests(std::string_view bytes, const std::string& path);                  // nccl_tests.cpp
Result<Job> readCapture(std::string_view bytes, const std::string& path);                    // capture.cpp

// The sentence of a stuck collective (texts.cpp): its missing ranks, its
// waiting ones, its members without a dump; `first` one of its calls.
Text hangText(const Job& job, const Finding& f, const Call& first, const std::vector<int>& unknown);

// Shared by the readers (names.cpp).
// A Job of one file: its one Source (path, format, size), calls to come.
Job oneSource(const std::string& path, Format f, std::int64_t bytes);
// "nccl:_all_gather_base" -> "all_gather", "nccl:send 0->3" -> "send",
// "AllReduce" -> "all_reduce", "ncclFloat32" stays: the op, plain.
std::string plainOp(std::string_view name);
// The rank and host a file's name tells: "_dump_12" -> 12, "";
// "node3_nccl_trace_rank_5" -> 5, "node3". false: no number at its end.
bool rankFromName(const std::string& path, int& rank, std::string& host);
// NCCL's dtype names ("ncclFloat32", "ncclBfloat16", "float" as nccl-tests
// prints): bytes per element, 0 when unknown.
int ncclDtypeBytes(std::string_view dtype);
// nccl-tests' bus-bandwidth factor (its doc/PERFORMANCE.md) for a plain op
// over n ranks: all_reduce 2(n-1)/n, all_gather, reduce_scatter and
// all_to_all (n-1)/n, the rest 1; 0 for an op it has none for.
double busFactor(std::string_view op, int n);
// "0x1bdb83b038775869" for a communicator hash written in hex (with or
// without 0x) or, `decimal`, as a decimal number: how every NCCL tool's
// hash meets the others'.
std::string hashId(std::string_view h, bool decimal = false);
// The lines of a text (no '\n', no trailing '\r'), at most kMaxLines.
constexpr std::size_t kMaxLines = 4000000;
std::vector<std::string> splitLines(std::string_view s);
// Text safe to show: invalid UTF-8 and control characters replaced, at most `max` bytes.
std::string clean(std::string_view s, std::size_t max = 200);
// Safe for a terminal, JSON and XML (safe.cpp): valid UTF-8 kept, control
// characters, stray bytes and what XML forbids written as \xNN. makeSafe:
// every string of a Job; safe(Text): a message's literals (paths).
std::string safe(std::string_view s);
Text safe(Text t);
void makeSafe(Job& job);

}  // namespace collviz::job
