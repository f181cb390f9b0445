#include "app/cli/cli_common.h"

#include "app/cli/cli_input.h"

#include <fstream>
#include <iterator>

namespace collviz {

void addSpecOptions(CLI::App* cmd, SpecArgs& a, bool allow_program) {
  cmd->add_option("--op", a.op,
                  "Collective: " + allowedOps() +
                      (allow_program ? ", or all_reduce_decomposed" : ""))
      ->capture_default_str();
  addWholeOption(cmd, "--ranks,-N", a.ranks, "Number of ranks");
  addWholeOption(cmd, "--elems,-E", a.elems, "Elements per block");
  cmd->add_option("--dtype", a.dtype, "Element type: " + allowedDTypes())->capture_default_str();
  cmd->add_option("--redop", a.redop, "Reduce op: " + allowedRedOps())->capture_default_str();
  addWholeOption(cmd, "--root", a.root, "Root rank (broadcast, scatter, gather, reduce)");
  cmd->add_option("--backend", a.backend, "auto, gloo, nccl or mpi")->capture_default_str();
  addDeadlineOption(cmd, a.deadline_ms);
}

CLI::Option* addDeadlineOption(CLI::App* cmd, int& value) {
  return addWholeOption(cmd, "--deadline-ms", value,
                        "How long a silent rank may go without progress before it counts as hung "
                        "(a step's deadline adds time for its bytes)");
}

void addGpuSharingOption(CLI::App* cmd, std::string& value) {
  cmd->add_option("--gpu-sharing", value,
                  "NCCL with more ranks than GPUs: host-id (one NCCL_HOSTID per slot, socket "
                  "transport on loopback) or multi-rank (NCCL_MULTI_RANK_GPU_ENABLE=1; needs "
                  "NCCL 2.30 or newer, else host-id with a notice)")
      ->capture_default_str();
}

Result<PlacementOptions> parseGpuSharing(const std::string& value) {
  PlacementOptions p;
  if (value == "host-id") p.sharing = GpuSharing::host_id;
  else if (value == "multi-rank") p.sharing = GpuSharing::multi_rank_gpu;
  else return Error{say("--gpu-sharing {0} is not a GPU sharing route; allowed: host-id, multi-rank", value)};
  return p;
}

void addHostOptions(CLI::App* cmd, HostArgs& a) {
  cmd->add_option("--hosts", a.hosts,
                  "Run the ranks on these hosts through mpirun: host:slots,... (as mpirun -H), e.g. a:4,b:4");
  cmd->add_option("--hostfile", a.hostfile, "The hosts from a file in Open MPI's syntax (HOST slots=N a line)");
  cmd->add_option("--map-by", a.map_by, "With hosts: slot (fill each host in turn) or node (round-robin)")
      ->capture_default_str();
  cmd->add_option("--iface", a.iface,
                  "With hosts: the network interface they share (default: the one that reaches the first host)");
  cmd->add_option("--launcher-agent", a.agent,
                  "With hosts: the command mpirun reaches them with instead of ssh (its plm_rsh_agent)");
}

Result<HostSpec> parseHosts(const HostArgs& a) {
  std::string text;
  if (!a.hostfile.empty() && a.hosts.empty()) {
    std::ifstream f(a.hostfile);
    if (!f)
      return Error{say("--hostfile {0} cannot be read; allowed: a readable file, HOST slots=N a line", printable(a.hostfile))};
    text.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  }
  return parseHostArgs(a, text);
}

Result<ParsedSpec> parseSpec(const SpecArgs& a, bool allow_program) {
  ParsedSpec p;
  if (allow_program && a.op == "all_reduce_decomposed") {
    p.program = Program::all_reduce_decomposed;
    p.spec.op = Op::all_reduce;
  } else if (auto op = parseOp(a.op)) {
    p.spec.op = *op;
  } else {
    return Error{say("{0}; allowed: {1}", notA("--op", a.op, "a collective"),
                     allowedOps() + (allow_program ? ", all_reduce_decomposed" : ""))};
  }
  auto dt = parseDType(a.dtype);
  if (!dt) return Error{say("{0}; allowed: {1}", notA("--dtype", a.dtype, "a dtype"), allowedDTypes())};
  auto ro = parseRedOp(a.redop);
  if (!ro) return Error{say("{0}; allowed: {1}", notA("--redop", a.redop, "a reduce op"), allowedRedOps())};
  auto be = parseBackend(a.backend);
  if (!be)
    return Error{say("{0}; allowed: {1}", notA("--backend", a.backend, "a backend"), "auto, gloo, nccl, mpi")};
  if (a.deadline_ms < 100 || a.deadline_ms > 600000)
    return Error{say("--deadline-ms {0} is out of range; allowed: {1} to {2}", a.deadline_ms, 100, 600000)};
  p.spec.dtype = *dt;
  p.spec.redop = *ro;
  p.spec.ranks = a.ranks;
  p.spec.elems = a.elems;
  p.spec.root = a.root;
  p.backend = *be;
  if (Status st = validate(p.spec); !st) return Error{say("--{0}", st.text())};
  return p;
}

std::string redopField(Program program, const OpSpec& spec) {
  if (program == Program::single && !reduces(spec.op)) return "";
  return " redop=" + std::string(name(spec.redop));
}

std::shared_ptr<const Snapshot> waitInterruptible(Engine& e, uint64_t request) {
  for (;;) {
    if (g_interrupted) return nullptr;
    if (auto s = e.waitFor(request, std::chrono::milliseconds(50))) return s;
  }
}

}  // namespace collviz
