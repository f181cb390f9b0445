// NCCL's commHash, computed as NCCL computes it (src/init.cc and
// src/include/bitops.h of NCCL 2.2x), so that the NCCL tap's communicator
// ids are the ids NCCL gives its profiler plugin, its RAS and its logs:
//   ncclCommInitRank[Config]: getHash(the unique id's 128 bytes);
//   ncclCommSplit: the parent's commHash, the parent's count of children
//   made so far (this split included, from 1) and the color, each eaten
//   separately, then digested.
// Header-only; the stand-in NCCL (tests/standin) uses it for the same ids.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace collviz::tap::nccl {

inline void eatHash(std::uint64_t acc[2], const void* bytes, std::size_t size) {
  const char* p = static_cast<const char*>(bytes);
  acc[0] ^= size;
  while (size != 0) {
    acc[0] += acc[1];
    acc[1] ^= acc[0];
    acc[0] ^= acc[0] >> 31;
    acc[0] *= 0x9de62bbc8cef3ce3ull;
    acc[1] ^= acc[1] >> 32;
    acc[1] *= 0x485cd6311b599e79ull;
    const std::size_t n = size < sizeof(std::uint64_t) ? size : sizeof(std::uint64_t);
    std::uint64_t x = 0;
    std::memcpy(&x, p, n);
    p += n;
    size -= n;
    acc[0] += x;
  }
}

inline std::uint64_t digestHash(const std::uint64_t acc[2]) {
  std::uint64_t h = acc[0];
  h ^= h >> 31;
  h *= 0xbac3bd562846de6bull;
  h += acc[1];
  h ^= h >> 32;
  h *= 0x995a187a14e7b445ull;
  return h;
}

// The id of a communicator made from a unique id (`bytes`: its 128 bytes).
inline std::uint64_t commHashOfId(const void* bytes, std::size_t n) {
  std::uint64_t acc[2] = {1, 1};
  eatHash(acc, bytes, n);
  return digestHash(acc);
}

// The id of the `child`-th communicator split from `parent` (from 1).
inline std::uint64_t commHashOfSplit(std::uint64_t parent, int child, int color) {
  std::uint64_t acc[2] = {1, 1};
  eatHash(acc, &parent, sizeof parent);
  eatHash(acc, &child, sizeof child);
  eatHash(acc, &color, sizeof color);
  return digestHash(acc);
}

}  // namespace collviz::tap::nccl
