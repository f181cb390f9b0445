#!/bin/bash
# File → Open job traces… in the real window under Xvfb: `collviz job FILE
# --window` opens the window with the job read, and its job window draws the
# figure: the picture differs from the plain window's, and the highlight of
# the nccl-tests size with wrong values (the SVG export's same shapes) is on
# screen.
#   usage: job_window_test.sh path/to/collviz fixtures_dir [output dir]
set -u
BIN=$1
FIX=$2
OUT=${3:-/tmp/collviz-gui-job}
mkdir -p "$OUT"
TOOLS="import compare convert"
. "$(dirname "$0")/xvfb.sh"

JOB="$FIX/nccl_tests_wrong_srun.txt"
"$BIN" export --job "$JOB" -o "$OUT/figure.svg" >/dev/null || fail "export --job failed"
BAD=$(grep -o '<rect class="wrong"[^>]* fill="#[0-9a-f]*"' "$OUT/figure.svg" | grep -o 'fill="#[0-9a-f]*"' | grep -o '#[0-9a-f]\{6\}')
[ -n "$BAD" ] || fail "no highlighted nccl-tests row (a size with wrong values) in the exported figure"

count() { convert "$1" -format %c histogram:info:- | grep -i "$2" | awk '{ s += $1 } END { printf "%d", s }'; }

"$BIN" >"$OUT/plain.log" 2>&1 &
APP=$!
wait_window
wait_drawn "$OUT/plain.png"
kill "$APP"; wait "$APP" 2>/dev/null; APP=""

"$BIN" job "$JOB" --window >"$OUT/app.log" 2>&1 &
APP=$!
wait_window
wait_drawn "$OUT/job.png"  # the window opens with the job on its first frame
changed=$(compare -metric AE "$OUT/plain.png" "$OUT/job.png" null: 2>&1 | cut -d' ' -f1 | awk '{ printf "%d", $1 }')
[ "$changed" -gt 20000 ] || fail "the job window changed only $changed pixels"
hex=$(echo "$BAD" | tr 'a-f' 'A-F')
pixels=$(count "$OUT/job.png" "$hex")
[ "${pixels:-0}" -gt 20 ] || fail "no pixels of the wrong row's highlight ($BAD): the nccl-tests table is not drawn"
echo "ok: the job window: $changed pixels changed, $pixels pixels of the wrong row's highlight $BAD"
kill "$APP"; wait "$APP" 2>/dev/null; APP=""

# Through the menu: File → Open job traces…, a path that does not read (the
# dialog stays, saying why; the keys typed are the path's, not the app's),
# then the fixture's. ImGui 1.86 misses a key pressed and released within
# one frame: keydown, a pause, keyup. The menu's places are those of the
# default font at the default screen (tests/gui/xvfb.sh).
key() { xdotool keydown "$1"; sleep 0.15; xdotool keyup "$1"; }
"$BIN" >"$OUT/app.log" 2>&1 &
APP=$!
wait_window
wait_drawn "$OUT/menu_before.png"
xdotool mousemove 28 13 click 1
wait_changed "$OUT/menu_before.png" "$OUT/menu_open.png" 2000
xdotool mousemove 80 151 click 1
wait_changed "$OUT/menu_open.png" "$OUT/menu_dialog.png" 20000
xdotool type --delay 5 /nonexistent/job; key Return
wait_changed "$OUT/menu_dialog.png" "$OUT/menu_error.png" 500
# The dialog's error text (ImVec4(0.85, 0.15, 0.2), antialiased): red pixels
# where the dialog alone had none.
red=$(convert "$OUT/menu_error.png" -format %c histogram:info:- | awk -F'[(,)]' '$2 > 180 && $3 < 90 && $4 < 100 { s += $1 } END { printf "%d", s }')
[ "${red:-0}" -gt 100 ] || fail "File → Open job traces… (File at 28,13; the item at 80,151): no error in red for /nonexistent/job"
key ctrl+a
xdotool type --delay 5 "$JOB"; key Return
wait_changed "$OUT/menu_error.png" "$OUT/menu_job.png" 20000
pixels=$(count "$OUT/menu_job.png" "$hex")
[ "${pixels:-0}" -gt 20 ] || fail "File → Open job traces… did not show the job: no pixels of $BAD"
echo "ok: File → Open job traces…: the error said ($red red pixels), then $pixels pixels of the wrong row's highlight"
exit 0
