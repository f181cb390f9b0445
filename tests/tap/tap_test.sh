#!/bin/bash
# The MPI tap (libcollviz-tap-mpi.so) preloaded into 4 ranks of a program
# of ours: the program's output must be the same with the tap as without,
# and the capture must hold every call as the program made it (tap_check).
#   c:       tap_prog.c (every collective, blocking and nonblocking, in
#            place, derived types, a user op, split/dup/self communicators)
#   fortran: tap_use_mpi.f90 (`use mpi`), tap_mpif.f90 (mpif.h) and
#            tap_f08.f90 (`use mpi_f08`), built here with mpifort
# The C program's tapped run also sets COLLVIZ_TAP_BYTES out of range (the
# default must hold, and a note say so), and runs once more with a capture
# folder that cannot be made (the program must go on, its output the same),
# and under ulimit -v 2500000, where the file's 4 GiB mapping is refused (a
# smaller one must hold the same capture).
#   killed:  tap_killed.c: rank 1 kills itself after three calls; every
#            call that returned is in the capture
#   threads: tap_threads.c: 4 threads a rank call at once on their own
#            communicators (MPI_THREAD_MULTIPLE)
#   cap:     tap-bench-loop (16000 calls) under COLLVIZ_TAP_MAX_MB=1: the
#            program runs on, each file stops at 1 MiB and counts the rest
# Exit 77 (skipped, with the reason) without mpirun, the tap, or mpifort.
#   usage: tap_test.sh c|fortran|killed|threads|cap TAP_LIB TAP_CHECK (PROGRAM | SOURCE_DIR)
set -u
MODE=$1 TAP=$2 CHECK=$3 ARG=$4
MPIRUN=$(command -v mpirun) || { echo "tap_test: skipped: no mpirun on PATH (apt-get install openmpi-bin libopenmpi-dev)"; exit 77; }
[ -f "$TAP" ] || { echo "tap_test: skipped: no tap library at $TAP (built only with Open MPI)"; exit 77; }
if [ "$MODE" = fortran ]; then
  MPIFORT=$(command -v mpifort) || { echo "tap_test: skipped: no mpifort on PATH (apt-get install gfortran)"; exit 77; }
fi
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
WORK=$(mktemp -d /tmp/collviz-tap-test.XXXXXX) || exit 1
trap 'rm -rf "$WORK"' EXIT
# The job's session folder and shared-memory segments in our folder, so a
# failure leaves nothing behind.
mkdir "$WORK/tmp"
export TMPDIR=$WORK/tmp OMPI_MCA_btl_vader_backing_directory=$WORK/tmp
fail() { echo "tap_test: FAIL: $*" >&2; exit 1; }

# Runs PROG plain and with the tap into $WORK/cap-NAME; compares the outputs
# (sorted: the ranks' lines interleave as they come) and checks the capture.
check() {
  local name=$1 prog=$2 kind=$3 lines=$4
  "$MPIRUN" --oversubscribe --bind-to none --mca btl self,vader --stdin none -np 4 "$prog" \
    >"$WORK/$name.plain" 2>"$WORK/$name.plain.err" || fail "$name without the tap: exit $?: $(cat "$WORK/$name.plain.err")"
  "$MPIRUN" --oversubscribe --bind-to none --mca btl self,vader --stdin none -np 4 \
    -x LD_PRELOAD="$TAP" -x COLLVIZ_TAP_OUT="$WORK/cap-$name" ${COLLVIZ_TAP_BYTES:+-x COLLVIZ_TAP_BYTES} "$prog" \
    >"$WORK/$name.tap" 2>"$WORK/$name.tap.err" || fail "$name with the tap: exit $?: $(cat "$WORK/$name.tap.err")"
  local n
  n=$(wc -l <"$WORK/$name.plain")
  [ "$n" -eq "$lines" ] || fail "$name printed $n lines, not $lines: $(cat "$WORK/$name.plain")"
  sort "$WORK/$name.plain" >"$WORK/$name.plain.sorted"
  sort "$WORK/$name.tap" >"$WORK/$name.tap.sorted"
  diff "$WORK/$name.plain.sorted" "$WORK/$name.tap.sorted" >&2 || fail "$name's output differs with the tap"
  "$CHECK" "$WORK/cap-$name" 4 "$kind" || fail "$name's capture (tap_check above)"
  echo "tap_test: $name: the same $n lines with the tap; the capture holds every call"
}

# The C program: a bad COLLVIZ_TAP_BYTES, then a folder that cannot be made.
check_c() {
  export COLLVIZ_TAP_BYTES=banana
  check c "$1" c 95
  unset COLLVIZ_TAP_BYTES
  local notes
  notes=$("$CHECK" "$WORK/cap-c" 4 c --dump | grep -c "note 1: COLLVIZ_TAP_BYTES='banana' is not a whole number from 0 to 1048576: 256 bytes kept")
  [ "$notes" -eq 4 ] || fail "$notes of 4 captures say COLLVIZ_TAP_BYTES=banana was refused"
  "$MPIRUN" --oversubscribe --bind-to none --mca btl self,vader --stdin none -np 4 \
    -x LD_PRELOAD="$TAP" -x COLLVIZ_TAP_OUT=/dev/null/capture "$1" \
    >"$WORK/nofolder.tap" 2>"$WORK/nofolder.err" || fail "with no capture folder: exit $?: $(cat "$WORK/nofolder.err")"
  sort "$WORK/nofolder.tap" | diff "$WORK/c.plain.sorted" - >&2 || fail "the output differs when the capture folder cannot be made"
  echo "tap_test: a bad COLLVIZ_TAP_BYTES is refused in a note; without a folder the program runs as without the tap"
  (ulimit -v 2500000 && "$MPIRUN" --oversubscribe --bind-to none --mca btl self,vader --stdin none -np 4 \
    -x LD_PRELOAD="$TAP" -x COLLVIZ_TAP_OUT="$WORK/cap-ulimit" "$1" >"$WORK/ulimit.tap" 2>"$WORK/ulimit.err") ||
    fail "under ulimit -v 2500000: exit $?: $(cat "$WORK/ulimit.err")"
  sort "$WORK/ulimit.tap" | diff "$WORK/c.plain.sorted" - >&2 || fail "the output differs under ulimit -v"
  "$CHECK" "$WORK/cap-ulimit" 4 c || fail "the capture under ulimit -v 2500000 (tap_check above)"
  echo "tap_test: under ulimit -v 2500000 the capture is whole"
}

case "$MODE" in
  c) check_c "$ARG" ;;
  fortran)
    "$MPIFORT" -o "$WORK/use_mpi" "$ARG/tap_use_mpi.f90" || fail "mpifort tap_use_mpi.f90"
    # mpif.h has no interfaces: one buffer as INTEGER and as DOUBLE PRECISION is allowed.
    "$MPIFORT" -fallow-argument-mismatch -w -o "$WORK/mpif" "$ARG/tap_mpif.f90" || fail "mpifort tap_mpif.f90"
    "$MPIFORT" -o "$WORK/f08" "$ARG/tap_f08.f90" || fail "mpifort tap_f08.f90"
    check use_mpi "$WORK/use_mpi" fortran 21
    check mpif "$WORK/mpif" fortran 21
    check f08 "$WORK/f08" fortran 21
    ;;
  killed)
    # mpirun ends the job with an error when a rank dies: that is expected.
    "$MPIRUN" --oversubscribe --bind-to none --mca btl self,vader --stdin none -np 4 \
      -x LD_PRELOAD="$TAP" -x COLLVIZ_TAP_OUT="$WORK/cap-killed" "$ARG" >"$WORK/killed.out" 2>"$WORK/killed.err" &&
      fail "mpirun exited 0 though rank 1 was killed: $(cat "$WORK/killed.err")"
    [ "$(grep -c 'three calls returned' "$WORK/killed.out")" -ge 2 ] || fail "the ranks did not get to the kill: $(cat "$WORK/killed.out" "$WORK/killed.err")"
    "$CHECK" "$WORK/cap-killed" 4 killed || fail "the killed job's capture (tap_check above)"
    ;;
  threads)
    check threads "$ARG" threads 4
    grep -q "no MPI_THREAD_MULTIPLE" "$WORK/threads.plain" && { echo "tap_test: skipped: this Open MPI gives no MPI_THREAD_MULTIPLE"; exit 77; }
    [ "$(grep -c ' 0 wrong$' "$WORK/threads.tap")" -eq 4 ] || fail "the threads' sums with the tap: $(cat "$WORK/threads.tap")"
    ;;
  cap)
    "$MPIRUN" --oversubscribe --bind-to none --mca btl self,vader --stdin none -np 4 \
      -x LD_PRELOAD="$TAP" -x COLLVIZ_TAP_OUT="$WORK/cap-cap" -x COLLVIZ_TAP_MAX_MB=1 "$ARG" 15 1000 \
      >"$WORK/cap.out" 2>"$WORK/cap.err" || fail "over the size cap: exit $?: $(cat "$WORK/cap.err")"
    grep -q "median" "$WORK/cap.out" || fail "the loop did not finish: $(cat "$WORK/cap.out")"
    "$CHECK" "$WORK/cap-cap" 4 cap || fail "the capped capture (tap_check above)"
    ;;
  *) fail "mode $MODE: c, fortran, killed, threads or cap" ;;
esac
