#!/bin/bash
# Benchmark (figures, not a test): the watch window (issue 58) under Xvfb
# at 1920x1080, on synthetic captures written the tap's own way
# (capture_synth: 4 ranks' files, MPI_Allreduce records of one double with
# their bytes; no MPI program). COLLVIZ_WATCH_STATS=1 makes the window draw
# frames back to back and print, once a second, its frames, the mean time
# between them (frame_ms: the whole frame, drawn by Mesa's software GL
# here), the watch window's own part (draw_ms), its RSS and the call
# records it has read.
#   1. frame time: an empty capture, then PREFILL (1000000) records in the
#      capture and RATE (200000) more arriving each second: the medians and
#      their ratio (the aim: at most 1.2x).
#   2. memory: BIG (10000000) records: the window's RSS as it reads through
#      them (at 10^6 and at 10^7 records read: bounded, not growing with
#      the capture).
#   usage: watch_window_bench.sh path/to/collviz path/to/capture_synth [PREFILL RATE BIG]
set -u
BIN=$1
SYNTH=$2
PREFILL=${3:-1000000}
RATE=${4:-200000}
BIG=${5:-10000000}
OUT=$(mktemp -d /tmp/collviz-watch-bench.XXXXXX)
TOOLS=""
XVFB_SCREEN=1920x1080x24
. "$(dirname "$0")/../gui/xvfb.sh"
trap 'cleanup; rm -rf "$OUT"' EXIT
export COLLVIZ_WATCH_STATS=1

# Start the window on folder $1 and keep its stats lines in $2.
window() {
  "$BIN" job "$1" --window >"$2" 2>&1 &
  APP=$!
  wait_window
  xdotool windowsize "$WID" 1920 1080
}
stop() { kill "$APP"; wait "$APP" 2>/dev/null; APP=""; }
# Wait (at most $3 s) until a stats line of $1 says at least $2 calls read.
wait_calls() {
  local until=$(($(date +%s) + $3))
  until awk -v n="$2" '/watch window:/ && $NF + 0 >= n { f = 1 } END { exit !f }' "$1"; do
    [ "$(date +%s)" -lt "$until" ] || { echo "FAIL: waited $3 s for $2 calls read: $(tail -2 "$1")"; exit 1; }
    sleep 0.5
  done
}
# The median of field $2 ("frame_ms") over the stats lines after the
# $3-th (those of a second with two frames or more: a time between frames).
median() { grep 'watch window:' "$1" | tail -n +"$(( $3 + 1 ))" | awk -v k="$2" '$5 >= 2 { for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' | sort -n | awk '{ v[NR] = $1 } END { printf "%.3f", NR ? v[int((NR + 1) / 2)] : 0 }'; }
lines() { wc -l < "$1"; }
# Wait (at most $2 s) for $3 more stats lines in $1 than it had at $4.
wait_lines() {
  local until=$(($(date +%s) + $2))
  until [ "$(grep -c 'watch window:' "$1")" -ge $(( $4 + $3 )) ]; do
    [ "$(date +%s)" -lt "$until" ] || { echo "FAIL: waited $2 s for $3 stats lines"; exit 1; }
    sleep 0.5
  done
}

echo "== frame time (Xvfb 1920x1080, Mesa software GL; $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
mkdir -p "$OUT/empty" "$OUT/busy" "$OUT/big"
"$SYNTH" "$OUT/empty" 0 0 0 2>/dev/null || { echo "FAIL: capture_synth"; exit 1; }
window "$OUT/empty" "$OUT/empty.log"
wait_lines "$OUT/empty.log" 30 2 0
n=$(grep -c 'watch window:' "$OUT/empty.log")
wait_lines "$OUT/empty.log" 30 5 "$n"
empty=$(median "$OUT/empty.log" frame_ms "$n")
empty_draw=$(median "$OUT/empty.log" draw_ms "$n")
stop
echo "empty capture: frame $empty ms (watch window's part $empty_draw ms)"

SECS=40
"$SYNTH" "$OUT/busy" "$PREFILL" "$RATE" "$SECS" 2>"$OUT/synth.log" &
SYN=$!
until grep -q "records written" "$OUT/synth.log"; do kill -0 "$SYN" 2>/dev/null || { echo "FAIL: capture_synth ended"; exit 1; }; sleep 0.2; done
window "$OUT/busy" "$OUT/busy.log"
wait_calls "$OUT/busy.log" "$PREFILL" 60
n=$(grep -c 'watch window:' "$OUT/busy.log")
wait_lines "$OUT/busy.log" 30 5 "$n"
busy=$(median "$OUT/busy.log" frame_ms "$n")
busy_draw=$(median "$OUT/busy.log" draw_ms "$n")
grep 'watch window:' "$OUT/busy.log" | tail -6 | sed 's/^/  /'
stop
kill "$SYN" 2>/dev/null; wait "$SYN" 2>/dev/null
echo "$PREFILL records and $RATE a second arriving: frame $busy ms (watch window's part $busy_draw ms)"
awk -v a="$busy" -v b="$empty" 'BEGIN { printf "ratio: %.2fx (aim: at most 1.2x)\n", (b > 0 ? a / b : 0) }'

[ "$BIG" -gt 0 ] || exit 0  # BIG 0: the frame time only
echo "== memory: $BIG records"
"$SYNTH" "$OUT/big" "$BIG" 0 0 2>/dev/null || { echo "FAIL: capture_synth"; exit 1; }
window "$OUT/big" "$OUT/big.log"
wait_calls "$OUT/big.log" "$BIG" 300
wait_lines "$OUT/big.log" 30 2 "$(grep -c 'watch window:' "$OUT/big.log")"
stop
awk '/watch window:/ { for (i = 1; i < NF; i++) if ($i == "rss_kb") r = $(i + 1); print "  records read " $NF ": RSS " r " KiB" }' "$OUT/big.log" |
  awk 'NR == 1 || NR % 3 == 0 { print } { last = $0 } END { print last }' | uniq
echo "capture files: $(du -sh "$OUT/big" | cut -f1)"
