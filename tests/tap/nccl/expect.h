// What tests/tap/nccl/nccl_program.cpp expects the NCCL tap to have kept of
// each call, as it writes it (OUT/rank-R.bin) and nccl_check.cpp reads it:
// per call, in order: the function (uint8), then the input's bytes and the
// output's bytes, each as a uint32 length and the bytes (length 0: nothing
// kept for that buffer on this rank).
#pragma once

#include <cstdint>
#include <cstdio>
#include <vector>

#include "tap/capture_format.h"

namespace collviz::tap::nccltest {

struct Expected {
  Func func = Func::none;
  std::vector<std::uint8_t> in, out;
};

inline void writeExpected(std::FILE* f, Func func, const std::vector<float>& in, const std::vector<float>& out) {
  const std::uint8_t fn = std::uint8_t(func);
  std::fwrite(&fn, 1, 1, f);
  for (const auto* v : {&in, &out}) {
    const std::uint32_t n = std::uint32_t(v->size() * sizeof(float));
    std::fwrite(&n, 4, 1, f);
    if (n) std::fwrite(v->data(), 1, n, f);
  }
}

inline std::vector<Expected> readExpected(std::FILE* f) {
  std::vector<Expected> all;
  std::uint8_t fn = 0;
  while (std::fread(&fn, 1, 1, f) == 1) {
    Expected e;
    e.func = Func(fn);
    for (auto* v : {&e.in, &e.out}) {
      std::uint32_t n = 0;
      if (std::fread(&n, 4, 1, f) != 1 || n > (1u << 24)) return all;
      v->resize(n);
      if (n && std::fread(v->data(), 1, n, f) != n) return all;
    }
    all.push_back(std::move(e));
  }
  return all;
}

}  // namespace collviz::tap::nccltest
