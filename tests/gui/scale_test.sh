#!/bin/bash
# "lecture hall 2x" never makes the diagram smaller than at 1x (issue 57):
# the real window under Xvfb at 1920x1080, in English and 中文, at UI scale 1
# and 2 (COLLVIZ_UI_SCALE), two views in English (01 Broadcast; the last
# op, End) and the first in 中文. The
# frame log (COLLVIZ_FRAME_LOG) says the drawn diagram's smallest block
# label and smallest text: at 2x each is at least the 1x one (the panels fold, the status goes to
# one line, or the diagram takes the screen). Screenshots of each are left
# in the output folder.
#   usage: scale_test.sh path/to/collviz [output dir]
set -u
BIN=$1
OUT=${2:-/tmp/collviz-gui-scale}
mkdir -p "$OUT"
TOOLS="import compare convert"
XVFB_SCREEN=1920x1080x24
. "$(dirname "$0")/xvfb.sh"

title() { xdotool getwindowname "$WID" 2>/dev/null; }
wait_title() {
  for _ in $(seq 1 600); do
    case "$(title)" in *"$1"*) return 0 ;; esac
    sleep 0.1
  done
  fail "title '$(title)' never named '$1'"
}
# The title ends in "verified" (中文: 已核对) once a result is on screen.
wait_verified() {
  for _ in $(seq 1 600); do
    case "$(title)" in *verified|*已核对) return 0 ;; esac
    sleep 0.1
  done
  fail "title '$(title)' never said verified"
}
# The last frame's smallest label, once the log holds a frame after the
# title said verified and the screen stopped changing.
label() { grep -o 'label [0-9.]* px text [0-9.]* px fold [0-9]' "$OUT/app.log" | tail -1; }

# One window: its smallest label and text for each view, as
# "broadcast_label/text last_label/text".
measure() {  # scale lang
  local scale=$1 lang=$2 name="$1x_$2" out=""
  COLLVIZ_FRAME_LOG=1 COLLVIZ_NO_PREFETCH=1 COLLVIZ_UI_SCALE=$scale "$BIN" --lang "$lang" >"$OUT/app.log" 2>&1 &
  APP=$!
  wait_window
  xdotool windowsize "$WID" 1920 1080
  wait_verified
  wait_stable "$OUT/${name}_broadcast.png"
  xdotool mousemove 960 540  # a frame after the last change, logged
  wait_stable "$OUT/${name}_broadcast.png"
  out="$(label | awk '{ print $2 "/" $5 }')"
  echo "$name broadcast: $(label)"
  if [ "$lang" = zh ]; then
    kill "$APP"; wait "$APP" 2>/dev/null; APP=""
    RESULT=$out
    return
  fi
  xdotool key --window "$WID" End
  wait_title "(N="
  for _ in $(seq 1 100); do
    case "$(title)" in *"01 Broadcast"*) sleep 0.1 ;; *) break ;; esac
  done
  wait_verified
  wait_stable "$OUT/${name}_last.png"
  xdotool mousemove 900 500
  wait_stable "$OUT/${name}_last.png"
  out="$out $(label | awk '{ print $2 "/" $5 }')"
  echo "$name last ($(title | sed 's/ (N=.*//')): $(label)"
  cp "$OUT/app.log" "$OUT/${name}.log"
  kill "$APP"; wait "$APP" 2>/dev/null; APP=""
  RESULT=$out
}

for lang in en zh; do
  measure 1 "$lang"; one=($RESULT)
  measure 2 "$lang"; two=($RESULT)
  views="0 1"; [ "$lang" = zh ] && views=0
  for i in $views; do
    view=$([ $i = 0 ] && echo "01 Broadcast" || echo "the last op")
    [ -n "${one[$i]:-}" ] && [ -n "${two[$i]:-}" ] || fail "$lang $view: no label size in the frame log"
    # label/text: each at 2x at least its 1x size (within the fit's 1 %).
    awk -v a="${two[$i]}" -v b="${one[$i]}" 'BEGIN { split(a, x, "/"); split(b, y, "/");
      exit !(x[1] >= 0.99 * y[1] && x[2] >= 0.99 * y[2]) }' ||
      fail "$lang $view: at 2x the smallest label/text is ${two[$i]} px, smaller than ${one[$i]} px at 1x"
    echo "figure: $lang $view: smallest label/text ${one[$i]} px at 1x, ${two[$i]} px at 2x"
  done
done
echo "ok: at 2x no block label or text is smaller than at 1x (1920x1080, en and 中文)"
exit 0
