#!/bin/bash
# Benchmark (figures, not a test): where 4 ranks sit on 2 CPUs, and how
# fast MPI's own calls run there. The plain MPI loop (mpi-plain-loop: the
# call back to back, the slowest rank's average) with its ranks unbound,
# then bound two to a CPU in each of the three pairings:
#   0,0,1,1  neighbours from rank 0 share a CPU (collviz's broadcast, root 0)
#   0,1,0,1  rank r on CPU r mod 2 (collviz's all_reduce and all_gather)
#   0,1,1,0  ranks 1,2 on one CPU, 0,3 on the other
# for broadcast, all_gather and all_reduce at 16 and 64 MiB, the placements
# in turn within each round (a slow minute of the machine hits them alike);
# prints each placement's times per round and their median, in us a call.
# Exit 77 without mpirun or mpi-plain-loop, or with fewer than 2 CPUs.
#   usage: mpi_placement.sh path/to/mpi-plain-loop [rounds (3)] [ops (broadcast,all_gather,all_reduce)]
set -u
LOOP=$1
ROUNDS=${2:-3}
OPS=${3:-broadcast,all_gather,all_reduce}
MPIRUN=$(command -v mpirun) || { echo "mpi_placement: no mpirun on PATH" >&2; exit 77; }
[ -x "$LOOP" ] || { echo "mpi_placement: $LOOP is not a program" >&2; exit 77; }
[ "$(nproc)" -ge 2 ] || { echo "mpi_placement: needs 2 CPUs, this machine has $(nproc)" >&2; exit 77; }
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
PLACES="none 0,0,1,1 0,1,0,1 0,1,1,0"
echo "mpi_placement: N = 4 on CPUs 0 and 1 ($(nproc) CPUs here), f32, root 0, $ROUNDS rounds; load $(cut -d' ' -f1-3 /proc/loadavg)"
for op in ${OPS//,/ }; do
  for size in 16777216 67108864; do
    iters=$((size == 16777216 ? 30 : 8))
    [ "$op" = all_reduce ] && iters=$((iters / 2 > 2 ? iters / 2 : 2))
    declare -A times=()
    for ((k = 0; k < ROUNDS; k++)); do
      for place in $PLACES; do
        cpus=$([ "$place" = none ] && echo "" || echo "$place")
        line=$(MPI_PLAIN_LOOP_CPUS=$cpus "$MPIRUN" --oversubscribe --bind-to none --mca btl self,vader \
               --stdin none -x MPI_PLAIN_LOOP_CPUS -np 4 "$LOOP" "$op" "$size" "$iters" 1 2>&1) || {
          echo "mpi_placement: $op $size at $place failed: $line" >&2; exit 1; }
        us=$(echo "$line" | awk -v op="$op" '$1 == op && NF == 5 {printf "%.0f", $4}')
        [ -n "$us" ] || { echo "mpi_placement: $op $size at $place printed no time: $line" >&2; exit 1; }
        times[$place]+="$us "
      done
    done
    for place in $PLACES; do
      med=$(echo "${times[$place]}" | tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
      printf "%-10s %3s MiB  %-8s  median %8s us   rounds: %s\n" "$op" $((size >> 20)) "$place" "$med" "${times[$place]}"
    done
    unset times
  done
done
