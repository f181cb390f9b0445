// Will a run fit in the memory this process can really get? Checked before
// anything starts, against the smaller of the host's available memory
// (MemAvailable) and the address space left under RLIMIT_AS (ulimit -v), so
// a too-big size is refused with the largest one that fits instead of
// ending in std::bad_alloc half-way.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "engine/spec.h"
#include "engine/status.h"

namespace collviz {

struct MemoryLimit {
  std::size_t bytes = 0;
  std::string what;  // "available host memory (MemAvailable)", "ulimit -v"
};

// The tighter of the host's available memory and the address space left
// under RLIMIT_AS; nullopt when neither can be read.
std::optional<MemoryLimit> memoryLimit();

// Bytes the engine process needs for one run of `s` (`steps` ops in the
// program): the inputs and their cached copy, the outputs, the shared memory
// mapped for every rank, and verification's working copies; with `json`, the
// JSON report of every value too (a JSON tree cannot be freed safely once
// memory has run out, so it must fit from the start).
double runMemoryBytes(const OpSpec& s, int steps = 1, bool json = false);

// Error naming the need, the limit and the largest --elems that fits.
Status checkRunMemory(const OpSpec& s, int steps = 1, bool json = false);

}  // namespace collviz
