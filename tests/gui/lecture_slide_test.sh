#!/bin/bash
# A live lecture's slide is projected (issue 57): no tooltip appears where the
# mouse rests on it. The same block hovered in the plain window shows one (the
# control: the hover reached the diagram). Under Xvfb at 1920x1080, the
# decomposition's input either way. Exit 77 when a tool is missing.
#   usage: lecture_slide_test.sh path/to/collviz output-dir
set -u
BIN=$1
OUT=${2:-/tmp/collviz-lecture-slide-test}
mkdir -p "$OUT"
XVFB_SCREEN=1920x1080x24
TOOLS="import compare"
. "$(dirname "$0")/xvfb.sh"

printf 'title = "slide"\n[[step]]\nop = "all_reduce_decomposed"\nstate = 0\ncaption = "the input"\n' >"$OUT/slide.toml"
# The pixels that change when the mouse moves from a corner onto an input
# block (R1's second) of the decomposition, once the screen holds still.
hover_change() {
  xdotool windowsize "$WID" 1920 1080
  xdotool windowmove "$WID" 0 0
  xdotool mousemove 5 1075
  wait_drawn "$OUT/$1_drawn.png"
  verified
  wait_stable "$OUT/$1_before.png"
  xdotool mousemove 580 530
  wait_stable "$OUT/$1_hover.png"
  compare -metric AE "$OUT/$1_before.png" "$OUT/$1_hover.png" null: 2>&1 | cut -d' ' -f1 | awk '{ printf "%d", $1 }'
}
# The decomposition's result is on screen (the title ends "· verified"; at most 20 s).
verified() {
  for _ in $(seq 1 200); do
    case "$(xdotool getwindowname "$WID" 2>/dev/null)" in *verified) return 0 ;; esac
    sleep 0.1
  done
  fail "the title never said verified: $(xdotool getwindowname "$WID" 2>/dev/null)"
}
stop_app() { kill "$APP" 2>/dev/null; wait "$APP" 2>/dev/null; APP=""; }

COLLVIZ_NO_PREFETCH=1 "$BIN" --lang en >"$OUT/app.log" 2>&1 &
APP=$!
wait_window
wait_drawn "$OUT/start.png"
xdotool mousemove 960 540 click 1
xdotool key End  # the decomposition, at its input
plain=$(hover_change plain)
stop_app
COLLVIZ_NO_PREFETCH=1 "$BIN" lecture "$OUT/slide.toml" --window --lang en >"$OUT/app.log" 2>&1 &
APP=$!
wait_window
slide=$(hover_change slide)
stop_app
echo "figure: hovering a block changes $plain pixels in the window, $slide on a lecture's slide"
[ "$plain" -gt 2000 ] || fail "hovering a block in the plain window showed no tooltip ($plain pixels changed): the check cannot tell"
[ "$slide" -lt $(( plain / 10 )) ] || fail "a tooltip on the lecture's slide: $slide pixels changed where the window's tooltip changes $plain"
echo "PASS"
