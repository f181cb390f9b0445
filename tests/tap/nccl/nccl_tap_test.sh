#!/bin/bash
# The NCCL tap (libcollviz-tap-nccl.so) preloaded into nccl_program (a
# program of ours) on the stand-in CUDA runtime and NCCL (tests/standin: a
# TEST DOUBLE on host memory, not a GPU); ctest labels standin and tap.
#   ops:      every wrapped op, send/recv in a group and a split on 4 ranks:
#             the program's results the same with the tap as without, and
#             nccl_check finds every call with the bytes the program had
#             (and the split's members); `collviz job` reads the capture;
#             with a capture folder that cannot be made, the results the same
#   hang:     3 ranks, rank 1 skips the second all-reduce: `collviz job`
#             says ranks 0 and 2 wait in it and rank 1 never came
#   killed:   the stand-in kills rank 1 inside its fourth all-reduce: its
#             three returned calls are in the capture, finished
#   copyfail: the tap's own cudaMemcpyAsync fails once on rank 0, and on
#             rank 1 the first cudaEventQuery of the tap's poll: each said
#             in the capture (no bytes kept where they could be wrong), the
#             program's results unchanged and its cudaGetLastError clean
#   graph:    the second of three all-reduces made while its stream
#             captures a CUDA graph: flagged, nothing copied, the rest kept
#   types:    an all-reduce in each datatype ncclInt8 to ncclBfloat16: each
#             one's code, size and reduce op as NCCL numbers them, its bytes
#   plain:    a program linked to neither NCCL nor CUDA (sh) runs as without
#             the tap, and no capture is made
#   usage: nccl_tap_test.sh MODE TAP PROGRAM CHECK COLLVIZ
set -u
MODE=$1 TAP=$2 PROG=$3 CHECK=$4 COLLVIZ=$5
WORK=$(mktemp -d /tmp/collviz-nccl-tap-test.XXXXXX) || exit 1
trap 'rm -rf "$WORK"' EXIT
fail() { echo "nccl_tap_test: FAIL: $*" >&2; exit 1; }

# run NAME N [ENV...]: the program plain into $WORK/plain-NAME, then with the
# tap into $WORK/tap-NAME (capture: $WORK/cap-NAME).
run() {
  local name=$1 n=$2
  shift 2
  mkdir -p "$WORK/plain-$name" "$WORK/tap-$name"
  env "$@" "$PROG" "$MODE" "$n" "$WORK/plain-$name" || fail "$MODE: the program alone exited $?"
  env "$@" LD_PRELOAD="$TAP" COLLVIZ_TAP_OUT="$WORK/cap-$name" "$PROG" "$MODE" "$n" "$WORK/tap-$name" ||
    fail "$MODE: the program under the tap exited $?"
  for f in "$WORK/plain-$name"/${COMPARE:-rank-*.txt}; do
    cmp -s "$f" "$WORK/tap-$name/${f##*/}" || fail "$MODE: ${f##*/} differs with the tap"
  done
  "$CHECK" "$MODE" "$WORK/cap-$name" "$WORK/tap-$name" "$n" || fail "$MODE: the capture is not what the program made"
}

case "$MODE" in
  ops)
    run ops 4
    "$COLLVIZ" job "$WORK/cap-ops" --json --all > "$WORK/job.json" || fail "ops: collviz job could not read the capture"
    grep -q ncclAllReduce "$WORK/job.json" || fail "ops: collviz job's JSON names no ncclAllReduce"
    # A healthy run: every rank agrees on every call (broadcast's and reduce's counts said alike on every rank).
    "$COLLVIZ" job "$WORK/cap-ops" > "$WORK/job.txt" 2>&1
    grep -q "^verdict: no collective waits" "$WORK/job.txt" && ! grep -q disagree "$WORK/job.txt" ||
      { cat "$WORK/job.txt"; fail "ops: collviz job finds fault with a healthy run"; }
    # 64 bytes kept: the first all-reduce's 400 bytes cut to 64.
    mkdir -p "$WORK/tap-small"
    LD_PRELOAD="$TAP" COLLVIZ_TAP_OUT="$WORK/cap-small" COLLVIZ_TAP_BYTES=64 "$PROG" ops 4 "$WORK/tap-small" ||
      fail "ops: the program under COLLVIZ_TAP_BYTES=64 exited $?"
    "$CHECK" ops "$WORK/cap-small" "$WORK/tap-small" 4 || fail "ops: COLLVIZ_TAP_BYTES=64 not kept"
    # A capture folder that cannot be made: the program goes on, its results the same.
    mkdir -p "$WORK/tap-nofolder"
    LD_PRELOAD="$TAP" COLLVIZ_TAP_OUT=/proc/collviz-no-such-folder "$PROG" ops 4 "$WORK/tap-nofolder" ||
      fail "ops: the program with an unusable capture folder exited $?"
    for f in "$WORK/plain-ops"/rank-*.txt; do
      cmp -s "$f" "$WORK/tap-nofolder/${f##*/}" || fail "ops: ${f##*/} differs with an unusable capture folder"
    done
    ;;
  hang)
    run hang 3
    "$COLLVIZ" job "$WORK/cap-hang" > "$WORK/job.txt" 2>&1
    grep -q "rank 1 never entered all_reduce #1" "$WORK/job.txt" || { cat "$WORK/job.txt"; fail "hang: collviz job's verdict does not name rank 1"; }
    echo "collviz job says:"
    cat "$WORK/job.txt"
    ;;
  killed)
    # Ranks 0 and 2 are ended wherever they are once rank 1 died: only rank
    # 1's results are the same run to run.
    COMPARE=rank-1.txt run killed 3 COLLVIZ_STANDIN_FAULT=r1/ncclAllReduce#4=kill
    ;;
  copyfail)
    run copyfail 2 COLLVIZ_STANDIN_FAULT=r0/cudaMemcpyAsync#3=cudaErrorInvalidValue,r1/cudaEventQuery#1=cudaErrorLaunchFailure
    ;;
  graph)
    run graph 2
    ;;
  types)
    run types 2
    ;;
  plain)
    out=$(LD_PRELOAD="$TAP" COLLVIZ_TAP_OUT="$WORK/cap" sh -c 'echo unchanged; exit 3')
    status=$?
    [ "$out" = unchanged ] && [ "$status" = 3 ] || fail "plain: sh said '$out' and exited $status (wanted 'unchanged', 3)"
    [ ! -e "$WORK/cap" ] || fail "plain: a capture was made for a program without NCCL"
    ;;
  *) fail "unknown mode $MODE (ops, hang, killed, copyfail, graph, types, plain)" ;;
esac
echo "nccl_tap_test $MODE: ok"
