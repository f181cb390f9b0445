#!/bin/bash
# Progress and cancel under Xvfb: runs the ranks make slow on purpose
# (COLLVIZ_FAULT=delay_ms: every call sleeps) show what they are doing in the
# status line, with a Cancel button; Esc ends the run: the title says
# "cancelled" and no rank process is left; Space runs it again, and the
# Cancel button ends that one too. Screenshots in the output dir.
# Exit 77 when a tool is missing.
#   usage: cancel_test.sh path/to/collviz [output dir]
set -u
BIN=$1
OUT=${2:-/tmp/collviz-cancel-test}
rm -rf "$OUT"
mkdir -p "$OUT"
TOOLS="import"
. "$(dirname "$0")/xvfb.sh"

COLLVIZ_NO_PREFETCH=1 COLLVIZ_FAULT=delay_ms:30000 "$BIN" >"$OUT/app.log" 2>&1 &
APP=$!
wait_window
title() { xdotool getwindowname "$WID"; }
ranks() { pgrep -c -x -P "$APP" collviz-rank; }
# Wait up to $2 tenths of a second for the title to contain $1 (and, with a
# third argument, for that many rank processes).
wait_for() {
  for _ in $(seq 1 "$2"); do
    case "$(title)" in *"$1"*) [ -z "${3:-}" ] || [ "$(ranks)" = "$3" ] && return 0 ;; esac
    sleep 0.1
  done
  return 1
}

# The button sits right after the progress text in the status line (shown
# once a run has taken 0.3 s): found by its fill (ImGui's button colour,
# light theme) right of the sidebar, in the status rows (below the grid), a
# button-high box. Takes
# screenshots into $1 until it is there, up to 10 s; sets bx by bw bh.
fill="rgb(216,222,229)"
wait_button() {
  for _ in $(seq 1 50); do
    import -window root "$1"
    pos=$(convert "$1" -crop 1280x155+320+845 +repage -alpha off -fuzz 1% \
            -fill white +opaque "$fill" -fill black -opaque "$fill" -negate -trim \
            -format '%X %Y %w %h' info: 2>/dev/null)
    read -r bx by bw bh <<<"${pos//+/}"
    [ -n "${bx:-}" ] && [ "${bw:-0}" -gt 20 ] && [ "${bw:-0}" -lt 300 ] && [ "${bh:-99}" -lt 25 ] && return 0
    sleep 0.2
  done
  return 1
}

wait_for "· running" 200 4 || fail "no run in flight with 4 ranks: title '$(title)', $(ranks) ranks"
wait_button "$OUT/progress.png" || fail "no progress line with a Cancel button (${pos:-nothing of its colour})"
start=$(date +%s%N)
xdotool key --window "$WID" Escape
wait_for "· cancelled" 50 0 || fail "Esc: title '$(title)', $(ranks) rank process(es) left"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
import -window root "$OUT/cancelled.png"
echo "ok: Esc ended the run in $ms ms: title '$(title)', no rank process left"

# Space runs it again; the status line's Cancel button ends it too.
xdotool key --window "$WID" space
wait_for "· running" 200 4 || fail "Space: no run in flight: title '$(title)'"
wait_button "$OUT/progress2.png" ||
  fail "the Cancel button was not found in the status line (${pos:-nothing of its colour})"
xdotool mousemove --window "$WID" $((320 + bx + bw / 2)) $((845 + by + bh / 2)) click 1
wait_for "· cancelled" 50 0 || fail "Cancel button: title '$(title)', $(ranks) rank process(es) left"
import -window root "$OUT/cancelled2.png"
echo "ok: the Cancel button ended the second run"
grep -q "terminate\|Segmentation\|Abort" "$OUT/app.log" && fail "the app log shows a crash"
echo "PASS"
