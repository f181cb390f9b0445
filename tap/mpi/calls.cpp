// A call's record: its entry (begin) and exit (end) parts, the datatype and
// op by name, and the bytes kept of its buffers. A buffer whose type lies
// contiguously in memory (every built-in type but the pair types, and a
// derived type whose true extent is its size) is copied straight into the
// record; any other is packed with PMPI_Pack into this thread's scratch
// buffer first (at most the bytes kept, rounded up to whole elements).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iterator>

#include "tap/mpi/tap_mpi.h"

namespace collviz::tap::mpi {
namespace {

struct Named {
  MPI_Datatype h;
  DType d;
  std::uint32_t size;
  bool contiguous;
};
// Looked up at start (the handles are Open MPI's globals); the common ones
// first, searched in order.
Named g_types[64];
int g_ntypes = 0;

struct NamedOp {
  MPI_Op h;
  ROp o;
};
NamedOp g_ops[16];
int g_nops = 0;

struct TypeInfo {
  DType d = DType::unknown;
  std::uint32_t size = 0;
  bool contiguous = false;
};

bool contiguousType(MPI_Datatype t, int size) {
  MPI_Aint lb = 0, extent = 0, tlb = 0, textent = 0;
  if (PMPI_Type_get_extent(t, &lb, &extent) != MPI_SUCCESS) return false;
  if (PMPI_Type_get_true_extent(t, &tlb, &textent) != MPI_SUCCESS) return false;
  return lb == 0 && tlb == 0 && extent == size && textent == size;
}

TypeInfo typeInfo(MPI_Datatype t) {
  TypeInfo ti;
  if (t == MPI_DATATYPE_NULL) return ti;
  for (int i = 0; i < g_ntypes; ++i)
    if (g_types[i].h == t) return TypeInfo{g_types[i].d, g_types[i].size, g_types[i].contiguous};
  int ni = 0, na = 0, nd = 0, combiner = 0, size = 0;
  if (PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner) != MPI_SUCCESS) return ti;
  if (PMPI_Type_size(t, &size) != MPI_SUCCESS || size < 0) return ti;
  ti.d = combiner == MPI_COMBINER_NAMED ? DType::unknown : DType::derived;
  ti.size = std::uint32_t(size);
  ti.contiguous = contiguousType(t, size);
  return ti;
}

ROp opInfo(MPI_Op op) {
  if (op == MPI_OP_NULL) return ROp::none;
  for (int i = 0; i < g_nops; ++i)
    if (g_ops[i].h == op) return g_ops[i].o;
  return ROp::user;
}

// This thread's buffer for packed bytes (freed with the thread).
struct Scratch {
  void* p = nullptr;
  std::size_t n = 0;
  ~Scratch() { std::free(p); }
  void* get(std::size_t want) {
    if (want <= n) return p;
    void* q = std::realloc(p, want);
    if (!q) return nullptr;
    return p = q, n = want, p;
  }
};
thread_local Scratch t_scratch;

// At most this much is packed for a kept prefix (a type of huge elements
// is left out instead).
constexpr std::int64_t kMaxPack = std::int64_t(4) << 20;

// Packs the first elements of `b` covering `want` bytes into the scratch
// buffer; the bytes packed (<= want), or -1 when it could not.
std::int64_t packPrefix(const Buf& b, std::uint32_t size, std::int64_t want, void** out) {
  if (size == 0) return -1;
  const std::int64_t elems = std::min<std::int64_t>(b.count, (want + size - 1) / size);
  if (elems > 0x7fffffff || elems * size > kMaxPack) return -1;
  int need = 0;
  if (PMPI_Pack_size(int(elems), b.type, MPI_COMM_WORLD, &need) != MPI_SUCCESS || need <= 0) return -1;
  void* s = t_scratch.get(std::size_t(need));
  if (!s) return -1;
  int pos = 0;
  if (PMPI_Pack(b.p, int(elems), b.type, s, need, &pos, MPI_COMM_WORLD) != MPI_SUCCESS) return -1;
  *out = s;
  return std::min<std::int64_t>(pos, want);
}

std::uint32_t sat32(std::int64_t v, std::uint16_t& flags) {
  if (v < 0) return 0;
  if (v > 0xffffffffll) return flags |= kSaturated, 0xffffffffu;
  return std::uint32_t(v);
}

}  // namespace

void typesStart() {
  const struct {
    MPI_Datatype h;
    DType d;
  } named[] = {
      {MPI_DOUBLE, DType::double_}, {MPI_FLOAT, DType::float_}, {MPI_INT, DType::int_},
      {MPI_BYTE, DType::byte}, {MPI_CHAR, DType::char_}, {MPI_LONG, DType::long_},
      {MPI_UNSIGNED_LONG, DType::unsigned_long}, {MPI_LONG_LONG, DType::long_long},
      {MPI_UNSIGNED_LONG_LONG, DType::unsigned_long_long}, {MPI_UNSIGNED, DType::unsigned_},
      {MPI_INT64_T, DType::int64}, {MPI_UINT64_T, DType::uint64}, {MPI_INT32_T, DType::int32},
      {MPI_UINT32_T, DType::uint32}, {MPI_DOUBLE_PRECISION, DType::f_double_precision},
      {MPI_INTEGER, DType::f_integer}, {MPI_REAL, DType::f_real}, {MPI_SIGNED_CHAR, DType::signed_char},
      {MPI_UNSIGNED_CHAR, DType::unsigned_char}, {MPI_SHORT, DType::short_},
      {MPI_UNSIGNED_SHORT, DType::unsigned_short}, {MPI_LONG_DOUBLE, DType::long_double},
      {MPI_INT8_T, DType::int8}, {MPI_INT16_T, DType::int16}, {MPI_UINT8_T, DType::uint8},
      {MPI_UINT16_T, DType::uint16}, {MPI_C_BOOL, DType::c_bool}, {MPI_WCHAR, DType::wchar},
      {MPI_FLOAT_INT, DType::float_int}, {MPI_DOUBLE_INT, DType::double_int}, {MPI_LONG_INT, DType::long_int},
      {MPI_2INT, DType::two_int}, {MPI_SHORT_INT, DType::short_int},
      {MPI_LONG_DOUBLE_INT, DType::long_double_int}, {MPI_C_FLOAT_COMPLEX, DType::c_float_complex},
      {MPI_C_DOUBLE_COMPLEX, DType::c_double_complex}, {MPI_AINT, DType::aint}, {MPI_OFFSET, DType::offset},
      {MPI_COUNT, DType::count}, {MPI_COMPLEX, DType::f_complex},
      {MPI_DOUBLE_COMPLEX, DType::f_double_complex}, {MPI_LOGICAL, DType::f_logical},
      {MPI_CHARACTER, DType::f_character}, {MPI_INTEGER4, DType::f_integer4},
      {MPI_INTEGER8, DType::f_integer8}, {MPI_REAL4, DType::f_real4}, {MPI_REAL8, DType::f_real8},
      {MPI_2INTEGER, DType::f_2integer}, {MPI_2REAL, DType::f_2real},
      {MPI_2DOUBLE_PRECISION, DType::f_2double_precision},
  };
  g_ntypes = 0;
  for (const auto& n : named) {
    int size = 0;
    if (n.h == MPI_DATATYPE_NULL || g_ntypes == int(std::size(g_types))) continue;
    if (PMPI_Type_size(n.h, &size) != MPI_SUCCESS || size <= 0) continue;  // absent from this build
    g_types[g_ntypes++] = Named{n.h, n.d, std::uint32_t(size), contiguousType(n.h, size)};
  }
  const NamedOp ops[] = {{MPI_SUM, ROp::sum}, {MPI_MAX, ROp::max},   {MPI_MIN, ROp::min},
                         {MPI_PROD, ROp::prod}, {MPI_LAND, ROp::land}, {MPI_BAND, ROp::band},
                         {MPI_LOR, ROp::lor}, {MPI_BOR, ROp::bor},   {MPI_LXOR, ROp::lxor},
                         {MPI_BXOR, ROp::bxor}, {MPI_MAXLOC, ROp::maxloc}, {MPI_MINLOC, ROp::minloc},
                         {MPI_REPLACE, ROp::replace}, {MPI_NO_OP, ROp::no_op}};
  g_nops = 0;
  for (const auto& o : ops) g_ops[g_nops++] = o;
}

Active begin(CommInfo& c, const Desc& d, std::uint16_t flags) {
  Active a;
  CallRecord r{};
  r.t_enter = nowNs();
  flags |= d.flags;
  r.head.type = std::uint8_t(RecordType::call);
  r.head.sub = std::uint8_t(d.func);
  r.comm = c.num;
  r.seq = c.seq.fetch_add(1, std::memory_order_relaxed);
  r.root = d.root;

  const TypeInfo dt = typeInfo(d.dtype);
  r.dtype = std::uint8_t(dt.d);
  if (dt.d == DType::derived) flags |= kDerived;
  r.dtype_size = dt.size;
  const ROp op = opInfo(d.op);
  r.op = std::uint8_t(op);
  if (op == ROp::user) flags |= kUserOp;
  // Elements in the named type's units (a send type other than the receive
  // type counts by bytes); without a type (alltoallw) the counts themselves.
  r.in_elems = sat32(dt.size ? d.in_bytes / dt.size : d.in_bytes, flags);
  r.out_elems = sat32(dt.size ? d.out_bytes / dt.size : d.out_bytes, flags);

  // The input at entry.
  const std::uint32_t limit = g_writer.bytesLimit();
  Part in{nullptr, 0};
  if (d.in.p && limit > 0) {
    const TypeInfo ti = d.in.type == d.dtype ? dt : typeInfo(d.in.type);
    const std::int64_t want = std::min<std::int64_t>(limit, d.in.count * ti.size);
    if (want > 0 && ti.contiguous) {
      in = Part{d.in.p, std::uint32_t(want)};  // copied under the writer's lock, once
    } else if (want > 0) {
      void* packed = nullptr;
      const std::int64_t got = packPrefix(d.in, ti.size, want, &packed);
      if (got >= 0) in = Part{packed, std::uint32_t(got)};
      else flags |= kBytesLeftOut;
    }
  }
  // Room for the output at exit.
  if (d.out.p && limit > 0) {
    const TypeInfo ti = d.out.type == d.dtype ? dt : typeInfo(d.out.type);
    const std::int64_t want = std::min<std::int64_t>(limit, d.out.count * ti.size);
    if (want > 0) a.out_cap = std::uint32_t(want), a.out_src = d.out, a.out_contiguous = ti.contiguous, a.out_size = ti.size;
  }
  r.head.flags = flags;
  r.in_kept = in.n;
  r.out_kept = a.out_cap;
  const Part parts[3] = {{&r, sizeof r}, in, {nullptr, a.out_cap}};
  a.rec = static_cast<CallRecord*>(g_writer.append(parts, 3));
  if (a.rec) a.out = reinterpret_cast<std::uint8_t*>(a.rec) + sizeof r + pad8(in.n);
  return a;
}

namespace {
void finish(Active& a, int rc, std::uint32_t kept, bool left_out) {
  a.rec->out_kept = kept;
  a.rec->status = rc;
  if (left_out) a.rec->head.flags |= kBytesLeftOut;
  const std::uint64_t t = nowNs();
  a.rec->t_exit.store(t, std::memory_order_release);
  g_writer.touch(t);
  a.rec = nullptr;
}
}  // namespace

void end(Active& a, int rc, bool nonblocking) {
  if (!a.rec) return;
  std::uint32_t kept = 0;
  bool left_out = false;
  if (a.out_cap && rc == MPI_SUCCESS) {
    if (a.out_contiguous) {
      std::memcpy(a.out, a.out_src.p, a.out_cap), kept = a.out_cap;
    } else if (!nonblocking) {
      // The type is still the caller's during a blocking call; a
      // nonblocking call's may have been freed since, so it is left out.
      void* packed = nullptr;
      const std::int64_t got = packPrefix(a.out_src, a.out_size, a.out_cap, &packed);
      if (got >= 0) std::memcpy(a.out, packed, std::size_t(got)), kept = std::uint32_t(got);
      else left_out = true;
    } else {
      left_out = true;
    }
  }
  finish(a, rc, kept, left_out);
}

void endFreed(Active& a, int rc) {
  if (a.rec) finish(a, rc, 0, true);
}

}  // namespace collviz::tap::mpi
