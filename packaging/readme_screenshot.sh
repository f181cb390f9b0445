#!/bin/bash
# README's screenshot (assets/screenshot.png) retaken from a build, so it can
# be redone at every release: the window at 1600x1000 under a private Xvfb,
# All-reduce (→ six times from Broadcast) on the machine's default backend,
# taken once its result is verified and the screen stops changing.
#   usage: packaging/readme_screenshot.sh path/to/collviz [output.png]
#   (default output: assets/screenshot.png beside this script's packaging/)
# Needs Xvfb, xdotool and imagemagick (import, compare); exits 77 without them.
set -u
BIN=$(realpath "$1")
SRC=$(cd "$(dirname "$0")/.." && pwd)
PNG=$(realpath -m "${2:-$SRC/assets/screenshot.png}")
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
TOOLS="import compare"
. "$SRC/tests/gui/xvfb.sh"
trap 'cleanup; rm -rf "$OUT"' EXIT

# A fresh settings file: the screenshot shows the defaults, not this machine's last session.
HOME="$OUT" XDG_CONFIG_HOME="$OUT/config" COLLVIZ_NO_PREFETCH=1 "$BIN" >"$OUT/app.log" 2>&1 &
APP=$!
wait_window
title() { xdotool getwindowname "$WID" 2>/dev/null; }
wait_title() {
  for _ in $(seq 1 300); do
    case "$(title)" in *"$1"*) return 0 ;; esac
    sleep 0.1
  done
  fail "title '$(title)' never said '$1'"
}
wait_title "verified"
for _ in 1 2 3 4 5 6; do xdotool key --window "$WID" Right; sleep 0.2; done
wait_title "07 All-reduce"
wait_title "verified"
xdotool mousemove 5 995  # the pointer off the figure: no tooltip, no hover
differ() { compare -metric AE "$1" "$2" null: 2>&1 | cut -d' ' -f1 | awk '{ printf "%d", $1 }'; }
for _ in $(seq 1 40); do
  sleep 0.5
  import -window root "$OUT/a.png"; sleep 0.4; import -window root "$OUT/b.png"
  [ "$(differ "$OUT/a.png" "$OUT/b.png")" = "0" ] && break
done
cp "$OUT/b.png" "$PNG"
echo "wrote $PNG ($(title))"
