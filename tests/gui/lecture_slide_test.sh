#!/bin/bash
# A live lecture's slide is projected (issue 57): no tooltip appears where the
# mouse rests on it. The same block hovered in the plain window shows one (the
# control: the hover reached the diagram), its text inset from its edges (the
# tooltip had no inner padding). Under Xvfb at 1920x1080, the
# decomposition's input either way. Exit 77 when a tool is missing.
#   usage: lecture_slide_test.sh path/to/collviz output-dir
set -u
BIN=$1
OUT=${2:-/tmp/collviz-lecture-slide-test}
mkdir -p "$OUT"
XVFB_SCREEN=1920x1080x24
TOOLS="import compare convert"
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
# The tooltip: where the hover changed pixels; its text (past a 2-pixel
# border, what differs from its background) starts this far inside it.
compare "$OUT/plain_before.png" "$OUT/plain_hover.png" -compose src -highlight-color white -lowlight-color black "$OUT/tip_mask.png" 2>/dev/null
box=$(convert "$OUT/tip_mask.png" -trim info: | awk '{ split($4, a, "+"); print $3 "+" a[2] "+" a[3] }')
inset=$(convert "$OUT/plain_hover.png" -crop "$box" +repage -shave 2x2 -fuzz 8% -trim info: | awk '{ split($4, a, "+"); print a[2] + 2, a[3] + 2 }')
echo "figure: the tooltip $box, its text inset $inset px (left top)"
read -r left top <<<"$inset"
[ "${left:-0}" -ge 6 ] && [ "${top:-0}" -ge 6 ] || fail "the tooltip's text touches its edge: inset $inset px (box $box)"
COLLVIZ_NO_PREFETCH=1 "$BIN" lecture "$OUT/slide.toml" --window --lang en >"$OUT/app.log" 2>&1 &
APP=$!
wait_window
slide=$(hover_change slide)
stop_app
echo "figure: hovering a block changes $plain pixels in the window, $slide on a lecture's slide"
[ "$plain" -gt 2000 ] || fail "hovering a block in the plain window showed no tooltip ($plain pixels changed): the check cannot tell"
[ "$slide" -lt $(( plain / 10 )) ] || fail "a tooltip on the lecture's slide: $slide pixels changed where the window's tooltip changes $plain"
echo "PASS"
