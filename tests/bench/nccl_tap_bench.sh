#!/bin/bash
# Benchmark (figures, not a test): what the NCCL tap adds to each NCCL call,
# on the stand-in CUDA runtime and NCCL (tests/standin: a TEST DOUBLE on
# host memory, not a GPU). nccl_tap_bench_loop's 8-byte ncclAllReduce loop
# without the tap and with it (LD_PRELOAD, capturing to a temporary folder,
# 256 bytes kept), the two in turn within each round; prints each round's
# median microseconds a call and the medians of the rounds, for the calls
# alone (enqueue: the program thread's cost) and each followed by
# cudaStreamSynchronize (sync: the op's whole time, the tap's copies and
# event included), by the clock and by the calling thread's own CPU time.
# The aim (issue 59): at most 2 us more a call. COLLVIZ_TAP_BYTES=0 in the
# environment measures the tap without its copies (its event only).
#   usage: nccl_tap_bench.sh path/to/nccl_tap_bench_loop path/to/libcollviz-tap-nccl.so STANDIN_DIR [rounds (5)] [ranks (2)]
set -u
LOOP=$1 TAP=$2 STANDIN=$3 ROUNDS=${4:-5} N=${5:-2}
[ -x "$LOOP" ] || { echo "nccl_tap_bench: $LOOP is not a program" >&2; exit 77; }
[ -f "$TAP" ] || { echo "nccl_tap_bench: no tap at $TAP" >&2; exit 77; }
WORK=$(mktemp -d /tmp/collviz-nccl-tap-bench.XXXXXX) || exit 1
trap 'rm -rf "$WORK"' EXIT
export COLLVIZ_STANDIN=1 LD_LIBRARY_PATH=$STANDIN
med() { echo "$1" | tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
measure() {
  local kind=$1 plain="" tapped="" pcpu="" tcpu="" k mode line us cpu
  echo "nccl_tap_bench: $kind, N = $N on $(nproc) CPUs, $ROUNDS rounds; load $(cut -d' ' -f1-3 /proc/loadavg)"
  for ((k = 1; k <= ROUNDS; k++)); do
    for mode in plain tap; do
      if [ "$mode" = tap ]; then
        line=$(LD_PRELOAD="$TAP" COLLVIZ_TAP_OUT="$WORK/cap" "$LOOP" "$kind" "$N" 2>&1)
      else
        line=$("$LOOP" "$kind" "$N" 2>&1)
      fi || { echo "nccl_tap_bench: the $mode run failed: $line" >&2; exit 1; }
      us=$(echo "$line" | awk '{for (i = 1; i < NF; i++) if ($i == "median") print $(i + 1)}')
      cpu=$(echo "$line" | awk '{for (i = 1; i < NF; i++) if ($i == "cpu") print $(i + 1)}')
      [ -n "$us" ] && [ -n "$cpu" ] || { echo "nccl_tap_bench: the $mode run printed no time: $line" >&2; exit 1; }
      if [ "$mode" = plain ]; then plain+="$us " pcpu+="$cpu "; else tapped+="$us " tcpu+="$cpu "; fi
      rm -rf "$WORK/cap"
    done
    echo "  round $k: plain $(echo $plain | awk '{print $NF}') us (cpu $(echo $pcpu | awk '{print $NF}')), with the tap $(echo $tapped | awk '{print $NF}') us (cpu $(echo $tcpu | awk '{print $NF}')) a call"
  done
  local mp mt cp ct
  mp=$(med "$plain") mt=$(med "$tapped") cp=$(med "$pcpu") ct=$(med "$tcpu")
  echo "$kind, N = $N, median of $ROUNDS rounds: plain $mp us, with the tap $mt us a call: $(awk -v a="$mt" -v b="$mp" 'BEGIN {printf "%+.3f", a - b}') us"
  echo "$kind, N = $N, the thread's CPU: plain $cp us, with the tap $ct us a call: $(awk -v a="$ct" -v b="$cp" 'BEGIN {printf "%+.3f", a - b}') us"
}
measure enqueue
measure sync
echo "aim (issue 59): at most +2 us a call (on the stand-in: a test double, not a GPU)"
