#!/bin/bash
# The idle window: under Xvfb with COLLVIZ_FRAME_LOG (one stderr line per
# frame drawn), nothing happening must draw nothing: after the first run's
# result, no frame over a few seconds. With the background runs on, they stop
# once every op is cached, and then no frame either. Prints the CPU of the
# window plus its workers over 10 s of idling (figures for the README).
# Exit 77 when a tool is missing.
#   usage: idle_test.sh path/to/collviz [output dir] [idle seconds before measuring]
set -u
BIN=$1
OUT=${2:-/tmp/collviz-idle-test}
SETTLE=${3:-20}
rm -rf "$OUT"
mkdir -p "$OUT"
TOOLS=""
. "$(dirname "$0")/xvfb.sh"

frames() { grep -c '^collviz: frame ' "$OUT/app.log"; }
# CPU ticks (user + system) of the app and its worker processes.
ticks() {
  local t=0 p
  for p in $APP $(pgrep -P "$APP"); do
    [ -r /proc/$p/stat ] || continue
    t=$((t + $(awk '{print $14 + $15}' /proc/$p/stat)))
  done
  echo $t
}
# The first run's result on screen (the title says "verified"): start-up is
# over. Quiet alone is not: on a loaded machine the window can wait seconds
# for its workers, drawing nothing, then draw the result (issue 55: three
# start-up frames counted as idle ones). At most 120 s (each look 5 s at most).
wait_result() {
  for _ in $(seq 1 1200); do
    case "$(timeout 5 xdotool getwindowname "$WID" 2>/dev/null)" in *verified*) return 0 ;; esac
    sleep 0.1
  done
  fail "the title never said verified: '$(timeout 5 xdotool getwindowname "$WID" 2>/dev/null)'"
}
# Wait until no frame was drawn for $1 seconds (at most $2 seconds in all).
quiet_for() {
  local last=-1 since=0 waited=0 now
  while [ $waited -lt "$2" ]; do
    now=$(frames)
    if [ "$now" = "$last" ]; then since=$((since + 1)); else since=0; last=$now; fi
    [ $since -ge "$1" ] && return 0
    sleep 1
    waited=$((waited + 1))
  done
  return 1
}

# 1. No background runs: the first result, then nothing.
COLLVIZ_FRAME_LOG=1 COLLVIZ_NO_PREFETCH=1 "$BIN" >"$OUT/app.log" 2>&1 &
APP=$!
wait_window
wait_result
quiet_for 3 60 || fail "the window kept drawing with nothing happening"
before=$(frames)
sleep 4
after=$(frames)
[ "$after" -eq "$before" ] || fail "$((after - before)) frame(s) drawn in 4 s of idling"
# Input still draws: a mouse move over the window.
xdotool mousemove --window "$WID" 400 300
for _ in $(seq 1 50); do [ "$(frames)" -gt "$after" ] && break; sleep 0.1; done
[ "$(frames)" -gt "$after" ] || fail "a mouse move drew no frame within 5 s"
echo "ok: idle without background runs: $before frames to settle, 0 in 4 s; input draws"
kill "$APP"; wait "$APP" 2>/dev/null

# 2. Background runs on: they finish, the window goes quiet, and stays quiet.
COLLVIZ_FRAME_LOG=1 "$BIN" >"$OUT/app.log" 2>&1 &
APP=$!
wait_window
wait_result
quiet_for 5 180 || fail "the background runs never stopped drawing"
sleep "$SETTLE"
before=$(frames)
t0=$(ticks)
sleep 10
t1=$(ticks)
after=$(frames)
[ "$after" -eq "$before" ] || fail "$((after - before)) frame(s) drawn in 10 s of idling"
hz=$(getconf CLK_TCK)
pct=$(awk -v d=$((t1 - t0)) -v hz="$hz" 'BEGIN { printf "%.2f", 100 * d / hz / 10 }')
echo "ok: idle with background runs done: 0 frames in 10 s; CPU of window + workers over 10 s after ${SETTLE} s idle: ${pct} % of one core"
exit 0
