// Where a rank runs, op by op: collviz's default placement of MPI's ranks on
// one host (docs/mpi.md), applied by the rank itself before each op.
//
// With more ranks than cores: in all_reduce, all_gather, reduce_scatter and
// all_to_all every rank works at once (rings, pairwise exchanges), and a
// rank bound to one core (rank r on core r mod cores) keeps an even share of
// it all the op long (all_gather bound: 1.04-1.51x of plain MPI's busbw
// against 0.81-1.05x unbound). Broadcast of a MiB and more is Open MPI's
// chain from the root: each rank copies from the one before it, and across
// back-to-back calls the ranks every other one along the chain copy at once.
// Dealt r mod cores, those sit on one core (on 2 cores, 4 ranks: the
// slowest pairing of all, 1.42-1.57x the time of 0,0,1,1; an unbound group
// that ran a bound op stays so); so broadcast binds the ranks in order from
// the root, neighbours sharing a core (docs/performance.md, the ninth round).
// In reduce, gather and scatter the root works and the others mostly wait:
// those run on every core the rank was given (by their shape, not
// measured). With no more ranks than cores each rank keeps its own core for
// every op.
//
// Which op is placed which way is the op's row in the table of collectives
// (`Collective::mpi_placement`, engine/collectives.h); this file applies it.
//
// The binding covers every thread of the process (as mpirun's would); a
// system that refuses it leaves the rank unbound and says why (`error`).
#pragma once

#include <sched.h>

#include <string>
#include <vector>

#include "engine/spec.h"
#include "engine/text.h"

namespace collviz {

// A CPU list as the kernel writes it ("0-3,8,10-11"); empty when malformed.
std::vector<int> parseCpuList(const std::string& text);

// The CPUs this process may run on (sched_getaffinity; a taskset or a
// cpuset narrows them), ascending; empty when they cannot be read.
std::vector<int> usableCpus();
// "0-1,4" from {0, 1, 4}.
std::string cpuListText(const std::vector<int>& cpus);
// What a backend's devices line says of the CPUs (issue 55): the cores it
// may use, not the machine's when fewer ("CPU (1 of 2 cores usable: CPU 1),
// one process per rank"). `mpi`: the line of an MPI job.
Text cpuDevicesLine(bool mpi);

class OpBinding {
 public:
  // `cpus`: the CPUs the process may run on now (mpirun started it unbound);
  // `core_of`: the core of each (CPUs sharing a core share a number); this
  // rank's place among `local_size` ranks on the host.
  OpBinding(std::vector<int> cpus, std::vector<int> core_of, int local_rank, int local_size);
  // From this process: sched_getaffinity, the cores from
  // /sys/devices/system/cpu/cpuN/topology/core_cpus_list (thread_siblings_list
  // on older kernels; each CPU its own core when neither reads), and Open
  // MPI's OMPI_COMM_WORLD_LOCAL_RANK/_SIZE (else `rank` of `size`).
  static OpBinding ofThisProcess(int rank, int size);

  // The CPUs `op` (rooted at `root`, a rank of the host's) runs on: this
  // rank's core, or all of `cpus`.
  std::vector<int> cpusFor(Op op, int root = 0) const;
  // Binds every thread of this process for `op`; nothing when already so or
  // after a refusal.
  void apply(Op op, int root = 0);
  int cores() const { return cores_; }
  bool ownCoreAlways() const { return own_core_always_; }
  const Said& error() const { return error_; }

 private:
  std::vector<int> cpus_;
  std::vector<std::vector<int>> core_cpus_;  // each core's CPUs, cores in order
  std::vector<int> bound_;                   // what apply() bound last (none yet: empty)
  int cores_ = 0, local_rank_ = 0, local_size_ = 1;
  bool own_core_always_ = false;
  Said error_;
};

}  // namespace collviz
