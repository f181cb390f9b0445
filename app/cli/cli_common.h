// Options shared by the subcommands that run ops (run, export, bench).
#pragma once

#include <CLI/CLI.hpp>
#include <atomic>
#include <memory>
#include <string>
#include <string_view>

#include "engine/engine.h"
#include "engine/group/hosts.h"
#include "engine/spec.h"

namespace collviz {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;
// --deadline-ms, the same on every command that runs ops.
inline constexpr int kDefaultDeadlineMs = 5000;

struct SpecArgs {
  std::string op = "all_reduce";
  int ranks = 4;
  long long elems = 4;
  std::string dtype = "f32";
  std::string redop = "sum";
  int root = 0;
  std::string backend = "auto";
  int deadline_ms = kDefaultDeadlineMs;
};

struct ParsedSpec {
  OpSpec spec;
  Program program = Program::single;
  BackendKind backend = BackendKind::automatic;
};

// `allow_program`: accept all_reduce_decomposed as --op.
void addSpecOptions(CLI::App* cmd, SpecArgs& a, bool allow_program = true);
// Names the bad field and the allowed values.
Result<ParsedSpec> parseSpec(const SpecArgs& a, bool allow_program = true);

// --deadline-ms with its one description and default (run, export, bench, lecture).
CLI::Option* addDeadlineOption(CLI::App* cmd, int& value);

// --gpu-sharing (run, bench, export): how NCCL ranks share a GPU when there are more
// ranks than GPUs. Values: host-id (default), multi-rank.
void addGpuSharingOption(CLI::App* cmd, std::string& value);
// Names the bad value and the allowed ones.
Result<PlacementOptions> parseGpuSharing(const std::string& value);

// --hosts, --hostfile, --map-by, --iface, --launcher-agent (run; issue 33):
// ranks on several hosts through mpirun.
void addHostOptions(CLI::App* cmd, HostArgs& a);
// Reads --hostfile; names the bad value and what is allowed.
Result<HostSpec> parseHosts(const HostArgs& a);

// Ctrl-C and SIGTERM (interrupt.cpp): g_interrupted is set by the handler
// that installInterruptHandler() installs; a command that has not ended
// within a moment is ended for it (workers reaped, temporaries removed).
extern std::atomic<bool> g_interrupted;
// --lang both (export --format html only): the page in English and Chinese.
extern bool g_lang_both;
void installInterruptHandler();
// 130 after SIGINT, 143 after SIGTERM.
int interruptedExitCode();
// A failure that is a rank killed by SIGINT/SIGTERM: true once this process
// has seen the signal too (waits up to 0.5 s for its handler).
bool settleInterrupt(std::string_view failure);

// " redop=sum" for a program that reduces, "" for an op without a reduction.
std::string redopField(Program program, const OpSpec& spec);

// Wait for the snapshot answering `request`, watching for Ctrl-C.
std::shared_ptr<const Snapshot> waitInterruptible(Engine& e, uint64_t request);

}  // namespace collviz
