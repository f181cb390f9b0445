# Sourced by the window tests: check the tools, start a private Xvfb on a
# display number the server picks itself (-displayfd, so tests running in
# parallel never race for one), and stop it and the app on exit.
#   needs: OUT (output dir), TOOLS (commands that must exist)
#   sets:  DISPLAY, XVFB; the test sets APP to the app's pid; fail() and
#          wait_window (sets WID to the collviz window, up to 20 s)
for tool in Xvfb xdotool $TOOLS; do
  if ! command -v "$tool" >/dev/null; then
    echo "SKIP: $tool not found (needs the xvfb, xdotool and imagemagick packages)"
    exit 77
  fi
done
# The last run's file must go first: the shell that starts Xvfb truncates it
# only after this one has moved on, and a stale number would be read.
rm -f "$OUT/display"
Xvfb -displayfd 3 -screen 0 1600x1000x24 -nolisten tcp 3>"$OUT/display" >"$OUT/xvfb.log" 2>&1 &
XVFB=$!
APP=""
cleanup() {
  [ -n "$APP" ] && kill "$APP" 2>/dev/null && wait "$APP" 2>/dev/null
  kill "$XVFB" 2>/dev/null
  wait "$XVFB" 2>/dev/null
}
trap cleanup EXIT
for _ in $(seq 1 100); do [ -s "$OUT/display" ] && break; sleep 0.1; done
[ -s "$OUT/display" ] || { echo "FAIL: Xvfb did not start"; cat "$OUT/xvfb.log"; exit 1; }
for _ in $(seq 1 20); do D=$(head -n1 "$OUT/display"); [ -n "$D" ] && break; sleep 0.1; done
[ -n "$D" ] || { echo "FAIL: Xvfb wrote no display number"; cat "$OUT/xvfb.log"; exit 1; }
export DISPLAY=":$D"
for _ in $(seq 1 50); do xdotool getmouselocation >/dev/null 2>&1 && break; sleep 0.1; done
fail() { echo "FAIL: $*"; echo "--- app log"; cat "$OUT/app.log"; exit 1; }
wait_window() {
  WID=""
  for _ in $(seq 1 100); do
    WID=$(xdotool search --name '^collviz' 2>/dev/null | head -1)
    [ -n "$WID" ] && break
    sleep 0.2
  done
  [ -n "$WID" ] || fail "no collviz window appeared"
}
