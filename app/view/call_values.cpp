// A captured call's values and blocks (call_figure.h): elements decoded in
// the call's datatype, sizes, and how a buffer splits into the article's
// blocks and where each block's data came from (call_figure_parts.h).
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "app/view/call_figure_parts.h"
#include "engine/dtype.h"

namespace collviz::ui {

namespace {

template <typename T>
T load(const std::uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

std::string intText(long long v, double* number) {
  if (number) *number = double(v);
  return std::to_string(v);
}
std::string uintText(unsigned long long v, double* number) {
  if (number) *number = double(v);
  return std::to_string(v);
}
std::string floatText(double v, double* number) {
  if (number) *number = std::isfinite(v) ? v : std::numeric_limits<double>::quiet_NaN();
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}
// A signed or unsigned integer of `size` bytes.
std::string sizedInt(const std::uint8_t* p, std::uint32_t size, bool isSigned, double* number) {
  switch (size) {
    case 1: return isSigned ? intText(load<std::int8_t>(p), number) : uintText(load<std::uint8_t>(p), number);
    case 2: return isSigned ? intText(load<std::int16_t>(p), number) : uintText(load<std::uint16_t>(p), number);
    case 4: return isSigned ? intText(load<std::int32_t>(p), number) : uintText(load<std::uint32_t>(p), number);
    case 8: return isSigned ? intText(load<std::int64_t>(p), number) : uintText(load<std::uint64_t>(p), number);
    default: return "";
  }
}

}  // namespace

std::string capturedValue(tap::DType d, std::uint32_t size, const std::uint8_t* p, double* number) {
  using tap::DType;
  if (number) *number = std::numeric_limits<double>::quiet_NaN();
  std::string s;
  switch (d) {
    case DType::char_: case DType::signed_char: case DType::int8: case DType::nccl_int8:
    case DType::short_: case DType::int16: case DType::int_: case DType::int32: case DType::nccl_int32:
    case DType::long_: case DType::long_long: case DType::int64: case DType::nccl_int64: case DType::aint:
    case DType::offset: case DType::count: case DType::f_integer: case DType::f_integer4: case DType::f_integer8:
      s = sizedInt(p, size, true, number);
      break;
    case DType::unsigned_char: case DType::byte: case DType::uint8: case DType::nccl_uint8: case DType::c_bool:
    case DType::unsigned_short: case DType::uint16: case DType::unsigned_: case DType::uint32: case DType::nccl_uint32:
    case DType::unsigned_long: case DType::unsigned_long_long: case DType::uint64: case DType::nccl_uint64:
    case DType::f_logical:
      s = sizedInt(p, size, false, number);
      break;
    case DType::float_: case DType::f_real: case DType::f_real4: case DType::nccl_float32:
      if (size == 4) s = floatText(load<float>(p), number);
      break;
    case DType::double_: case DType::f_double_precision: case DType::f_real8: case DType::nccl_float64:
      if (size == 8) s = floatText(load<double>(p), number);
      break;
    case DType::nccl_float16: if (size == 2) s = floatText(halfToFloat(load<std::uint16_t>(p)), number); break;
    case DType::nccl_bfloat16: if (size == 2) s = floatText(bfloat16ToFloat(load<std::uint16_t>(p)), number); break;
    case DType::two_int: case DType::f_2integer:
      if (size == 8) s = intText(load<std::int32_t>(p), number) + "|" + std::to_string(load<std::int32_t>(p + 4));
      break;
    case DType::float_int:
      if (size == 8) s = floatText(load<float>(p), number) + "|" + std::to_string(load<std::int32_t>(p + 4));
      break;
    case DType::double_int:
      if (size >= 12) s = floatText(load<double>(p), number) + "|" + std::to_string(load<std::int32_t>(p + 8));
      break;
    default: break;
  }
  if (!s.empty()) return s;
  // Bytes as they are: at most 8, in memory order.
  std::string hex = "0x";
  char b[4];
  for (std::uint32_t i = 0; i < std::min<std::uint32_t>(size, 8); ++i) std::snprintf(b, sizeof b, "%02x", p[i]), hex += b;
  return size > 8 ? hex + "…" : hex;
}

std::string byteSize(std::uint64_t n) {
  char buf[32];
  auto unit = [&](double v, const char* u) {
    std::snprintf(buf, sizeof buf, v < 10 && v != std::floor(v) ? "%.2g %s" : "%.4g %s", v, u);
    return std::string(buf);
  };
  if (n >= (std::uint64_t(1) << 30)) return unit(double(n) / double(1 << 30), "GiB");
  if (n >= (1u << 20)) return unit(double(n) / double(1 << 20), "MiB");
  if (n >= 1024) return unit(double(n) / 1024.0, "KiB");
  return std::to_string(n) + " B";
}

namespace call_figure_parts {

namespace {

// collviz's op for a function, where the article draws it (v-forms and
// scans: no even split known, one buffer).
std::optional<Op> opOf(tap::Func f) {
  using tap::Func;
  switch (f) {
    case Func::bcast: case Func::nccl_broadcast: return Op::broadcast;
    case Func::reduce: case Func::nccl_reduce: return Op::reduce;
    case Func::allreduce: case Func::nccl_allreduce: return Op::all_reduce;
    case Func::gather: case Func::nccl_gather: return Op::gather;
    case Func::scatter: case Func::nccl_scatter: return Op::scatter;
    case Func::allgather: case Func::nccl_allgather: return Op::all_gather;
    case Func::alltoall: case Func::nccl_alltoall: return Op::all_to_all;
    case Func::reduce_scatter_block: case Func::nccl_reducescatter: return Op::reduce_scatter;
    default: return std::nullopt;
  }
}

std::string subscript(int k) {
  static const char* const kDigits[] = {"₀", "₁", "₂", "₃", "₄", "₅", "₆", "₇", "₈", "₉"};
  const std::string d = std::to_string(k);
  std::string s;
  for (char c : d) s += kDigits[c - '0'];
  return s;
}

std::string letter(int member) {
  if (member < 26) return std::string(1, char('A' + member));
  return "R" + std::to_string(member);
}

// A reduced block's name by the call's reduce op, as the article's labels
// name collviz's own (label_text's opSymbol): Σ a sum (and NCCL's average),
// Π a product, max and min by name; the rest by their name without MPI_.
std::string reducedLabel(tap::ROp o) {
  switch (o) {
    case tap::ROp::none: case tap::ROp::sum: case tap::ROp::nccl_sum: case tap::ROp::nccl_avg: return "Σ";
    case tap::ROp::prod: case tap::ROp::nccl_prod: return "Π";
    case tap::ROp::max: case tap::ROp::nccl_max: return "max";
    case tap::ROp::min: case tap::ROp::nccl_min: return "min";
    default: break;
  }
  std::string n = tap::ropName(o);
  if (n.rfind("MPI_", 0) == 0) n = n.substr(4);
  for (char& c : n) c = char(std::tolower(static_cast<unsigned char>(c)));
  return n.empty() ? std::string("op") : n;
}

}  // namespace

Side sideOf(const job::CapturedCall& call, int member, bool output) {
  const job::CapturedRank& r = call.ranks[std::size_t(member)];
  const int n = int(call.ranks.size());
  Side s;
  s.elems = output ? r.outElems : r.inElems;
  const std::vector<std::uint8_t>& kept = output ? r.out : r.in;
  s.keptBytes = kept.size();
  s.totalBytes = s.elems * call.dtypeSize;
  const std::optional<Op> op = opOf(call.func);
  const int root = call.root;
  int blocks = 1;
  if (op && *op != Op::broadcast && root < n) {
    const int b = output ? outputBlocks(*op, n, member, std::max(root, 0)) : inputBlocks(*op, n, member, std::max(root, 0));
    if (b > 1 && s.elems % std::uint64_t(b) == 0) blocks = b;
  }
  if (s.elems == 0) blocks = 0;
  s.blockElems = blocks > 0 ? s.elems / std::uint64_t(blocks) : 0;
  const bool reduced = op && (*op == Op::reduce || *op == Op::all_reduce || *op == Op::reduce_scatter);
  const bool scan = call.func == tap::Func::scan || call.func == tap::Func::exscan;
  for (int k = 0; k < blocks; ++k) {
    Block b;
    int from = member, shard = blocks > 1 ? k : -1;
    if (output) {
      if (reduced || scan) {
        b.reduced = true;
        shard = *op == Op::reduce_scatter ? member : blocks > 1 ? k : -1;
      } else if (op == Op::all_gather || op == Op::gather) {
        from = k, shard = -1;
      } else if (op == Op::all_to_all) {
        from = k, shard = member;
      } else if (op == Op::broadcast) {
        from = std::max(root, 0), shard = -1;
      } else if (op == Op::scatter) {  // the root's piece `member` (the article letters the pieces A, B, ...)
        from = member, shard = -1;
      } else {
        b.unknown = true;
      }
    } else if (op == Op::scatter && blocks > 1) {
      from = k, shard = -1;
    }
    b.letter = from;
    b.label = b.reduced ? reducedLabel(call.op) + (shard >= 0 ? subscript(shard) : std::string()) : b.unknown ? "" : letter(from) + (shard >= 0 ? subscript(shard) : "");
    s.blocks.push_back(b);
  }
  return s;
}

}  // namespace call_figure_parts

}  // namespace collviz::ui
