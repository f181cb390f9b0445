# Sourced by the window tests: check the tools, start a private Xvfb on a
# display number of its own, and stop it and the app on exit.
#   needs: OUT (output dir), TOOLS (commands that must exist)
#   sets:  DISPLAY, XVFB; the test sets APP to the app's pid; fail() and
#          wait_window (sets WID to the collviz window, up to 20 s); wait_stable,
#          wait_changed, wait_drawn (a shot once the app has drawn)
# XVFB_SCREEN: the screen (default 1600x1000x24).
# The number is drawn at random from 200..999, not left to -displayfd (which
# hands out the lowest free one), so that tests starting and stopping
# servers side by side do not reuse a number a server is still releasing. A
# number already in use makes Xvfb exit; the next is tried. The server must
# then take a client (xdotool) before the test goes on, and a failure prints
# the server's state, so a fault of this harness reads apart from the app's.
for tool in Xvfb xdotool $TOOLS; do
  if ! command -v "$tool" >/dev/null; then
    echo "SKIP: $tool not found (needs the xvfb, xdotool and imagemagick packages)"
    exit 77
  fi
done
XVFB=""
APP=""
cleanup() {
  [ -n "$APP" ] && kill "$APP" 2>/dev/null && wait "$APP" 2>/dev/null
  [ -n "$XVFB" ] && kill "$XVFB" 2>/dev/null && wait "$XVFB" 2>/dev/null
}
trap cleanup EXIT
D=""
for _ in $(seq 1 20); do
  n=$(( 200 + RANDOM % 800 ))
  [ -e "/tmp/.X$n-lock" ] || [ -e "/tmp/.X11-unix/X$n" ] && continue
  # -displayfd with a number given: written once the server accepts clients.
  rm -f "$OUT/display"
  # -noreset: by default the server resets when its last client leaves (the
  # xdotool check below), and a client that connects during that reset (the
  # app, a moment later) is turned away.
  Xvfb ":$n" -displayfd 3 -noreset -screen 0 "${XVFB_SCREEN:-1600x1000x24}" -nolisten tcp 3>"$OUT/display" >"$OUT/xvfb.log" 2>&1 &
  XVFB=$!
  for _ in $(seq 1 100); do
    [ -s "$OUT/display" ] && break
    kill -0 "$XVFB" 2>/dev/null || break  # that number was taken: exited
    sleep 0.1
  done
  if [ -s "$OUT/display" ] && kill -0 "$XVFB" 2>/dev/null; then D=$n; break; fi
  kill "$XVFB" 2>/dev/null; wait "$XVFB" 2>/dev/null; XVFB=""
done
[ -n "$D" ] || { echo "FAIL: Xvfb did not start"; cat "$OUT/xvfb.log"; exit 1; }
export DISPLAY=":$D"
for _ in $(seq 1 100); do xdotool getmouselocation >/dev/null 2>&1 && break; sleep 0.1; done
xdotool getmouselocation >/dev/null 2>&1 ||
  { echo "FAIL: Xvfb :$D takes no client after 10 s: $(xdotool getmouselocation 2>&1 | head -1)"; exit 1; }
fail() {
  echo "FAIL: $*"; echo "--- app log"; cat "$OUT/app.log"
  # What the X server looked like then, to tell a test-harness fault from the app's.
  echo "--- Xvfb :$D (pid $XVFB): $(kill -0 "$XVFB" 2>/dev/null && echo running || echo gone);" \
       "socket $(ls -l "/tmp/.X11-unix/X$D" 2>&1);" \
       "a client now: $(xdotool getmouselocation 2>&1 | head -1)"
  cat "$OUT/xvfb.log"
  exit 1
}
# Screenshot the root window into $1 once the screen has stopped changing
# (two shots 0.3 s apart alike; at most ~20 s): a wait on what is drawn,
# not a fixed sleep.
wait_stable() {
  local a="$1.a.png" b="$1.b.png"
  import -window root "$a"
  for _ in $(seq 1 60); do
    sleep 0.3
    import -window root "$b"
    [ "$(compare -metric AE "$a" "$b" null: 2>&1 | cut -d' ' -f1 | awk '{ printf "%d", $1 }')" = "0" ] && break
    mv "$b" "$a"
  done
  mv "$b" "$1" 2>/dev/null || mv "$a" "$1"
  rm -f "$a" "$b"
}
# Screenshot the root window into $2 once it differs from $1 by more than
# $3 pixels, and then holds still (at most ~20 s; the last shot otherwise).
wait_changed() {
  for _ in $(seq 1 100); do
    import -window root "$2"
    [ "$(compare -metric AE "$1" "$2" null: 2>&1 | cut -d' ' -f1 | awk '{ printf "%d", $1 }')" -gt "$3" ] && break
    sleep 0.2
  done
  wait_stable "$2"
}
# A shot into $1 once the app has drawn (not the black screen before its
# first frame, which a loaded machine shows for seconds), held still.
wait_drawn() {
  import -window root "$1.blank.png"
  convert "$1.blank.png" -fill black -colorize 100 "$1.black.png"
  wait_changed "$1.black.png" "$1" 500000
  rm -f "$1.blank.png" "$1.black.png"
}
# Wait (at most 20 s) until the app's rank workers have used no CPU for
# half a second: a run (a run-ahead) is over.
wait_workers_idle() {
  local last=-1 now
  for _ in $(seq 1 80); do
    now=0
    for p in $(pgrep -P "$APP" collviz-rank); do
      now=$((now + $(awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null || echo 0)))
    done
    [ "$now" = "$last" ] && return 0
    last=$now
    sleep 0.5
  done
}
wait_window() {
  WID=""
  for _ in $(seq 1 100); do
    WID=$(xdotool search --name '^collviz' 2>/dev/null | head -1)
    [ -n "$WID" ] && break
    sleep 0.2
  done
  [ -n "$WID" ] || fail "no collviz window appeared"
}
