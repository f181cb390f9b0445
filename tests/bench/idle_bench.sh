#!/bin/bash
# Benchmark (figures, not a test): the idle window and its ranks. collviz
# under Xvfb (the default window: its background runs start the Gloo ranks
# and cache every op), left until it draws nothing for 5 s plus SETTLE
# seconds, then measured for SECONDS_ (30): the CPU time each process ran
# (/proc/PID/task/*/schedstat, nanoseconds) and its wake-ups (the threads'
# context switches, /proc/PID/task/*/status), per process and in all, as a
# share of one core. Exit 77 when a tool is missing.
#   usage: idle_bench.sh path/to/collviz [seconds (30)] [settle seconds (10)]
#   IDLE_STRACE=1: also `strace -c -f` each process over the same window
#   (what the wake-ups are; strace slows what it traces, so the CPU
#   figures of such a run are not the idle figure).
set -u
BIN=$1
SECONDS_=${2:-30}
SETTLE=${3:-10}
OUT=$(mktemp -d /tmp/collviz-idle-bench.XXXXXX)
TOOLS=""
. "$(dirname "$0")/../gui/xvfb.sh"
trap 'cleanup; rm -rf "$OUT"' EXIT

frames() { grep -c '^collviz: frame ' "$OUT/app.log"; }
# The window and every process below it (ranks, mpirun, helpers).
tree() {
  local p=$1 c
  echo "$p"
  for c in $(pgrep -P "$p"); do tree "$c"; done
}
ns() {  # nanoseconds run by all threads of $1
  local t s=0 a
  for t in /proc/$1/task/*/schedstat; do read -r a _ <"$t" 2>/dev/null && s=$((s + a)); done
  echo $s
}
switches() {  # context switches of all threads of $1 (voluntary + not)
  awk '/ctxt_switches/ { s += $2 } END { print s + 0 }' /proc/$1/task/*/status 2>/dev/null
}

COLLVIZ_FRAME_LOG=1 "$BIN" >"$OUT/app.log" 2>&1 &
APP=$!
wait_window
quiet=0
for _ in $(seq 1 180); do
  a=$(frames); sleep 1
  if [ "$(frames)" = "$a" ]; then quiet=$((quiet + 1)); else quiet=0; fi
  [ $quiet -ge 5 ] && break
done
[ $quiet -ge 5 ] || fail "the window kept drawing for 3 minutes"
sleep "$SETTLE"
PIDS=$(tree "$APP")
declare -A N0 W0
for p in $PIDS; do N0[$p]=$(ns "$p"); W0[$p]=$(switches "$p"); done
f0=$(frames)
TRACERS=""
if [ "${IDLE_STRACE:-0}" = 1 ]; then
  for p in $PIDS; do
    timeout -s INT "$SECONDS_" strace -c -f -p "$p" -o "$OUT/strace.$p" 2>/dev/null &
    TRACERS="$TRACERS $!"
  done
fi
sleep "$SECONDS_"
for t in $TRACERS; do wait "$t" 2>/dev/null; done
f1=$(frames)
total=0
printf 'idle_bench: %s s after %s s quiet; load %s\n' "$SECONDS_" "$SETTLE" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '  %-8s %-14s %12s %10s %12s\n' pid process "cpu ms" "% core" "wake-ups/s"
for p in $PIDS; do
  [ -r /proc/$p/comm ] || continue
  d=$(( $(ns "$p") - N0[$p] )); w=$(( $(switches "$p") - W0[$p] ))
  total=$((total + d))
  awk -v p="$p" -v c="$(cat /proc/$p/comm)" -v d=$d -v w=$w -v s="$SECONDS_" \
    'BEGIN { printf "  %-8s %-14s %12.1f %10.3f %12.1f\n", p, c, d / 1e6, 100 * d / 1e9 / s, w / s }'
  if [ -s "$OUT/strace.$p" ]; then sed -n '1,12p' "$OUT/strace.$p" | sed 's/^/      /'; fi
done
awk -v d=$total -v s="$SECONDS_" -v f=$((f1 - f0)) \
  'BEGIN { printf "idle: window + ranks %.3f %% of one core over %d s (%d frames drawn); aim < 0.5 %%\n", 100 * d / 1e9 / s, s, f }'
