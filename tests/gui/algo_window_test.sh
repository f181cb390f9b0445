#!/bin/bash
# The algorithm view in the real window under Xvfb, with real key presses:
# L picks ring on All-reduce, ↓ steps a round (the picture and the round bar
# in the title change every time), End/Home jump, P plays to the last round.
#   usage: algo_window_test.sh path/to/collviz [output dir for screenshots]
set -u
BIN=$1
OUT=${2:-/tmp/collviz-gui-algo}
mkdir -p "$OUT"
TOOLS="import compare identify"
. "$(dirname "$0")/xvfb.sh"

"$BIN" >"$OUT/app.log" 2>&1 &
APP=$!
wait_window

colours() { identify -format '%k' "$1" 2>/dev/null || echo 0; }
settle() {
  local prev="$OUT/.prev.png" cur="$OUT/$1.png"
  import -window root "$prev"
  for _ in $(seq 1 60); do
    sleep 0.5
    import -window root "$cur"
    if [ "$(colours "$cur")" -gt 16 ] &&
       [ "$(compare -metric AE "$prev" "$cur" null: 2>&1)" = "0" ]; then return 0; fi
    cp "$cur" "$prev"
  done
  echo "note: $1 still changing after 30 s"
}
differ() { compare -metric AE "$OUT/$1.png" "$OUT/$2.png" null: 2>&1 | cut -d' ' -f1 |
           awk '{ printf "%d", $1 }'; }
title() { xdotool getwindowname "$WID"; }
key() { xdotool key --window "$WID" "$@"; }
expect_title() {
  for _ in $(seq 1 40); do
    case "$(title)" in *"$1"*) return 0 ;; esac
    sleep 0.25
  done
  fail "title '$(title)' does not contain '$1'"
}

settle start
key Right Right Right Right Right Right
expect_title "07 All-reduce"
key l
expect_title "ring · round 0/6"
settle round0
prev=round0
for k in 1 2 3 4 5 6; do
  key Down
  expect_title "ring · round $k/6"
  settle "round$k"
  changed=$(differ "$prev" "round$k")
  [ "$changed" -gt 2000 ] || fail "↓ to round $k changed only $changed pixels"
  echo "ok: ↓ round $k: '$(title)' ($changed pixels changed)"
  prev="round$k"
done
case "$(title)" in *"reduce-scatter 3/3 · all-gather 3/3"*) ;; *) fail "round bar at the end: '$(title)'" ;; esac
key Home
expect_title "round 0/6"
key End
expect_title "round 6/6"
key Home
expect_title "round 0/6"
key p
expect_title "round 1/6"
expect_title "round 6/6"
echo "ok: P played from round 0 to round 6"
# ← leaves the algorithm view's op: the next op opens with its own choice
# (native: an algorithm chosen stays with its op, issue 57 item 10); → back
# shows ring again.
key Left
expect_title "06 Reduce-scatter (N="
key Right
expect_title "07 All-reduce · ring"
echo "screenshots in $OUT"
exit 0
