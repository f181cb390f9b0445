#!/bin/bash
# The window's screenshot: under Xvfb, press F12 and expect a PNG of the
# current view in $COLLVIZ_SCREENSHOT_DIR, its path on stderr, a second press
# writing a second file (never overwriting), and the picture equal to
# `collviz export` of the same view; started in $HOME without the variable,
# the screenshot goes to $HOME/Pictures. Exit 77 when a tool is
# missing.
#   usage: screenshot_test.sh path/to/collviz [output dir]
set -u
BIN=$1
OUT=${2:-/tmp/collviz-screenshot-test}
rm -rf "$OUT"
mkdir -p "$OUT/shots"
TOOLS="identify compare"
. "$(dirname "$0")/xvfb.sh"

COLLVIZ_SCREENSHOT_DIR="$OUT/shots" COLLVIZ_NO_PREFETCH=1 "$BIN" >"$OUT/app.log" 2>&1 &
APP=$!
wait_window
# Let the first run come back (the title says when a verified result shows).
for _ in $(seq 1 100); do
  case "$(xdotool getwindowname "$WID")" in *"· verified") break ;; esac
  sleep 0.2
done

shot() {  # press F12, wait for file number $1
  xdotool key --window "$WID" F12
  for _ in $(seq 1 50); do
    [ "$(ls "$OUT/shots" | grep -c '\.png$')" -ge "$1" ] && return 0
    sleep 0.2
  done
  fail "F12 press $1: no screenshot in $OUT/shots"
}
shot 1
shot 2
ls "$OUT/shots"
first=$(ls "$OUT/shots" | head -1)
[ "$first" = "collviz_01_broadcast.png" ] || fail "unexpected name $first"
[ -f "$OUT/shots/collviz_01_broadcast_2.png" ] || fail "second press did not write collviz_01_broadcast_2.png"
grep -q "screenshot saved to $OUT/shots/collviz_01_broadcast.png" "$OUT/app.log" || fail "path not reported"
size=$(identify -format '%w %h' "$OUT/shots/$first")
read -r w h <<<"$size"
[ "$w" -gt 600 ] && [ "$h" -gt 400 ] || fail "screenshot is only ${w}x${h}"
echo "ok: F12 wrote $first (${w}x${h}) and a second file; path reported"

# The screenshot is the view on screen: the same op exported at the same
# size (the figure, no status block: the default of both) must be the same picture. A blank or stale
# capture, or one of another op, differs in most of its pixels.
COLLVIZ_FAULT= "$BIN" export --op broadcast --ranks 4 --backend auto --size "${w}x${h}" \
  -o "$OUT/export.png" >"$OUT/export.log" 2>&1 || fail "export failed: $(cat "$OUT/export.log")"
diff=$(compare -metric AE -fuzz 8% "$OUT/shots/$first" "$OUT/export.png" null: 2>&1 | cut -d' ' -f1 |
       awk '{ printf "%d", $1 }')
limit=$(( w * h / 400 ))
[ "$diff" -le "$limit" ] || fail "screenshot and export of the same view differ in $diff pixels (allowed $limit)"
echo "ok: the screenshot matches an export of the same view ($diff of $((w * h)) pixels differ)"

# Started the way the desktop menu starts it (in $HOME, no
# COLLVIZ_SCREENSHOT_DIR): the screenshot goes to the pictures folder
# (app/files/screenshot_dir.h), created when missing.
kill "$APP" 2>/dev/null; wait "$APP" 2>/dev/null
mkdir -p "$OUT/home"
(cd "$OUT/home" && exec env -u COLLVIZ_SCREENSHOT_DIR -u XDG_CONFIG_HOME HOME="$OUT/home" \
   COLLVIZ_NO_PREFETCH=1 "$BIN" >"$OUT/app_home.log" 2>&1) &
APP=$!
wait_window
for _ in $(seq 1 100); do
  case "$(xdotool getwindowname "$WID")" in *"· verified") break ;; esac
  sleep 0.2
done
xdotool key --window "$WID" F12
for _ in $(seq 1 50); do [ -f "$OUT/home/Pictures/collviz_01_broadcast.png" ] && break; sleep 0.2; done
[ -f "$OUT/home/Pictures/collviz_01_broadcast.png" ] ||
  fail "started in \$HOME: no screenshot in \$HOME/Pictures ($(ls -R "$OUT/home" | tr '\n' ' '))"
[ -z "$(ls "$OUT/home" | grep -v '^Pictures$')" ] || fail "started in \$HOME: wrote $(ls "$OUT/home") there"
echo "ok: started in \$HOME, F12 wrote \$HOME/Pictures/collviz_01_broadcast.png"
exit 0
