#!/bin/bash
# The real window under Xvfb + Mesa: start collviz, send real key presses with
# xdotool, take screenshots with ImageMagick and check after each key that
# the title names the op with a verified result and that the Output column
# is drawn in the result's colours (so the test fails when no op ran, e.g.
# without collviz-rank beside collviz). Exit 77 (ctest SKIP_RETURN_CODE) when a tool is missing.
#   usage: window_test.sh path/to/collviz [output dir for screenshots]
set -u
BIN=$1
OUT=${2:-/tmp/collviz-gui-test}
mkdir -p "$OUT"
TOOLS="import compare convert identify"
. "$(dirname "$0")/xvfb.sh"

"$BIN" >"$OUT/app.log" 2>&1 &
APP=$!
wait_window

# Screenshot once the picture stops changing (a spinner turns while a run is
# in flight), at most ~30 s.
# A capture of a window that has not drawn its first frame yet is one flat
# colour (a loaded machine can take seconds for fonts and shaders): two such
# captures are equal but not settled.
colours() { identify -format '%k' "$1" 2>/dev/null || echo 0; }
settle() {
  local name=$1 prev="$OUT/.prev.png" cur="$OUT/$1.png"
  import -window root "$prev"
  for _ in $(seq 1 60); do
    sleep 0.5
    import -window root "$cur"
    if [ "$(colours "$cur")" -gt 16 ] &&
       [ "$(compare -metric AE "$prev" "$cur" null: 2>&1)" = "0" ]; then return 0; fi
    cp "$cur" "$prev"
  done
  echo "note: $name still changing after 30 s"
}
# Pixels that differ, as an integer (ImageMagick prints 1.6e+06 for large counts).
differ() { compare -metric AE "$OUT/$1.png" "$OUT/$2.png" null: 2>&1 | cut -d' ' -f1 |
           awk '{ printf "%d", $1 }'; }
mean() { convert "$OUT/$1.png" -colorspace Gray -format '%[fx:mean]' info:; }
title() { xdotool getwindowname "$WID"; }
key() { xdotool key --window "$WID" "$@"; }

# The title names the op on screen and whether a real, verified result is
# shown ("· verified"; "· not yet run" when no collviz-rank ever answered).
expect_title() {
  case "$(title)" in *"$1"*"· verified") ;; *) fail "$2: title '$(title)', want '$1 … · verified'" ;; esac
}
# Pixels in the Output column (the right part of the window) with tile fill
# colour $2 (light theme, as drawn for a result; a faded "not yet run" tile
# is lighter and does not count).
fills() {
  convert "$OUT/$1.png" -crop 560x760+1020+120 +repage -alpha off -fuzz 2% -fill magenta \
    -opaque "$2" -fuzz 0 -fill black +opaque magenta -fill white -opaque magenta \
    -format '%[fx:int(mean*w*h)]' info:
}
A="rgb(213,222,234)" B="rgb(223,232,219)" C="rgb(241,230,206)" D="rgb(240,218,222)"
expect_output_colours() {  # every rank's output shows the four letters' fills
  for c in "$A" "$B" "$C" "$D"; do
    n=$(fills "$1" "$c")
    [ "$n" -gt 1500 ] || fail "$1: only $n output pixels of $c (no result drawn?)"
  done
  echo "ok: $1: output tiles in the colours of A, B, C and D"
}

settle broadcast
expect_title "01 Broadcast" "at start"
expect_output_colours broadcast

key Right
settle scatter
expect_title "02 Scatter" "after →"
expect_output_colours scatter
changed=$(differ broadcast scatter)
[ "$changed" -gt 2000 ] || fail "→ changed only $changed pixels"
echo "ok: → went from 01 Broadcast to 02 Scatter ($changed pixels changed)"

key Right Right Right Right Right Right
settle all_to_all
expect_title "08 All-to-all" "after 6 more →"
expect_output_colours all_to_all

key 2
settle trace_r2
expect_title "08 All-to-all" "after 2"
changed=$(differ all_to_all trace_r2)
before=$(mean all_to_all)
after=$(mean trace_r2)
[ "$changed" -gt 2000 ] || fail "trace R2 changed only $changed pixels"
# Fading draws the other rows nearer the light background: the image gets lighter.
awk -v a="$after" -v b="$before" 'BEGIN { exit !(a > b + 0.002) }' ||
  fail "trace R2 did not dim the other rows (mean $before -> $after)"
echo "ok: trace R2 dimmed the rest ($changed pixels changed, mean grey $before -> $after)"

key a
settle trace_all
expect_title "08 All-to-all" "after A"
expect_output_colours trace_all
back=$(differ all_to_all trace_all)
[ "$back" -lt 2000 ] || fail "A (trace all) did not restore the picture ($back pixels differ)"
echo "ok: A restored the untraced picture"

key t
settle dark
expect_title "08 All-to-all" "after T"
dark=$(mean dark)
awk -v d="$dark" -v l="$before" 'BEGIN { exit !(d < l - 0.2) }' || fail "T did not switch to the dark theme"
echo "ok: T switched to the dark theme (mean grey $before -> $dark)"
echo "screenshots in $OUT"
exit 0
