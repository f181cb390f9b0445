// The capture a tap writes: one file per process of the watched program, in
// the capture folder (COLLVIZ_TAP_OUT), named "tap-<host>-<pid>.cvtap".
// Shared by the taps (tap/, running inside someone else's program) and the
// readers (engine/job/capture*.cpp, the live watch in app/cli). Header-only,
// plain data, no dependencies beyond <cstdint>/<atomic>.
//
// Why a file and not a socket: the tap must never block the program, and a
// rank killed with SIGKILL must lose at most its call in flight. The file is
// mapped MAP_SHARED and its blocks reserved with posix_fallocate before they
// are used (a full disk is then a failed reservation, counted, never a
// SIGBUS), so every record the tap wrote is in the page cache the moment it
// is written, whatever happens to the process. The viewer reads the same file
// while it grows (live), and the same files are the capture afterwards.
//
// Layout: a FileHeader (kHeaderBytes), then records, each 8-byte aligned and
// a multiple of 8 bytes long, starting with a RecordHead. A record is
// complete once FileHeader::committed (bytes of records after the header,
// release-stored by the tap, acquire-loaded by a reader) covers it, except
// a CallRecord's exit part (status, output bytes, t_exit), which the tap
// fills when the call returns (or, nonblocking, when Wait/Test completes it):
// it is valid once t_exit != 0 (stored last, release). A call whose t_exit
// is 0 when its process is gone never returned. The NCCL tap fills a call's
// input bytes then too (copied on the op's stream, done when its event is),
// and t_exit is when it saw the op complete, not when the call returned.
//
// Times are CLOCK_REALTIME nanoseconds (comparable across processes and,
// as well as the hosts' clocks agree, across hosts).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace collviz::tap {

constexpr char kMagic[8] = {'C', 'V', 'Z', 'T', 'A', 'P', '\x01', '\n'};
constexpr std::uint32_t kVersion = 1;
constexpr std::uint32_t kHeaderBytes = 4096;
constexpr const char* kFileSuffix = ".cvtap";
constexpr std::uint32_t kDefaultBytes = 256;        // bytes kept of each buffer
constexpr std::uint32_t kMaxBytes = 1u << 20;       // --bytes at most 1 MiB
constexpr std::uint32_t kNoRank = 0xffffffffu;

// What kind of program wrote the file.
enum class Library : std::uint32_t { mpi = 1, nccl = 2 };

// Why records were lost (FileHeader::lost_reason; the first reason kept).
enum class Lost : std::uint32_t {
  none = 0,
  disk_full = 1,    // posix_fallocate failed (ENOSPC, EDQUOT)
  size_cap = 2,     // the file reached COLLVIZ_TAP_MAX_MB
  io_error = 3,     // another error growing or mapping the file
  no_memory = 4,    // the tap could not allocate its own bookkeeping
};

struct FileHeader {
  char magic[8];                // kMagic
  std::uint32_t version;        // kVersion
  std::uint32_t header_bytes;   // kHeaderBytes
  std::uint32_t library;        // Library
  std::int32_t world_rank;      // MPI: rank in MPI_COMM_WORLD; NCCL: -1 until a communicator says
  std::int32_t world_size;
  std::uint32_t bytes_limit;    // --bytes: how much of each buffer is kept
  std::int64_t pid;
  std::uint64_t start_ns;       // when the file was opened
  char host[64];                // gethostname, NUL-terminated
  char library_version[96];     // MPI_Get_library_version's first line / NCCL's version
  char program[128];            // the program's argv[0] as /proc/self/cmdline says, NUL-terminated
  std::uint8_t reserved[256];
  // Live fields (the tap writes, the viewer reads while it runs).
  std::atomic<std::uint64_t> committed;     // bytes of complete records after the header
  std::atomic<std::uint64_t> lost_records;  // records not written
  std::atomic<std::uint32_t> lost_reason;   // Lost (the first)
  std::atomic<std::uint32_t> finalized;     // 1 once MPI_Finalize (or the last ncclCommDestroy) was seen
  std::atomic<std::uint64_t> last_ns;       // time of the newest record's last change (entry or exit)
};
static_assert(sizeof(FileHeader) <= kHeaderBytes, "the header fits its page");

enum class RecordType : std::uint8_t { comm = 1, comm_free = 2, call = 3, note = 4, profile = 5 };

struct RecordHead {
  std::uint8_t type;            // RecordType
  std::uint8_t sub;             // call: Func; comm: CommKind; note: NoteCode
  std::uint16_t flags;          // call: CallFlag bits; comm: CommFlag bits
  std::uint32_t size;           // the whole record, a multiple of 8
};

// ---- Communicators ----
enum class CommKind : std::uint8_t {
  world = 1, self = 2, dup = 3, split = 4, split_type = 5, create = 6,
  create_group = 7, cart_create = 8, cart_sub = 9, graph_create = 10,
  dist_graph_create = 11, intercomm_create = 12, intercomm_merge = 13,
  lazy = 14,        // first seen at a call (made where the tap did not see it): id from its members
  nccl = 32,        // an NCCL communicator (id: NCCL's commHash)
};
enum CommFlag : std::uint16_t { kCommInter = 1 };

// A communicator this process is a member of. Followed by `ranks` int32
// world ranks (members in the communicator's rank order), padded to 8, then
// `name_bytes` bytes of its name (MPI_Comm_get_name where set, else ""),
// padded to 8.
struct CommRecord {
  RecordHead head;              // type comm, sub CommKind
  std::uint32_t comm;           // this file's number for it (CallRecord::comm)
  std::int32_t ranks;           // members
  std::int32_t my_rank;         // this process's rank in it
  std::int32_t color;           // split: color; else -1
  std::int32_t key;             // split: key; else -1
  std::uint32_t name_bytes;
  std::uint64_t id;             // agreed by every member (below)
  std::uint64_t parent;         // the id of the communicator it was made from, 0 if none
  std::uint64_t t_ns;
};
static_assert(sizeof(CommRecord) == 56, "CommRecord");
// Ids: MPI_COMM_WORLD is kWorldId. A communicator made by a constructor:
// ((world rank of its rank 0) + 1) << 32 | (that process's count of
// communicators it made so far), sent to the members by one PMPI_Bcast of
// the tap's own at creation. A lazy one: kLazyBit | a hash of its members.
constexpr std::uint64_t kWorldId = 1;
constexpr std::uint64_t kLazyBit = std::uint64_t(1) << 63;

struct CommFreeRecord {
  RecordHead head;              // type comm_free
  std::uint32_t comm;
  std::uint32_t pad;
  std::uint64_t t_ns;
};
static_assert(sizeof(CommFreeRecord) == 24, "CommFreeRecord");

// ---- Calls ----
enum class Func : std::uint8_t {
  none = 0,
  barrier = 1, bcast, reduce, allreduce, gather, gatherv, scatter, scatterv,
  allgather, allgatherv, alltoall, alltoallv, alltoallw, reduce_scatter,
  reduce_scatter_block, scan, exscan,
  // NCCL (the NCCL tap)
  nccl_allreduce = 64, nccl_broadcast, nccl_reduce, nccl_allgather,
  nccl_reducescatter, nccl_alltoall, nccl_gather, nccl_scatter, nccl_send,
  nccl_recv,
};
enum CallFlag : std::uint16_t {
  kInPlace = 1 << 0,        // MPI_IN_PLACE (C or Fortran)
  kNonblocking = 1 << 1,    // MPI_I...: t_exit is when Wait/Test completed it
  kUserOp = 1 << 2,         // a user-defined reduce op (op is ROp::user)
  kDerived = 1 << 3,        // a derived datatype (dtype is DType::derived, dtype_size its size)
  kBytesLeftOut = 1 << 4,   // a buffer's bytes could not be kept (derived and not packed, or no memory)
  kFortran = 1 << 5,        // called through the Fortran bindings
  kSaturated = 1 << 6,      // in_elems / out_elems exceeded 2^32-1 and say 2^32-1
  kCudaCopyFailed = 1 << 7, // NCCL: the tap's own copy of a buffer failed (nothing kept)
  kGraphCapture = 1 << 8,   // NCCL: issued during a CUDA graph capture (nothing copied)
};

// One call of one process: 64 bytes, then `in_kept` bytes of the input
// buffer at entry (padded to 8), then `out_kept` bytes reserved for the
// output buffer at exit (padded to 8). "Input" is the send buffer (with
// MPI_IN_PLACE: the receive buffer at entry); "output" the receive buffer
// (none where this rank receives nothing: a non-root's gather and reduce).
struct CallRecord {
  RecordHead head;              // type call, sub Func, flags CallFlag
  std::uint32_t comm;           // CommRecord::comm of an earlier record in this file
  std::uint32_t seq;            // this call's number in that communicator on this process, from 0
  std::uint8_t dtype;           // DType
  std::uint8_t op;              // ROp
  std::uint16_t pad;            // NCCL: the call's stream, numbered in this file from 1 in order of first use
                                // (a note names each); MPI: 0
  std::int32_t root;            // rank in the communicator; -1 for none (NCCL send/recv: the peer)
  std::uint32_t in_elems;       // elements this process sends (in dtype units; v-forms: their sum)
  std::uint32_t out_elems;      // elements it receives
  std::uint32_t dtype_size;     // bytes per element (MPI_Type_size)
  std::uint32_t in_kept;        // bytes of the input kept after this record
  std::uint32_t out_kept;       // bytes reserved for the output (valid once t_exit != 0)
  std::int32_t status;          // the call's return code (MPI_SUCCESS = 0), written at exit
  std::uint64_t t_enter;
  std::atomic<std::uint64_t> t_exit;  // 0 while in the call; stored last
};
static_assert(sizeof(CallRecord) == 64, "CallRecord");

constexpr std::uint32_t pad8(std::uint32_t n) { return (n + 7u) & ~7u; }

// A line of text from the tap (what it could not do), UTF-8, `len` bytes
// then padding.
enum class NoteCode : std::uint8_t {
  text = 1,             // free text
  init = 2,             // MPI_Init / Init_thread seen (thread level in the text)
  finalize = 3,
  not_open_mpi = 4,     // the MPI library is not Open MPI (its version in the text)
  nccl_profiler = 5,    // the NCCL profiler plugin's state
};
struct NoteRecord {
  RecordHead head;              // type note, sub NoteCode
  std::uint32_t len;
  std::uint32_t pad;
  std::uint64_t t_ns;
};
static_assert(sizeof(NoteRecord) == 24, "NoteRecord");

// ---- NCCL's profiler plugin (tap/nccl/profiler*.cpp, in the NCCL tap) ----
// One collective as NCCL planned and ran it: written when NCCL stops its
// Coll event (the collective is enqueued; algorithm, protocol, channels),
// its kernel part filled in place later from its KernelCh events (valid
// once kernel_end != 0, stored last, release), as a call's exit part is.
// Joined to the tap's CallRecord by the communicator (comm_id is the
// CommRecord::id, NCCL's commHash) and NCCL's own numbering: NCCL counts
// seqNumber per communicator AND function (AllReduce apart from
// Broadcast...), from 0, and only collectives whose count is above 0; and
// inside a group it numbers them in the order it schedules them (roughly by
// size, descending), not the order of the calls, so the reader checks
// `count` and takes the nearest call of that count where they differ.
// A reader that does not know this type skips it by its size.
enum ProfileFlag : std::uint16_t {
  kProfileChannelsShort = 1,  // written before every channel's kernel part stopped (finalize, or 4096 newer collectives waiting)
};
struct ProfileRecord {
  RecordHead head;              // type profile, sub Func (Func::none: a function the tap has no code for), flags ProfileFlag
  std::int32_t comm_rank;       // this process's rank in the communicator (the plugin's init)
  std::uint8_t channels;        // nChannels NCCL chose
  std::uint8_t channels_done;   // KernelCh events stopped (with the kernel part)
  std::uint16_t pad;
  std::uint64_t comm_id;        // init's commId: NCCL's commHash
  std::uint64_t seq;            // NCCL's seqNumber (per communicator and function)
  std::uint64_t count;          // the call's count argument, as NCCL's Coll event gives it
  char algo[16];                // "RING", "TREE", "NVLS", ... NUL-terminated
  char proto[8];                // "LL", "LL128", "SIMPLE"
  std::uint64_t t_start;        // the Coll event's start (NCCL planning it)
  std::uint64_t t_enqueued;     // its stop: enqueued on the stream
  std::uint64_t kernel_start;   // the first KernelCh start as the plugin saw it, 0 if none yet
  std::uint64_t kernel_gpu_ns;  // the kernel's span on the GPU's own timer (last stop - first start), 0 if unknown
  std::atomic<std::uint64_t> kernel_end;  // the last KernelCh stop as the plugin saw it; 0 while running; stored last
};
static_assert(sizeof(ProfileRecord) == 104, "ProfileRecord");

// ---- Datatypes and reduce ops (built-in ones by name; the rest: derived / user) ----
enum class DType : std::uint8_t {
  unknown = 0, derived = 1,
  char_ = 2, signed_char, unsigned_char, byte, short_, unsigned_short, int_,
  unsigned_, long_, unsigned_long, long_long, unsigned_long_long, float_,
  double_, long_double, int8, int16, int32, int64, uint8, uint16, uint32,
  uint64, c_bool, wchar, float_int, double_int, long_int, two_int, short_int,
  long_double_int, c_float_complex, c_double_complex, aint, offset, count,
  // Fortran
  f_integer, f_real, f_double_precision, f_complex, f_double_complex,
  f_logical, f_character, f_integer4, f_integer8, f_real4, f_real8,
  f_2integer, f_2real, f_2double_precision,
  // NCCL
  nccl_int8 = 96, nccl_uint8, nccl_int32, nccl_uint32, nccl_int64,
  nccl_uint64, nccl_float16, nccl_float32, nccl_float64, nccl_bfloat16,
  nccl_float8e4m3, nccl_float8e5m2,
  count_ = 128,
};
// The name a person knows it by ("MPI_DOUBLE", "ncclFloat32"); "" for none.
inline const char* dtypeName(DType d) {
  switch (d) {
    case DType::unknown: return "";
    case DType::derived: return "derived";
    case DType::char_: return "MPI_CHAR";
    case DType::signed_char: return "MPI_SIGNED_CHAR";
    case DType::unsigned_char: return "MPI_UNSIGNED_CHAR";
    case DType::byte: return "MPI_BYTE";
    case DType::short_: return "MPI_SHORT";
    case DType::unsigned_short: return "MPI_UNSIGNED_SHORT";
    case DType::int_: return "MPI_INT";
    case DType::unsigned_: return "MPI_UNSIGNED";
    case DType::long_: return "MPI_LONG";
    case DType::unsigned_long: return "MPI_UNSIGNED_LONG";
    case DType::long_long: return "MPI_LONG_LONG";
    case DType::unsigned_long_long: return "MPI_UNSIGNED_LONG_LONG";
    case DType::float_: return "MPI_FLOAT";
    case DType::double_: return "MPI_DOUBLE";
    case DType::long_double: return "MPI_LONG_DOUBLE";
    case DType::int8: return "MPI_INT8_T";
    case DType::int16: return "MPI_INT16_T";
    case DType::int32: return "MPI_INT32_T";
    case DType::int64: return "MPI_INT64_T";
    case DType::uint8: return "MPI_UINT8_T";
    case DType::uint16: return "MPI_UINT16_T";
    case DType::uint32: return "MPI_UINT32_T";
    case DType::uint64: return "MPI_UINT64_T";
    case DType::c_bool: return "MPI_C_BOOL";
    case DType::wchar: return "MPI_WCHAR";
    case DType::float_int: return "MPI_FLOAT_INT";
    case DType::double_int: return "MPI_DOUBLE_INT";
    case DType::long_int: return "MPI_LONG_INT";
    case DType::two_int: return "MPI_2INT";
    case DType::short_int: return "MPI_SHORT_INT";
    case DType::long_double_int: return "MPI_LONG_DOUBLE_INT";
    case DType::c_float_complex: return "MPI_C_FLOAT_COMPLEX";
    case DType::c_double_complex: return "MPI_C_DOUBLE_COMPLEX";
    case DType::aint: return "MPI_AINT";
    case DType::offset: return "MPI_OFFSET";
    case DType::count: return "MPI_COUNT";
    case DType::f_integer: return "MPI_INTEGER";
    case DType::f_real: return "MPI_REAL";
    case DType::f_double_precision: return "MPI_DOUBLE_PRECISION";
    case DType::f_complex: return "MPI_COMPLEX";
    case DType::f_double_complex: return "MPI_DOUBLE_COMPLEX";
    case DType::f_logical: return "MPI_LOGICAL";
    case DType::f_character: return "MPI_CHARACTER";
    case DType::f_integer4: return "MPI_INTEGER4";
    case DType::f_integer8: return "MPI_INTEGER8";
    case DType::f_real4: return "MPI_REAL4";
    case DType::f_real8: return "MPI_REAL8";
    case DType::f_2integer: return "MPI_2INTEGER";
    case DType::f_2real: return "MPI_2REAL";
    case DType::f_2double_precision: return "MPI_2DOUBLE_PRECISION";
    case DType::nccl_int8: return "ncclInt8";
    case DType::nccl_uint8: return "ncclUint8";
    case DType::nccl_int32: return "ncclInt32";
    case DType::nccl_uint32: return "ncclUint32";
    case DType::nccl_int64: return "ncclInt64";
    case DType::nccl_uint64: return "ncclUint64";
    case DType::nccl_float16: return "ncclFloat16";
    case DType::nccl_float32: return "ncclFloat32";
    case DType::nccl_float64: return "ncclFloat64";
    case DType::nccl_bfloat16: return "ncclBfloat16";
    case DType::nccl_float8e4m3: return "ncclFloat8e4m3";
    case DType::nccl_float8e5m2: return "ncclFloat8e5m2";
    default: return "";
  }
}

enum class ROp : std::uint8_t {
  none = 0, max, min, sum, prod, land, band, lor, bor, lxor, bxor, maxloc,
  minloc, replace, no_op,
  nccl_sum = 32, nccl_prod, nccl_max, nccl_min, nccl_avg, nccl_premulsum,
  user = 255,  // a user-defined op (MPI_Op_create / ncclRedOpCreate...)
};
inline const char* ropName(ROp o) {
  switch (o) {
    case ROp::none: return "";
    case ROp::max: return "MPI_MAX";
    case ROp::min: return "MPI_MIN";
    case ROp::sum: return "MPI_SUM";
    case ROp::prod: return "MPI_PROD";
    case ROp::land: return "MPI_LAND";
    case ROp::band: return "MPI_BAND";
    case ROp::lor: return "MPI_LOR";
    case ROp::bor: return "MPI_BOR";
    case ROp::lxor: return "MPI_LXOR";
    case ROp::bxor: return "MPI_BXOR";
    case ROp::maxloc: return "MPI_MAXLOC";
    case ROp::minloc: return "MPI_MINLOC";
    case ROp::replace: return "MPI_REPLACE";
    case ROp::no_op: return "MPI_NO_OP";
    case ROp::nccl_sum: return "ncclSum";
    case ROp::nccl_prod: return "ncclProd";
    case ROp::nccl_max: return "ncclMax";
    case ROp::nccl_min: return "ncclMin";
    case ROp::nccl_avg: return "ncclAvg";
    case ROp::nccl_premulsum: return "ncclPreMulSum";
    case ROp::user: return "user-defined";
    default: return "";
  }
}

// The function's name as the program called it ("MPI_Allreduce"; with
// kNonblocking "MPI_Iallreduce"), and collviz's plain op name
// ("all_reduce", as engine/job's Call::op).
inline const char* funcName(Func f, bool nonblocking = false) {
  switch (f) {
    case Func::barrier: return nonblocking ? "MPI_Ibarrier" : "MPI_Barrier";
    case Func::bcast: return nonblocking ? "MPI_Ibcast" : "MPI_Bcast";
    case Func::reduce: return nonblocking ? "MPI_Ireduce" : "MPI_Reduce";
    case Func::allreduce: return nonblocking ? "MPI_Iallreduce" : "MPI_Allreduce";
    case Func::gather: return nonblocking ? "MPI_Igather" : "MPI_Gather";
    case Func::gatherv: return nonblocking ? "MPI_Igatherv" : "MPI_Gatherv";
    case Func::scatter: return nonblocking ? "MPI_Iscatter" : "MPI_Scatter";
    case Func::scatterv: return nonblocking ? "MPI_Iscatterv" : "MPI_Scatterv";
    case Func::allgather: return nonblocking ? "MPI_Iallgather" : "MPI_Allgather";
    case Func::allgatherv: return nonblocking ? "MPI_Iallgatherv" : "MPI_Allgatherv";
    case Func::alltoall: return nonblocking ? "MPI_Ialltoall" : "MPI_Alltoall";
    case Func::alltoallv: return nonblocking ? "MPI_Ialltoallv" : "MPI_Alltoallv";
    case Func::alltoallw: return nonblocking ? "MPI_Ialltoallw" : "MPI_Alltoallw";
    case Func::reduce_scatter: return nonblocking ? "MPI_Ireduce_scatter" : "MPI_Reduce_scatter";
    case Func::reduce_scatter_block: return nonblocking ? "MPI_Ireduce_scatter_block" : "MPI_Reduce_scatter_block";
    case Func::scan: return nonblocking ? "MPI_Iscan" : "MPI_Scan";
    case Func::exscan: return nonblocking ? "MPI_Iexscan" : "MPI_Exscan";
    case Func::nccl_allreduce: return "ncclAllReduce";
    case Func::nccl_broadcast: return "ncclBroadcast";
    case Func::nccl_reduce: return "ncclReduce";
    case Func::nccl_allgather: return "ncclAllGather";
    case Func::nccl_reducescatter: return "ncclReduceScatter";
    case Func::nccl_alltoall: return "ncclAlltoAll";
    case Func::nccl_gather: return "ncclGather";
    case Func::nccl_scatter: return "ncclScatter";
    case Func::nccl_send: return "ncclSend";
    case Func::nccl_recv: return "ncclRecv";
    default: return "";
  }
}
inline const char* funcOp(Func f) {
  switch (f) {
    case Func::barrier: return "barrier";
    case Func::bcast: case Func::nccl_broadcast: return "broadcast";
    case Func::reduce: case Func::nccl_reduce: return "reduce";
    case Func::allreduce: case Func::nccl_allreduce: return "all_reduce";
    case Func::gather: case Func::gatherv: case Func::nccl_gather: return "gather";
    case Func::scatter: case Func::scatterv: case Func::nccl_scatter: return "scatter";
    case Func::allgather: case Func::allgatherv: case Func::nccl_allgather: return "all_gather";
    case Func::alltoall: case Func::alltoallv: case Func::alltoallw: case Func::nccl_alltoall: return "all_to_all";
    case Func::reduce_scatter: case Func::reduce_scatter_block: case Func::nccl_reducescatter: return "reduce_scatter";
    case Func::scan: return "scan";
    case Func::exscan: return "exscan";
    case Func::nccl_send: return "send";
    case Func::nccl_recv: return "recv";
    default: return "";
  }
}

}  // namespace collviz::tap
