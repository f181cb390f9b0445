// A plain MPI loop: the collective called back to back on MPI_COMM_WORLD with
// nothing around it, timed as nccl-tests and `collviz bench` time it (the
// slowest rank's average per call after a warm-up), for the MPI benchmark
// (tests/bench/mpi_bench.sh) to set the engine's figures against.
//
//   mpirun -np N mpi-plain-loop OP SIZE [ITERS [WARMUP]]
//   OP: all_reduce | all_gather | broadcast; SIZE in bytes (nccl-tests' size:
//   the largest buffer of a rank); f32, sum, root 0.
// Prints one line on rank 0: "OP N SIZE TIME_US BUSBW_GBS".
//
// MPI_PLAIN_LOOP_CPUS=c0,c1,...: rank r binds itself to CPU c[r] before
// its calls (the thread that makes them), for the placement benchmark
// (tests/bench/mpi_placement.sh); unset, the ranks stay as mpirun left them.
#include <mpi.h>
#include <sched.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, n = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (argc < 3) {
    if (rank == 0) std::fprintf(stderr, "usage: mpi-plain-loop OP SIZE [ITERS [WARMUP]]\n");
    MPI_Finalize();
    return 2;
  }
  if (const char* cpus = std::getenv("MPI_PLAIN_LOOP_CPUS"); cpus && *cpus) {
    std::vector<int> list;
    for (const char* p = cpus; *p;) {
      char* end = nullptr;
      const long c = std::strtol(p, &end, 10);
      if (end == p || c < 0 || c >= CPU_SETSIZE) {
        if (rank == 0) std::fprintf(stderr, "mpi-plain-loop: MPI_PLAIN_LOOP_CPUS='%s' is not a list of CPUs\n", cpus);
        MPI_Finalize();
        return 2;
      }
      list.push_back(int(c));
      p = *end == ',' ? end + 1 : end;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(list[std::size_t(rank) % list.size()], &set);
    if (::sched_setaffinity(0, sizeof set, &set) != 0) {
      std::fprintf(stderr, "mpi-plain-loop: rank %d: cannot bind to CPU %d\n", rank, list[std::size_t(rank) % list.size()]);
      MPI_Finalize();
      return 2;
    }
  }
  const std::string op = argv[1];
  const long long size = std::atoll(argv[2]);
  const int iters = argc > 3 ? std::atoi(argv[3]) : 20, warmup = argc > 4 ? std::atoi(argv[4]) : 5;
  const bool gather = op == "all_gather";
  if (op != "all_reduce" && op != "broadcast" && !gather) {
    if (rank == 0) std::fprintf(stderr, "mpi-plain-loop: unknown op %s\n", op.c_str());
    MPI_Finalize();
    return 2;
  }
  const int count = int(gather ? size / (4LL * n) : size / 4);
  std::vector<float> in(std::size_t(count) * (gather ? 1 : 1), 1.0f);
  std::vector<float> out(std::size_t(count) * (gather ? n : 1), 0.0f);
  auto call = [&] {
    if (op == "all_reduce") MPI_Allreduce(in.data(), out.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    else if (gather) MPI_Allgather(in.data(), count, MPI_FLOAT, out.data(), count, MPI_FLOAT, MPI_COMM_WORLD);
    else MPI_Bcast(out.data(), count, MPI_FLOAT, 0, MPI_COMM_WORLD);
  };
  for (int i = 0; i < warmup; ++i) call();
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i) call();
  double us = (MPI_Wtime() - t0) * 1e6 / iters, slowest = 0;
  MPI_Reduce(&us, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    const double factor = op == "all_reduce" ? 2.0 * (n - 1) / n : gather ? double(n - 1) / n : 1.0;
    const double bytes = double(count) * 4 * (gather ? n : 1);
    std::printf("%s %d %lld %.3f %.4f\n", op.c_str(), n, size, slowest,
                slowest > 0 ? bytes / (slowest * 1e-6) / 1e9 * factor : 0.0);
  }
  MPI_Finalize();
  return 0;
}
