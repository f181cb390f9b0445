#include "tests/engine/worker/nccl_test_data.h"

#include <cuda_runtime.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "engine/worker/nccl/communicator.h"
#include "tests/engine/worker/nccl_group.h"

namespace collviz::testdata {
namespace {

uint16_t toHalf(float f) {  // exact for the small normal values used here
  uint32_t b;
  std::memcpy(&b, &f, 4);
  if ((b & 0x7fffffff) == 0) return uint16_t(b >> 16);
  const uint32_t sign = (b >> 16) & 0x8000, exp = ((b >> 23) & 0xff) - 127 + 15;
  return uint16_t(sign | (exp << 10) | ((b >> 13) & 0x3ff));
}
float fromHalf(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  uint32_t b = exp == 0 ? sign : sign | ((exp - 15 + 127) << 23) | (man << 13);
  if (exp == 0x1f) b = sign | 0x7f800000 | (man << 13);
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

void put(DType t, std::byte* p, double v) {
  switch (t) {
    case DType::f32: { float f = float(v); std::memcpy(p, &f, 4); break; }
    case DType::f64: std::memcpy(p, &v, 8); break;
    case DType::f16: { uint16_t h = toHalf(float(v)); std::memcpy(p, &h, 2); break; }
    case DType::bf16: {
      float f = float(v);
      uint32_t b;
      std::memcpy(&b, &f, 4);
      uint16_t h = uint16_t(b >> 16);
      std::memcpy(p, &h, 2);
      break;
    }
    case DType::i32: { int32_t i = int32_t(v); std::memcpy(p, &i, 4); break; }
    case DType::i64: { int64_t i = int64_t(v); std::memcpy(p, &i, 8); break; }
    case DType::u8: { uint8_t u = uint8_t(v); std::memcpy(p, &u, 1); break; }
  }
}
double get(DType t, const std::byte* p) {
  switch (t) {
    case DType::f32: { float f; std::memcpy(&f, p, 4); return f; }
    case DType::f64: { double d; std::memcpy(&d, p, 8); return d; }
    case DType::f16: { uint16_t h; std::memcpy(&h, p, 2); return fromHalf(h); }
    case DType::bf16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      uint32_t b = uint32_t(h) << 16;
      float f;
      std::memcpy(&f, &b, 4);
      return f;
    }
    case DType::i32: { int32_t i; std::memcpy(&i, p, 4); return i; }
    case DType::i64: { int64_t i; std::memcpy(&i, p, 8); return double(i); }
    case DType::u8: { uint8_t u; std::memcpy(&u, p, 1); return u; }
  }
  return 0;
}

// Input element j (flat index) of rank p.
double val(const OpSpec& s, int p, long long j) {
  return inputValue(p, int(j / s.elems), j % s.elems);
}

// NCCL's reduction of element j over all ranks. ncclAvg: floats premultiply
// by 1/N and sum (exact here when N is 1, 2 or 4; see tolerance()),
// integers sum then divide.
double reduced(const OpSpec& s, long long j) {
  double acc = val(s, 0, j);
  for (int p = 1; p < s.ranks; ++p) {
    const double x = val(s, p, j);
    switch (s.redop) {
      case RedOp::sum: case RedOp::avg: acc += x; break;
      case RedOp::prod: acc *= x; break;
      case RedOp::min: acc = std::min(acc, x); break;
      case RedOp::max: acc = std::max(acc, x); break;
    }
  }
  if (s.redop == RedOp::avg) acc = isFloat(s.dtype) ? acc / s.ranks : std::floor(acc / s.ranks);
  return acc;
}

double expected(const OpSpec& s, int r, long long i) {
  const long long in_count = (long long)inputBlocks(s.op, s.ranks, r, s.root) * s.elems;
  const long long out_count = (long long)outputBlocks(s.op, s.ranks, r, s.root) * s.elems;
  switch (s.op) {
    case Op::broadcast: return val(s, s.root, i);
    case Op::reduce: case Op::all_reduce: return reduced(s, i);
    case Op::reduce_scatter: return reduced(s, r * out_count + i);
    case Op::all_gather: case Op::gather: return val(s, int(i / in_count), i % in_count);
    case Op::scatter: return val(s, s.root, r * out_count + i);
    case Op::all_to_all: {
      const long long c = in_count / s.ranks;
      return val(s, int(i / c), r * c + i % c);
    }
  }
  return 0;
}

// ncclAvg of floats multiplies each rank's value by 1/N rounded to the
// type before summing (in NCCL's order): exact when N is a power of two,
// else within a few units of the type's last place.
double tolerance(const OpSpec& s, double want) {
  if (s.redop != RedOp::avg || (s.ranks & (s.ranks - 1)) == 0) return 0;
  const double eps = s.dtype == DType::f16 ? 0x1p-10 : s.dtype == DType::bf16 ? 0x1p-7
                   : s.dtype == DType::f32 ? 0x1p-23 : 0x1p-52;
  return std::fabs(want) * eps * 2 * s.ranks;
}

}  // namespace

double inputValue(int rank, int block, long long elem) {
  return double(1 + (rank * 7 + block * 3 + elem) % 3);
}

std::vector<std::byte> makeInput(const OpSpec& s, int rank) {
  std::vector<std::byte> v(inputBytes(s, rank));
  const std::size_t w = dtypeSize(s.dtype);
  for (std::size_t j = 0; j * w < v.size(); ++j) put(s.dtype, v.data() + j * w, val(s, rank, (long long)j));
  return v;
}

std::string check(const OpSpec& s, int rank, const std::vector<std::byte>& out) {
  const std::size_t w = dtypeSize(s.dtype);
  long long bad = 0;
  std::string first;
  for (std::size_t i = 0; i * w < out.size(); ++i) {
    const double want = expected(s, rank, (long long)i), got = get(s.dtype, out.data() + i * w);
    if (got == want || std::fabs(got - want) <= tolerance(s, want)) continue;
    if (bad++ == 0)
      first = "rank " + std::to_string(rank) + " element " + std::to_string(i) + ": got " +
              std::to_string(got) + ", want " + std::to_string(want);
  }
  return bad ? first + " (" + std::to_string(bad) + " wrong)" : "";
}

std::size_t freeDeviceBytes() {
  std::size_t f = 0, t = 0;
  cudaMemGetInfo(&f, &t);
  return f;
}
std::size_t totalDeviceBytes() {
  std::size_t f = 0, t = 0;
  cudaMemGetInfo(&f, &t);
  return t;
}

nlohmann::json probeInChild(const std::vector<std::pair<std::string, std::string>>& env) {
  int p[2];
  if (::pipe(p) != 0) return {{"available", false}, {"reason", "pipe failed"}};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(p[0]);
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    const std::string s = probeNccl().dump();
    const ssize_t n = ::write(p[1], s.data(), s.size());
    test::flushCoverage();
    ::_exit(n == ssize_t(s.size()) ? 0 : 1);
  }
  ::close(p[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(p[0], buf, sizeof buf)) > 0;) text.append(buf, size_t(n));
  ::close(p[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return {{"available", false}, {"reason", "the NCCL probe crashed (status " + std::to_string(status) + ")"}};
  return j;
}

}  // namespace collviz::testdata
