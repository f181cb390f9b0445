// The MPI communicator: every op with MPI's own call on MPI_COMM_WORLD's
// duplicate (MPI_Bcast, MPI_Scatter, MPI_Gather, MPI_Reduce, MPI_Allgather,
// MPI_Reduce_scatter_block, MPI_Allreduce, MPI_Alltoall), errors returned
// (MPI_ERRORS_RETURN) with MPI's text. MPI has no average: avg runs MPI_SUM
// and divides by N in each rank after the call (outside the timed region).
// The ranks are one job started by mpirun (engine/group/mpi_launch.cpp); MPI_Init
// reads the job from the environment mpirun gives each rank.
// Big ops (from 1 MiB) run on the rank's own private pages: the input
// (and the poisoned output) copied from the shared memory before the timed
// calls, the output copied back after them, both timed apart as copy_us.
// Open MPI's shared-memory transport moves private pages faster than pages
// of the shared memory the engine checks (broadcast of 16 MiB through the
// engine: 15.8 ms a call on memfd pages, 13.3 ms on private ones; with the
// ranks bound, all_reduce of 16 and 64 MiB: 0.94x and 0.85-0.92x of the
// plain loop in place, 1.02-1.07x and 0.94-1.01x on private pages;
// docs/performance.md).
#include "engine/worker/mpi/communicator.h"

#include <mpi.h>
#include <sys/mman.h>

#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>

#include "engine/dtype.h"
#include "engine/verify/poison.h"
#include "engine/worker/mpi/common.h"
#include "engine/worker/mpi/rounds.h"
#include "engine/worker/op_binding.h"
#include "engine/group/mpi_launch.h"
#include "engine/group/said_json.h"

namespace collviz {
namespace {

std::string libraryVersion() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  if (MPI_Get_library_version(text, &len) != MPI_SUCCESS) return "unknown";
  std::string v(text, std::size_t(len));
  // "Open MPI v4.1.4, package: Debian OpenMPI, ident: …": the first part.
  if (const auto comma = v.find(','); comma != std::string::npos) v.resize(comma);
  while (!v.empty() && (v.back() == '\n' || v.back() == ' ')) v.pop_back();
  return v;
}

std::string standardVersion() {
  int major = 0, minor = 0;
  MPI_Get_version(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

// What mpirun was given as --bind-to: Open MPI hands it to each rank as an
// MCA variable (true across hosts too, where collviz's variable is not
// passed); else what the engine would give (the same variable, inherited).
std::string binding() {
  if (const char* p = std::getenv("OMPI_MCA_hwloc_base_binding_policy"); p && *p) return p;
  auto b = mpiBinding(std::getenv("COLLVIZ_MPI_BIND"));
  return b ? *b : std::string("none");
}

// The ranks bind themselves op by op (collviz's default on one host): the
// engine said so and mpirun bound nothing.
bool bindsPerOp() {
  const char* v = std::getenv(kMpiBindPerOpEnv);
  return v && std::string(v) == "1" && binding() == "none";
}

BackendInfo mpiInfo(const OpBinding* per_op) {
  BackendInfo b;
  b.name = "mpi";
  b.version = libraryVersion() + " (MPI " + standardVersion() + ")";
  // The CPUs collviz may use, as the rank inherited them (a binding of
  // mpirun's narrows each rank's to its own: the notes say it).
  b.devices = binding() == "none" ? cpuDevicesLine(true)
                                  : say("CPU ({0} cores), one process per rank, one MPI job started by mpirun",
                                        std::thread::hardware_concurrency());
  b.transport = say("shared memory (Open MPI btl self,vader)");
  std::vector<Text> notes = {
      say("each op with MPI's own call (MPI_Bcast, MPI_Scatter, MPI_Gather, MPI_Reduce, "
          "MPI_Allgather, MPI_Reduce_scatter_block, MPI_Allreduce, MPI_Alltoall)"),
      say("f16/bf16: MPI has no such type, they move as 16-bit words and reduce with "
          "user-defined ops (MPI_Op_create) computing in float"),
      say("avg: MPI has no average, collviz runs MPI_SUM and divides by N in each rank "
          "after the call"),
      say("mpirun started with --oversubscribe --bind-to {0} (more ranks than cores) "
          "and, as root, OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM)=1, set by collviz",
          binding())};
  if (per_op && !per_op->error().empty())
    notes.push_back(say("the ranks run unbound: {0}", per_op->error()));
  else if (per_op && per_op->ownCoreAlways())
    notes.push_back(say("each rank bound by collviz to a core of its own ({0} cores)", per_op->cores()));
  else if (per_op)
    notes.push_back(say("each rank bound by collviz to one core for all_reduce, all_gather, reduce_scatter and "
                        "all_to_all (rank r on core r mod {0}) and for broadcast (the ranks in order from the "
                        "root, neighbours sharing a core), and free on every core for reduce, gather and scatter",
                        per_op->cores()));
  b.notes = joined(notes);
  return b;
}

BackendCaps mpiCaps() {
  BackendCaps c;
  c.name = "mpi";
  c.dtypes = {DType::f32, DType::f64, DType::f16, DType::bf16, DType::i32, DType::i64, DType::u8};
  c.redops = {RedOp::sum, RedOp::prod, RedOp::min, RedOp::max, RedOp::avg};
  c.max_rank_bytes = std::size_t(INT_MAX);  // MPI counts are int
  return c;
}

// From this size (all ranks' blocks of the op) the calls start at a barrier
// (and run on private pages).
constexpr std::size_t kAlignedBytes = std::size_t(1) << 20;

// Anonymous private pages, faulted in when mapped; kept for the next op of
// the same size or less.
class PrivatePages {
 public:
  PrivatePages() = default;
  PrivatePages(const PrivatePages&) = delete;
  PrivatePages& operator=(const PrivatePages&) = delete;
  ~PrivatePages() { release(); }
  // At least n bytes, or nullptr when the system has none to give.
  char* ensure(std::size_t n) {
    if (n <= size_ && p_) return p_;
    release();
    void* m = ::mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (m == MAP_FAILED) return nullptr;
    p_ = static_cast<char*>(m), size_ = n;
    return p_;
  }

 private:
  void release() {
    if (p_) ::munmap(p_, size_);
    p_ = nullptr, size_ = 0;
  }
  char* p_ = nullptr;
  std::size_t size_ = 0;
};

class MpiCommunicator : public Communicator {
 public:
  ~MpiCommunicator() override {
    int finalized = 1;
    MPI_Finalized(&finalized);
    if (finalized) return;
    rounds_.reset();
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
    MPI_Finalize();  // the user-defined ops go with it
  }

  Status init(int rank, int size, ControlStore&, int) override {
    if (int err = MPI_Init(nullptr, nullptr); err != MPI_SUCCESS)
      return Error{say("MPI_Init: {0}", mpiErrorText(err))};
    int r = -1, n = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (r != rank || n != size)
      return Error{say("mpi: MPI_COMM_WORLD says rank {0} of {1}, collviz expected rank {2} of {3}", r, n,
                       rank, size)};
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    ops_.create();
    rank_ = rank;
    size_ = size;
    rounds_ = std::make_unique<MpiRounds>(comm_, ops_);
    if (bindsPerOp()) per_op_ = OpBinding::ofThisProcess(rank, size);
    return {};
  }

  Result<OpTiming> run(const OpSpec& s, const void* in, void* out, const RunOptions& o) override {
    const std::size_t e = std::size_t(s.elems), n = std::size_t(s.ranks);
    if (per_op_) per_op_->apply(s.op, s.root);
    if (n * e > std::size_t(INT_MAX))
      return Error{say("mpi: {0} elements exceed MPI's int count ({1})", n * e, INT_MAX)};
    const MpiTypeOp to = ops_.of(s.dtype, s.redop);
    const std::size_t es = dtypeSize(s.dtype);
    const int first_timed = std::max(0, o.warmup), calls = first_timed + std::max(0, o.iters);
    // Broadcast is in place: the root's input goes into its output once,
    // outside the timed calls (MPI_Bcast leaves the root's buffer as it is),
    // and again after the poison below.
    const bool bcast_root = s.op == Op::broadcast && rank_ == s.root;
    const bool aligned = double(n) * double(e) * double(es) >= double(kAlignedBytes);
    // Big ops: the calls on private copies (the output's poison copied too,
    // so what MPI does not write stays poisoned); small ones in place.
    const std::size_t in_bytes = in ? inputBytes(s, rank_) : 0, out_bytes = out ? outputBytes(s, rank_) : 0;
    void* const shared_out = out;
    double copy_us = 0;
    const auto c0 = std::chrono::steady_clock::now();
    if (aligned) {
      char* pin = in_bytes ? in_pages_.ensure(in_bytes) : nullptr;
      char* pout = out_bytes ? out_pages_.ensure(out_bytes) : nullptr;
      if ((in_bytes && !pin) || (out_bytes && !pout))
        return Error{say("mpi {0} on rank {1}: {2}", name(s.op), rank_, say("out of memory; try a smaller size"))};
      if (pin) std::memcpy(pin, in, in_bytes), in = pin;
      if (pout) std::memcpy(pout, out, out_bytes), out = pout;
      copy_us += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - c0).count();
    }
    if (bcast_root) std::memcpy(out, in, n * e * es);
    std::chrono::steady_clock::time_point t0{};
    for (int it = 0; it < calls; ++it) {
      if (it == first_timed) {
        // The checked output must come from the timed calls, not the
        // warm-up (the engine poisoned it before the run).
        if (it > 0 && out) {
          poisonBytes(out, outputBytes(s, rank_), s.dtype);
          if (bcast_root) std::memcpy(out, in, n * e * es);
        }
        // Big ops: the ranks start the timed calls together (an untimed
        // barrier, as a plain loop's), so a rank still poisoning or reached
        // late by the engine's message is not counted in its peers' op
        // time; then the timed calls run back to back, as in a plain loop
        // (a barrier before each would keep a broadcast's pipeline from
        // overlapping its next call, and time each call's drain). Decided
        // from the spec alone, the same on every rank. Small ops have none:
        // there a barrier's own skew on shared cores would be most of the
        // time measured.
        if (aligned && o.meet)
          if (int err = MPI_Barrier(comm_); err != MPI_SUCCESS)
            return Error{say("mpi {0} on rank {1}: {2}", name(s.op), rank_, mpiErrorText(err))};
        t0 = std::chrono::steady_clock::now();
      }
      if (int err = callOnce(s, in, out, to, int(e), int(n)); err != MPI_SUCCESS)
        return Error{say("mpi {0} on rank {1}: {2}", name(s.op), rank_, mpiErrorText(err))};
    }
    double total_us = 0;
    if (calls > first_timed)
      total_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    if (reduces(s.op) && s.redop == RedOp::avg && out) divideBy(s, out);
    if (out != shared_out) {  // the calls' output back where the engine checks it
      const auto c1 = std::chrono::steady_clock::now();
      std::memcpy(shared_out, out, out_bytes);
      copy_us += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - c1).count();
    }
    return OpTiming{calls > first_timed ? total_us / (calls - first_timed) : 0.0, copy_us, {}};
  }

  Result<RoundsTiming> runRounds(const algo::Schedule& s, int from, int to, const void* in,
                                 void* work, const RunOptions& o) override {
    if (!rounds_) return Error{say("mpi: rounds before init")};
    if (per_op_) per_op_->apply(s.spec.op, s.spec.root);
    return rounds_->run(s, rank_, from, to, in, work, o);
  }

  BackendInfo describe() const override { return mpiInfo(per_op_ ? &*per_op_ : nullptr); }
  BackendCaps caps() const override { return mpiCaps(); }

 private:
  int callOnce(const OpSpec& s, const void* in, void* out, const MpiTypeOp& to, int e, int n) {
    switch (s.op) {
      case Op::broadcast:  // the root's output holds its input (run)
        return MPI_Bcast(out, n * e, to.type, s.root, comm_);
      case Op::scatter:
        return MPI_Scatter(in, e, to.type, out, e, to.type, s.root, comm_);
      case Op::gather:
        return MPI_Gather(in, e, to.type, out, e, to.type, s.root, comm_);
      case Op::reduce:
        return MPI_Reduce(in, out, e, to.type, to.op, s.root, comm_);
      case Op::all_gather:
        return MPI_Allgather(in, e, to.type, out, e, to.type, comm_);
      case Op::reduce_scatter:
        return MPI_Reduce_scatter_block(in, out, e, to.type, to.op, comm_);
      case Op::all_reduce:
        return MPI_Allreduce(in, out, n * e, to.type, to.op, comm_);
      case Op::all_to_all:
        return MPI_Alltoall(in, e, to.type, out, e, to.type, comm_);
    }
    return MPI_ERR_OP;
  }

  void divideBy(const OpSpec& s, void* out) {
    const std::size_t count = outputBytes(s, rank_) / dtypeSize(s.dtype);
    for (std::size_t i = 0; i < count; ++i)
      writeElement(out, s.dtype, i, readElement(out, s.dtype, i) / s.ranks);
  }

  int rank_ = 0, size_ = 1;
  PrivatePages in_pages_, out_pages_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  MpiOps ops_;
  std::unique_ptr<MpiRounds> rounds_;
  std::optional<OpBinding> per_op_;  // collviz's default placement (bindsPerOp)
};

}  // namespace

std::unique_ptr<Communicator> makeMpiCommunicator() { return std::make_unique<MpiCommunicator>(); }

nlohmann::json probeMpi() {
  const BackendInfo b = mpiInfo(nullptr);
  const BackendCaps c = mpiCaps();
  nlohmann::json d = nlohmann::json::array(), r = nlohmann::json::array();
  for (auto t : c.dtypes) d.push_back(std::string(name(t)));
  for (auto x : c.redops) r.push_back(std::string(name(x)));
  nlohmann::json j = {{"name", b.name},
                      {"version", b.version},
                      {"dtypes", d},
                      {"redops", r},
                      {"max_ranks", c.max_ranks},
                      {"max_rank_bytes", c.max_rank_bytes},
                      {"available", true},
                      {"reason", ""},
                      {"gpus", 0}};
  putSaid(j, "devices", b.devices);
  putSaid(j, "transport", b.transport);
  putSaid(j, "notes", b.notes);
  return j;
}

}  // namespace collviz
