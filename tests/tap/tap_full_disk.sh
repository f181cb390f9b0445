#!/bin/bash
# The MPI tap on a genuinely full disk (issue 54): the capture folder is a
# 512 KiB tmpfs, mounted in a mount namespace of this test's own (unshare
# --mount --propagation private: the mount goes with the namespace, even if
# the test dies), and tap-bench-loop makes about 12000 calls a rank on 2
# ranks, far more than fit. The program must run as without the tap (its
# output the same but for the figure it measures, its exit status 0), and
# each file must hold whole records up to its committed and say it lost
# records to a full disk (tap_check full).
# Exit 77 (skipped, with the reason) when not root, when the namespace or
# the mount is refused, or without mpirun or the tap.
#   usage: tap_full_disk.sh TAP_LIB TAP_CHECK TAP_BENCH_LOOP
set -u
TAP=$1 CHECK=$2 LOOP=$3
skip() { echo "tap_full_disk: skipped: $*"; exit 77; }
fail() { echo "tap_full_disk: FAIL: $*" >&2; exit 1; }

if [ -z "${COLLVIZ_TAP_FULL_DISK_INSIDE:-}" ]; then
  MPIRUN=$(command -v mpirun) || skip "no mpirun on PATH (apt-get install openmpi-bin libopenmpi-dev)"
  [ -f "$TAP" ] || skip "no tap library at $TAP (built only with Open MPI)"
  [ "$(id -u)" = 0 ] || skip "mounting a small tmpfs needs root (running as uid $(id -u))"
  command -v unshare >/dev/null || skip "no unshare on PATH (apt-get install util-linux)"
  unshare --mount --propagation private true 2>/dev/null || skip "unshare --mount is not allowed here (a container without CAP_SYS_ADMIN?)"
  WORK=$(mktemp -d /tmp/collviz-tap-full.XXXXXX) || exit 1
  trap 'rm -rf "$WORK"' EXIT
  mkdir "$WORK/tmp" "$WORK/cap"
  # The job's session folder and shared-memory segments in our folder (not
  # on the small disk), so a failure leaves nothing behind.
  export TMPDIR=$WORK/tmp OMPI_MCA_btl_vader_backing_directory=$WORK/tmp
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  COLLVIZ_TAP_FULL_DISK_INSIDE=$WORK unshare --mount --propagation private "$0" "$@"
  exit $?
fi

# Inside the namespace.
WORK=$COLLVIZ_TAP_FULL_DISK_INSIDE
MPIRUN=$(command -v mpirun)
mount -t tmpfs -o size=512k,mode=0700 collviz-tap-full "$WORK/cap" 2>"$WORK/mount.err" ||
  skip "a tmpfs cannot be mounted here: $(cat "$WORK/mount.err")"
run() {
  "$MPIRUN" --oversubscribe --bind-to none --mca btl self,vader --stdin none -np 2 "$@" "$LOOP" 5 2000
}
run >"$WORK/plain" 2>"$WORK/plain.err" || fail "without the tap: exit $?: $(cat "$WORK/plain.err")"
run -x LD_PRELOAD="$TAP" -x COLLVIZ_TAP_OUT="$WORK/cap" >"$WORK/tap" 2>"$WORK/tap.err" ||
  fail "with the tap on a full disk: exit $?: $(cat "$WORK/tap.err")"
# The one line the loop prints holds the time it measured: compared without it.
for f in plain tap; do sed 's/median [0-9.]* us/median T us/' "$WORK/$f" >"$WORK/$f.same"; done
grep -q "median T us a call (5 batches of 2000)" "$WORK/plain.same" || fail "the loop's output: $(cat "$WORK/plain")"
diff "$WORK/plain.same" "$WORK/tap.same" >&2 || fail "the output differs with the tap on a full disk"
df -k "$WORK/cap" | tail -1
"$CHECK" "$WORK/cap" 2 full || fail "the capture on the full disk (tap_check above)"
echo "tap_full_disk: the same output and exit status with the tap on a full 512 KiB disk; the capture is whole and counts what it lost"
