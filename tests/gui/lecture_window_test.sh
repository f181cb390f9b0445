#!/bin/bash
# Lecture mode in the real window under Xvfb: `collviz lecture` with the
# presenter view, real key presses (xdotool). A step forward and back changes
# the op (window title), the caption area's pixels and the presenter window;
# G then a number jumps; H hides the panels. Prints how long the first step
# took to appear and how long a step with a run-ahead result took (figures,
# not limits). Exit 77 when a tool is missing.
#   usage: lecture_window_test.sh path/to/collviz script output-dir
set -u
BIN=$1
SCRIPT=$2
OUT=${3:-/tmp/collviz-lecture-test}
mkdir -p "$OUT"
TOOLS="import compare convert identify"
. "$(dirname "$0")/xvfb.sh"

now() { date +%s%N; }
t0=$(now)
"$BIN" lecture "$SCRIPT" --presenter --window --lang en >"$OUT/app.log" 2>&1 &
APP=$!
wait_window
# The main window's title names the op and N; the presenter's does not.
for _ in $(seq 1 100); do
  WID=$(xdotool search --name 'N=[0-9]' 2>/dev/null | head -1)
  [ -n "$WID" ] && break
  sleep 0.2
done
[ -n "$WID" ] || fail "no main window titled with the op"
title() { xdotool getwindowname "$WID" 2>/dev/null; }
key() { xdotool key --window "$WID" "$@"; }
# Wait (up to 20 s) until the title names `want`; prints the milliseconds taken.
wait_title() {
  local want=$1 start=$(now)
  for _ in $(seq 1 400); do
    case "$(title)" in *"$want"*) echo $(( ($(now) - start) / 1000000 )); return 0 ;; esac
    sleep 0.05
  done
  echo "FAIL: title '$(title)' never named '$want'" >&2
  exit 1
}
# The bottom band of the main window: the caption (and the status line).
caption_shot() { import -window "$WID" -crop 1600x150+0+760 +repage "$OUT/$1.png"; }
presenter_shot() { import -window "$PWID" "$OUT/$1.png"; }
differ() { compare -metric AE "$OUT/$1.png" "$OUT/$2.png" null: 2>&1 | cut -d' ' -f1 | awk '{ printf "%d", $1 }'; }
# Screenshot once the window stops changing (runs, spinner), at most ~15 s.
settle() {
  for _ in $(seq 1 30); do
    sleep 0.5
    caption_shot .a; sleep 0.3; caption_shot .b
    [ "$(differ .a .b)" = "0" ] && break
  done
}

wait_title "01 Broadcast" >/dev/null
first_ms=$(( ($(now) - t0) / 1000000 ))
echo "figure: first step's window titled 01 Broadcast $first_ms ms after start (process start, workers, fonts, shaders)"
for _ in $(seq 1 100); do
  PWID=$(xdotool search --name '^collviz presenter' 2>/dev/null | head -1)
  [ -n "$PWID" ] && break
  sleep 0.1
done
[ -n "$PWID" ] || fail "no presenter window"
settle; caption_shot step1; presenter_shot p1

key Right
ms=$(wait_title "02 Scatter") || fail "the title never named 02 Scatter"
settle; caption_shot step2; presenter_shot p2
d=$(differ step1 step2)
[ "$d" -gt 500 ] || fail "→ changed only $d caption pixels"
p=$(differ p1 p2)
[ "$p" -gt 500 ] || fail "the presenter window did not follow → ($p pixels changed)"
echo "ok: → went to 02 Scatter in $ms ms; caption changed ($d pixels), presenter followed ($p pixels)"

key Left
wait_title "01 Broadcast" >/dev/null
settle; caption_shot back
b=$(differ step1 back)
[ "$b" -lt 500 ] || fail "← did not bring the first caption back ($b pixels differ)"
echo "ok: ← went back to 01 Broadcast (caption as before)"

key g 1 2 Return
wait_title "08 All-to-all" >/dev/null
echo "ok: G 1 2 Enter jumped to step 12 (08 All-to-all)"
key End
wait_title "All-reduce = Reduce-scatter" >/dev/null
key Home
wait_title "01 Broadcast" >/dev/null
echo "ok: End and Home"

# A step whose run-ahead result is there: how long until the title changed
# and the caption was redrawn (the run itself happened before the key:
# wait until the workers are idle).
wait_workers_idle
key Next
ms=$(wait_title "02 Scatter") || fail "the title never named 02 Scatter"
echo "figure: PgDn to a run-ahead step: title changed after $ms ms (xdotool and X round trips included)"

import -window root "$OUT/with_panels.png"
key h
wait_changed "$OUT/with_panels.png" "$OUT/panels_hidden.png" 20000
h=$(compare -metric AE "$OUT/with_panels.png" "$OUT/panels_hidden.png" null: 2>&1 | cut -d' ' -f1 | awk '{ printf "%d", $1 }')
[ "$h" -gt 20000 ] || fail "H hid nothing ($h pixels changed)"
echo "ok: H hid the panels ($h pixels changed); screenshots in $OUT"
exit 0
