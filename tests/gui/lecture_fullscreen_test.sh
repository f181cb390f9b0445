#!/bin/bash
# Lecture mode as a presentation, under Xvfb at 1920x1080: `collviz lecture`
# opens full screen with the panels hidden; the broadcast step's tiles are
# measured in the screenshot (pixels of the four tile fills) against today's
# figure; P plays an algorithm step's rounds; S opens the presenter window,
# which does not take the keyboard: H still works in the main window, and
# keys typed into the presenter reach the main window too.
#   usage: lecture_fullscreen_test.sh path/to/collviz source-dir output-dir
set -u
BIN=$1
SRC=$2
OUT=${3:-/tmp/collviz-lecture-fullscreen}
mkdir -p "$OUT"
TOOLS="import compare convert"
XVFB_SCREEN=1920x1080x24
. "$(dirname "$0")/xvfb.sh"

# Today's figure (before issue 20): the lecture window at 1920x1080 drew the
# broadcast step's 20 tiles in 66520 pixels of their four fills (measured
# the same way from /work/main's build).
BEFORE=66520
tile_pixels() {
  convert "$1" -format %c histogram:info:- |
    grep -E '\((213,222,234|223,232,219|241,230,206|240,218,222)\)' | awk '{ s += $1 } END { print s + 0 }'
}
title() { xdotool getwindowname "$WID" 2>/dev/null; }
wait_title() {
  for _ in $(seq 1 400); do
    case "$(title)" in *"$1"*) return 0 ;; esac
    sleep 0.05
  done
  fail "title '$(title)' never named '$1'"
}
differ() { compare -metric AE "$1" "$2" null: 2>&1 | cut -d' ' -f1 | awk '{ printf "%d", $1 }'; }
settled_shot() {  # the screen once it stops changing
  for _ in $(seq 1 30); do
    sleep 0.5
    import -window root "$OUT/.a.png"; sleep 0.3; import -window root "$OUT/.b.png"
    [ "$(differ "$OUT/.a.png" "$OUT/.b.png")" = "0" ] && break
  done
  cp "$OUT/.b.png" "$OUT/$1.png"
}

"$BIN" lecture "$SRC/assets/lectures/article_tour.toml" --lang en >"$OUT/app.log" 2>&1 &
APP=$!
for _ in $(seq 1 100); do
  WID=$(xdotool search --name 'N=[0-9]' 2>/dev/null | head -1)
  [ -n "$WID" ] && break
  sleep 0.2
done
[ -n "$WID" ] || fail "no main window"
wait_title "01 Broadcast"
wait_title "verified"
settled_shot fullscreen
geometry=$(xdotool getwindowgeometry "$WID" | grep Geometry | awk '{ print $2 }')
[ "$geometry" = "1920x1080" ] || fail "the lecture window is $geometry, not full screen 1920x1080"
px=$(tile_pixels "$OUT/fullscreen.png")
echo "figure: broadcast tiles $px pixels full screen against $BEFORE before ($(awk -v a="$px" -v b="$BEFORE" 'BEGIN { printf "%.2f", a / b }')x)"
[ "$px" -ge $((3 * BEFORE)) ] || fail "the tiles take $px pixels, less than 3x today's $BEFORE"

# S: the presenter window; the main window keeps the keyboard.
xdotool key --window "$WID" s
for _ in $(seq 1 100); do
  PWID=$(xdotool search --name '^collviz presenter' 2>/dev/null | head -1)
  [ -n "$PWID" ] && break
  sleep 0.1
done
[ -n "$PWID" ] || fail "S opened no presenter window"
focused=$(xdotool getwindowfocus 2>/dev/null)
[ "$focused" != "$PWID" ] || fail "the presenter window took the keyboard"
settled_shot before_h
xdotool key --window "$WID" h
settled_shot after_h
h=$(differ "$OUT/before_h.png" "$OUT/after_h.png")
[ "$h" -gt 20000 ] || fail "H in the main window after the presenter opened changed only $h pixels"
echo "ok: S opened the presenter; H in the main window still shows the panels ($h pixels changed)"
# A key typed into the presenter window reaches the main window.
xdotool key --window "$PWID" h
settled_shot after_h2
h2=$(differ "$OUT/after_h.png" "$OUT/after_h2.png")
[ "$h2" -gt 20000 ] || fail "H typed into the presenter window changed only $h2 pixels of the main window"
xdotool key --window "$PWID" Right
wait_title "02 Scatter"
echo "ok: H and → typed into the presenter window work the main window"
kill "$APP"; wait "$APP" 2>/dev/null; APP=""

# P plays an algorithm step's rounds (the presenter key is S now).
"$BIN" lecture "$SRC/assets/lectures/allreduce_inside.toml" --lang en >>"$OUT/app.log" 2>&1 &
APP=$!
WID=""
for _ in $(seq 1 100); do
  WID=$(xdotool search --name 'N=[0-9]' 2>/dev/null | head -1)
  [ -n "$WID" ] && break
  sleep 0.2
done
[ -n "$WID" ] || fail "no main window (second lecture)"
wait_title "(N="
xdotool key --window "$WID" g 8 Return
wait_title "round 0/6"
xdotool key --window "$WID" p
wait_title "round 2/6"
[ -z "$(xdotool search --name '^collviz presenter' 2>/dev/null)" ] || fail "P opened the presenter window"
echo "ok: P played the ring all-reduce step's rounds (title: $(title))"
exit 0
