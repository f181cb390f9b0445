#!/bin/bash
# Benchmark (figures, not a test): a real program with the tap in its ranks
# and the viewer live. LAMMPS's LJ melt (tests/watch/melt.in) on 4 ranks,
# plain (mpirun alone) against `collviz watch` (the tap preloaded, the
# capture folder read every 50 ms), the two alternating run by run so a slow
# minute of the machine hits both alike; prints each wall time, the median
# of each and their ratio (the aim: <= 1.05x). Exit 77 without mpirun, lmp
# or the tap.
#   usage: watch_lammps.sh path/to/collviz [runs (5)] [steps (300)]
set -u
COLLVIZ=$(realpath "${1:?usage: watch_lammps.sh path/to/collviz [runs] [steps]}") || exit 1
RUNS=${2:-5}
STEPS=${3:-300}
here=$(cd "$(dirname "$0")" && pwd)
command -v mpirun > /dev/null || { echo "watch_lammps: no mpirun on PATH" >&2; exit 77; }
command -v lmp > /dev/null || { echo "watch_lammps: no lmp on PATH (apt-get install lammps)" >&2; exit 77; }
"$COLLVIZ" tap-path > /dev/null || { echo "watch_lammps: the tap is not built" >&2; exit 77; }
root=()
[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
work=$(mktemp -d /tmp/watch_lammps.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
job=(mpirun --oversubscribe "${root[@]}" -n 4 lmp -in "$here/../watch/melt.in" -log none -nocite -var steps "$STEPS")

wall() {  # wall seconds of the command
  local t0 t1
  t0=$(date +%s%N)
  "$@" > out.txt 2> err.txt || { echo "watch_lammps: failed: $* ($(tail -3 err.txt))" >&2; exit 1; }
  t1=$(date +%s%N)
  echo "scale=3; ($t1 - $t0) / 1000000000" | bc
}
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

echo "watch_lammps: LAMMPS melt, 4000 atoms, $STEPS steps, 4 ranks on $(nproc) CPUs; $RUNS runs each, alternating; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "  plain:   ${job[*]}"
echo "  watched: $COLLVIZ watch --out DIR -- ${job[*]}"
wall "${job[@]}" > /dev/null || exit 1  # a first run warms the page cache (not counted)
plain=() watched=()
for ((i = 1; i <= RUNS; i++)); do
  p=$(wall "${job[@]}") || exit 1
  w=$(wall "$COLLVIZ" watch --out "$work/cap$i" -- "${job[@]}") || exit 1
  calls=$(grep 'exit status' err.txt | grep -o '[0-9]* calls' | head -1)
  echo "  run $i: plain $p s, watched $w s ($calls)"
  plain+=("$p")
  watched+=("$w")
  rm -rf "$work/cap$i"
done
mp=$(median "${plain[@]}")
mw=$(median "${watched[@]}")
echo "median: plain $mp s, watched $mw s, ratio $(echo "scale=3; $mw / $mp" | bc)x (aim <= 1.05x)"
