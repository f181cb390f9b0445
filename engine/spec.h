// OpSpec: what to run. Pure data plus the names used in the CLI and JSON.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/collectives.h"
#include "engine/text.h"

namespace collviz {

// A program is one op, or the two-step all-reduce decomposition.
enum class Program : uint8_t { single, all_reduce_decomposed };

enum class DType : uint8_t { f32, f64, f16, bf16, i32, i64, u8 };
inline constexpr int kDTypeCount = 7;

enum class RedOp : uint8_t { sum, prod, min, max, avg };
inline constexpr int kRedOpCount = 5;

enum class BackendKind : uint8_t { automatic, gloo, nccl, mpi };

// Limits the engine enforces before anything runs.
inline constexpr int kMinRanks = 1;
inline constexpr int kMaxRanks = 16;
// Cap on the bytes one rank's input plus output may take (shared memory).
inline constexpr std::size_t kMaxRankBytes = std::size_t(4) << 30;  // 4 GiB

struct OpSpec {
  Op op = Op::all_reduce;
  int ranks = 4;
  int64_t elems = 4;  // elements per block
  DType dtype = DType::f32;
  RedOp redop = RedOp::sum;
  int root = 0;

  bool operator==(const OpSpec&) const = default;
};

// Names (exactly as in the CLI and JSON).
std::string_view name(Op op);
std::string_view name(Program p);
std::string_view name(DType t);
std::string_view name(RedOp r);
std::string_view name(BackendKind b);
std::optional<Op> parseOp(std::string_view s);
std::optional<DType> parseDType(std::string_view s);
std::optional<RedOp> parseRedOp(std::string_view s);
std::optional<BackendKind> parseBackend(std::string_view s);
// "op1, op2, ..." lists for error messages.
std::string allowedOps();
std::string allowedDTypes();
std::string allowedRedOps();

// The article's numbering (01..08, the decomposition 09) and short verb phrase.
int opNumber(Op op);
int programNumber(Program p, Op op);
std::string_view opTitle(Op op);   // "All-reduce"
std::string_view opPhrase(Op op);  // "everyone gets the total"
// "07" (the number as the window, figures and file names write it).
std::string numberText(int number);

std::size_t dtypeSize(DType t);
bool isFloat(DType t);
// Does the op combine values with the reduce op? Does it use the root?
// (engine/collectives.h holds these and every other fact of an op.)
bool reduces(Op op);
bool usesRoot(Op op);

// Buffer shape per rank, in blocks of `elems` elements; 0 = no buffer ("—").
int inputBlocks(Op op, int ranks, int rank, int root);
int outputBlocks(Op op, int ranks, int rank, int root);
std::size_t inputBytes(const OpSpec& s, int rank);
std::size_t outputBytes(const OpSpec& s, int rank);

// What a backend can do; validation names the field and the allowed values.
struct BackendCaps {
  std::string name;  // "gloo", "nccl", "mpi"
  std::vector<DType> dtypes;
  std::vector<RedOp> redops;
  int max_ranks = kMaxRanks;
  std::size_t max_rank_bytes = kMaxRankBytes;
};

Status validate(const OpSpec& s);                          // backend-independent
Status validate(const OpSpec& s, const BackendCaps& caps);  // plus backend limits
// The largest elems whose input + output fit the backend's per-rank cap.
std::int64_t largestElemsWithinCap(const OpSpec& s, const BackendCaps& caps);

// Where one block's data comes from: the input block `block` of every rank in
// `ranks` (a bitmask), combined with the reduce op when `reduced`.
struct BlockRef {
  uint32_t ranks = 0;
  int block = 0;
  bool reduced = false;
  bool operator==(const BlockRef&) const = default;
};

}  // namespace collviz
