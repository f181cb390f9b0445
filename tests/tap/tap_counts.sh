#!/bin/bash
# tap_counts.c under the MPI tap on 4 ranks, its capture read by
# tap_counts_check: counts that differ from rank to rank, and a v-form in
# place (issue 56, round four). Exit 77 (skipped, with
# the reason) without mpirun or the tap.
#   usage: tap_counts.sh TAP_LIB TAP_COUNTS_CHECK TAP_COUNTS
set -u
TAP=$1 CHECK=$2 PROG=$3
MPIRUN=$(command -v mpirun) || { echo "tap_counts: skipped: no mpirun on PATH (apt-get install openmpi-bin libopenmpi-dev)"; exit 77; }
[ -f "$TAP" ] || { echo "tap_counts: skipped: no tap library at $TAP (built only with Open MPI)"; exit 77; }
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
WORK=$(mktemp -d /tmp/collviz-tap-counts.XXXXXX) || exit 1
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/tmp"
export TMPDIR=$WORK/tmp OMPI_MCA_btl_vader_backing_directory=$WORK/tmp
"$MPIRUN" --oversubscribe --bind-to none --mca btl self,vader --stdin none -np 4 \
  -x LD_PRELOAD="$TAP" -x COLLVIZ_TAP_OUT="$WORK/cap" "$PROG" >"$WORK/out" 2>&1 \
  || { echo "tap_counts: FAIL: the program with the tap: exit $?: $(cat "$WORK/out")" >&2; exit 1; }
"$CHECK" "$WORK/cap" 4
