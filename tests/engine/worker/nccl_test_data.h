// Inputs and expected outputs for the NCCL GPU tests, written from NCCL's
// documented semantics (independent of the engine's oracle, which the
// device check exercises end to end through `collviz run`).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/spec.h"

namespace collviz::testdata {

// Every input element is 1, 2 or 3: sums, products (3^4 = 81) and averages
// over 1, 2 or 4 ranks stay exact in every dtype, u8 and bf16 included
// (an average over 3 ranks is checked within NCCL's rounding of 1/N).
double inputValue(int rank, int block, long long elem);
std::vector<std::byte> makeInput(const OpSpec& s, int rank);
// "" when every element of `out` is what NCCL must produce, else the first
// mismatch and the count.
std::string check(const OpSpec& s, int rank, const std::vector<std::byte>& out);

std::size_t freeDeviceBytes();   // cudaMemGetInfo on the current device
std::size_t totalDeviceBytes();
// probeNccl() run in a forked child, so the caller never initialises CUDA;
// `env` is set in the child first.
nlohmann::json probeInChild(const std::vector<std::pair<std::string, std::string>>& env = {});

}  // namespace collviz::testdata
