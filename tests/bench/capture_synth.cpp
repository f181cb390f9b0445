// A synthetic capture for the watch window's benchmarks (tests/bench/
// watch_window_bench.sh): no MPI program, the records written the tap's
// own way (tap/capture_writer), one file per rank of a 4-rank job on
// MPI_COMM_WORLD, each call an MPI_Allreduce of one double with its 8 bytes
// in and out. First `prefill` call records (over all ranks) at once, then
// `rate` records a second for `seconds`, then it exits.
//   usage: capture_synth DIR PREFILL RATE SECONDS
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "tap/capture_writer.h"

using namespace collviz::tap;

namespace {

constexpr int kRanks = 4;

struct Rank {
  CaptureWriter w;
  std::uint32_t seq = 0;
};

void comm(Rank& r, int rank) {
  CommRecord c{};
  c.head.type = std::uint8_t(RecordType::comm);
  c.head.sub = std::uint8_t(CommKind::world);
  c.comm = 0;
  c.ranks = kRanks;
  c.my_rank = rank;
  c.color = c.key = -1;
  c.id = kWorldId;
  c.t_ns = nowNs();
  std::int32_t members[kRanks] = {0, 1, 2, 3};
  const Part parts[] = {{&c, sizeof c}, {members, sizeof members}};
  r.w.append(parts, 2);
}

void call(Rank& r, int rank) {
  alignas(8) unsigned char rec[sizeof(CallRecord)] = {};
  auto* c = reinterpret_cast<CallRecord*>(rec);
  c->head.type = std::uint8_t(RecordType::call);
  c->head.sub = std::uint8_t(Func::allreduce);
  c->comm = 0;
  c->seq = r.seq++;
  c->dtype = std::uint8_t(DType::double_);
  c->op = std::uint8_t(ROp::sum);
  c->root = -1;
  c->in_elems = c->out_elems = 1;
  c->dtype_size = 8;
  c->in_kept = c->out_kept = 8;
  c->t_enter = nowNs();
  const double in = rank + 1 + c->seq, out = 10 + 4.0 * c->seq;
  const Part parts[] = {{rec, sizeof rec}, {&in, 8}, {&out, 8}};
  void* at = r.w.append(parts, 3);
  if (at) reinterpret_cast<CallRecord*>(at)->t_exit.store(c->t_enter + 1000, std::memory_order_release);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: capture_synth DIR PREFILL RATE SECONDS\n");
    return 2;
  }
  const long long prefill = std::atoll(argv[2]), rate = std::atoll(argv[3]);
  const double seconds = std::atof(argv[4]);
  std::vector<Rank> ranks(kRanks);
  for (int i = 0; i < kRanks; ++i) {
    WriterOptions o;
    o.dir = argv[1];
    o.bytes_limit = 8;
    o.max_bytes = std::uint64_t(8) << 30;
    if (!ranks[i].w.open(o)) {
      std::fprintf(stderr, "capture_synth: cannot open a capture file in %s\n", argv[1]);
      return 1;
    }
    ranks[i].w.header()->world_rank = i;
    ranks[i].w.header()->world_size = kRanks;
    comm(ranks[i], i);
  }
  for (long long n = 0; n < prefill; ++n) call(ranks[n % kRanks], int(n % kRanks));
  std::fprintf(stderr, "capture_synth: %lld call records written\n", prefill);
  // Then `rate` a second, in 1 ms slices.
  const auto start = std::chrono::steady_clock::now();
  long long done = 0;
  while (rate > 0) {
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (t >= seconds) break;
    const auto due = static_cast<long long>(t * double(rate));
    for (; done < due; ++done) call(ranks[done % kRanks], int(done % kRanks));
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (rate > 0) std::fprintf(stderr, "capture_synth: %lld more at %lld a second\n", done, rate);
  for (Rank& r : ranks) r.w.header()->finalized.store(1);
  return 0;
}
