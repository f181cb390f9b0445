#!/bin/bash
# Benchmark (figures, not a test): what the MPI tap adds to each call. An
# 8-byte MPI_Allreduce loop (tap-bench-loop) on N ranks, without the tap and
# with it (LD_PRELOAD, capturing to a temporary folder, 256 bytes kept), the
# two in turn within each round (a slow minute of the machine hits both);
# prints each round's median microseconds a call and the medians of the
# rounds. The aim (issue 54): at most 2 us more a call at N = 4.
# Exit 77 without mpirun, the loop or the tap.
#   usage: tap_bench.sh path/to/tap-bench-loop path/to/libcollviz-tap-mpi.so [rounds (5)] [ranks (4)]
set -u
LOOP=$1 TAP=$2 ROUNDS=${3:-5} N=${4:-4}
MPIRUN=$(command -v mpirun) || { echo "tap_bench: no mpirun on PATH" >&2; exit 77; }
[ -x "$LOOP" ] || { echo "tap_bench: $LOOP is not a program" >&2; exit 77; }
[ -f "$TAP" ] || { echo "tap_bench: no tap at $TAP" >&2; exit 77; }
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
WORK=$(mktemp -d /tmp/collviz-tap-bench.XXXXXX) || exit 1
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/tmp"
export TMPDIR=$WORK/tmp OMPI_MCA_btl_vader_backing_directory=$WORK/tmp
med() { echo "$1" | tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# measure N: ROUNDS rounds of plain then tapped at N ranks; prints them.
measure() {
  local n=$1 plain="" tapped="" k mode extra line us
  echo "tap_bench: N = $n on $(nproc) CPUs, $ROUNDS rounds; load $(cut -d' ' -f1-3 /proc/loadavg)"
  for ((k = 1; k <= ROUNDS; k++)); do
    for mode in plain tap; do
      extra=()
      [ "$mode" = tap ] && extra=(-x LD_PRELOAD="$TAP" -x COLLVIZ_TAP_OUT="$WORK/cap")
      line=$("$MPIRUN" --oversubscribe --bind-to none --mca btl self,vader --stdin none -np "$n" "${extra[@]}" "$LOOP" 2>&1) || {
        echo "tap_bench: the $mode run failed: $line" >&2; exit 1; }
      us=$(echo "$line" | awk '{for (i = 1; i < NF; i++) if ($i == "median") print $(i + 1)}')
      [ -n "$us" ] || { echo "tap_bench: the $mode run printed no time: $line" >&2; exit 1; }
      [ "$mode" = plain ] && plain+="$us " || tapped+="$us "
      rm -rf "$WORK/cap"
    done
    echo "  round $k: plain $(echo $plain | awk '{print $NF}') us, with the tap $(echo $tapped | awk '{print $NF}') us a call"
  done
  local mp mt
  mp=$(med "$plain") mt=$(med "$tapped")
  echo "N = $n, median of $ROUNDS rounds: plain $mp us, with the tap $mt us a call: $(awk -v a="$mt" -v b="$mp" 'BEGIN {printf "%+.3f", a - b}') us"
}
measure "$N"
# One rank: the call returns at once, so the difference is the tap's own
# work a call, without the waiting for other ranks (which, with more ranks
# than CPUs, varies by far more than the tap costs).
measure 1
echo "aim (issue 54): at most +2 us a call at N = 4"
