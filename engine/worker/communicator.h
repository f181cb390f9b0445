// Communicator: one rank of a real collective library inside collviz-rank.
// Gloo (CPU, always built) and NCCL (GPU, built with CUDA) implement it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/snapshot.h"
#include "engine/spec.h"
#include "engine/status.h"

namespace collviz {

// Key-value rendezvous through the worker's control channel to the engine:
// no listening port, nothing on disk.
class ControlStore {
 public:
  virtual ~ControlStore() = default;
  virtual Status set(const std::string& key, const std::vector<char>& value) = 0;
  // Waits until the key exists (or the timeout passes).
  virtual Result<std::vector<char>> get(const std::string& key, int timeout_ms) = 0;
};

struct RunOptions {
  int warmup = 0;  // untimed iterations first
  int iters = 1;   // timed iterations; times are their average
  int timeout_ms = 0;  // one op's deadline (scaled with its bytes); 0: init's
};

struct OpTiming {
  double op_us = 0;    // per iteration, inside the communicator
  double copy_us = 0;  // host<->device copies around it (GPU), 0 on CPU
};

class Communicator {
 public:
  virtual ~Communicator() = default;
  // Join the group of `size` ranks as `rank`.
  virtual Status init(int rank, int size, ControlStore& store, int timeout_ms) = 0;
  // Run `spec.op` once per iteration. `in`/`out` point into shared memory
  // (nullptr where the rank has no buffer per inputBlocks/outputBlocks).
  virtual Result<OpTiming> run(const OpSpec& spec, const void* in, void* out,
                               const RunOptions& opts) = 0;
  virtual BackendInfo describe() const = 0;
  virtual BackendCaps caps() const = 0;
};

std::unique_ptr<Communicator> makeGlooCommunicator();

}  // namespace collviz
