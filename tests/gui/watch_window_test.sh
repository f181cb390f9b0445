#!/bin/bash
# The watch window (issue 58) in the real window under Xvfb, on real MPI
# programs of 4 ranks (tests/watch's):
#   lammps: `collviz watch --window -- mpirun … lmp` (LAMMPS melt): two
#     shots while it runs differ in the lane's calls (the window's state
#     names newer tiles, and the pixels differ); once it has ended a click on
#     an MPI_Allreduce tile selects it, its grid comes on screen, and the
#     bytes the window holds for it equal those in the .cvtap files as
#     cvtap_call.py (a reader of our own) reads them.
#   hang, hang_zh: hang_outside.c (rank 2 stays outside MPI) with
#     --hang-after 2: the verdict is on screen in red, naming rank 2, which
#     is outlined; its delay after the hang began is printed, not asserted
#     (no timed tests). hang_zh: the same in 中文 (--lang zh).
# What the window shows is read from COLLVIZ_WATCH_STATE (its state as
# JSON: tiles and their places, the selected call's bytes, the verdict).
# Shots of each case are kept in OUT. WATCH_LANG=zh: lammps and hang in 中文
# too (with COLLVIZ_UI_SCALE=2: the shots at 2x).
#   usage: watch_window_test.sh CASE path/to/collviz tests/watch [output dir]
set -u
CASE=$1
BIN=$2
SRC=$3
OUT=${4:-/tmp/collviz-gui-watch-$CASE}
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$OUT"
mkdir -p "$OUT"
TOOLS="import compare convert mpirun mpicc python3"
XVFB_SCREEN=1920x1080x24
. "$HERE/xvfb.sh"
root=()
[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
MPIRUN=(mpirun --oversubscribe "${root[@]}" -n 4)
STATE="$OUT/state.json"
export COLLVIZ_WATCH_STATE="$STATE"

# jq-like reads of the window's state (python3: no jq needed).
state() { python3 -c "import json,sys; d=json.load(open('$STATE')); print($1)" 2>/dev/null; }
# Wait until the state's expression prints True (at most $2 s), else fail naming $3.
wait_state() {
  local until=$(($(date +%s) + $2))
  until [ "$(state "$1")" = "True" ]; do
    [ "$(date +%s)" -lt "$until" ] || fail "waited $2 s for $3 (state: $(head -c 600 "$STATE" 2>/dev/null))"
    sleep 0.1
  done
}
# The window filling the screen (1920x1080), as a reader would have it.
fill_screen() { xdotool windowsize "$WID" 1920 1080; xdotool windowmove "$WID" 0 0; }
# Red pixels (the verdict's text and outlines: 220,30,40 and 0.85,0.12,0.15).
red() { convert "$1" -format %c histogram:info:- | awk -F'[(,)]' '$2 > 180 && $3 < 70 && $4 < 80 { s += $1 } END { printf "%d", s }'; }

case "$CASE" in
  lammps)
    lang=${WATCH_LANG:-en}
    command -v lmp >/dev/null || { echo "SKIP: LAMMPS not found (apt-get install lammps)"; exit 77; }
    "$BIN" --lang "$lang" watch --window --out "$OUT/cap" -- "${MPIRUN[@]}" lmp -in "$SRC/melt.in" -log none -nocite -var steps 1500 \
      >"$OUT/app.log" 2>&1 &
    APP=$!
    wait_window
    fill_screen
    wait_state "d['running'] and len(d['tiles']) > 0" 60 "the first calls in a lane while LAMMPS runs"
    import -window root "$OUT/live_a.png"
    first=$(state "max(t['seq'] for t in d['tiles'])")
    wait_state "d['running'] and max(t['seq'] for t in d['tiles']) > $first + 4" 60 "newer calls in the lane while LAMMPS runs"
    import -window root "$OUT/live_b.png"
    second=$(state "max(t['seq'] for t in d['tiles'])")
    changed=$(compare -metric AE "$OUT/live_a.png" "$OUT/live_b.png" null: 2>&1 | cut -d' ' -f1 | awk '{ printf "%d", $1 }')
    [ "$changed" -gt 500 ] || fail "the lane's newest call went from #$first to #$second but only $changed pixels changed"
    echo "ok: live: the lane's newest call #$first, then #$second; $changed pixels changed"
    wait_state "not d['running']" 120 "LAMMPS to end"
    [ "$(state "d['status']")" = 0 ] || fail "LAMMPS under the window ended with status $(state "d['status']")"
    wait_stable "$OUT/ended.png"
    # A click on an MPI_Allreduce tile on screen.
    read -r comm seq x y < <(state "' '.join(str(v) for v in next([t['comm'], t['seq'], int(t['x']), int(t['y'])] for t in d['tiles'] if t['func'] == 'MPI_Allreduce'))") ||
      fail "no MPI_Allreduce tile on screen: $(state "[t['func'] for t in d['tiles']]")"
    [ -n "${y:-}" ] || fail "no MPI_Allreduce tile on screen: $(state "[t['func'] for t in d['tiles']]")"
    xdotool mousemove "$x" "$y" click 1
    wait_state "d.get('selected', {}).get('seq') == $seq" 20 "the clicked MPI_Allreduce #$seq to be selected"
    wait_changed "$OUT/ended.png" "$OUT/call.png" 20000
    want=$(python3 "$HERE/cvtap_call.py" "$OUT/cap" "$comm" "$seq")
    got=$(state "json.dumps({str(r['rank']): {'in': r['in'], 'out': r['out']} for r in d['selected']['ranks']}, sort_keys=True)")
    [ "$want" = "$got" ] || fail "MPI_Allreduce #$seq: the window holds $got, the files hold $want"
    [ "$(state "len(d['selected']['ranks']) == 4 and all(r['out'] for r in d['selected']['ranks'])")" = True ] ||
      fail "MPI_Allreduce #$seq: not 4 members with their output: $got"
    echo "ok: MPI_Allreduce #$seq clicked at $x,$y: its 4 members' bytes equal the files' ($want)"
    ;;
  hang|hang_zh)
    lang=${WATCH_LANG:-en}
    [ "$CASE" = hang_zh ] && lang=zh
    mpicc -O1 -o "$OUT/hang_outside" "$SRC/hang_outside.c" || fail "hang_outside.c does not build"
    export WATCH_TEST_WAKE="$OUT/wake"
    started=$(date +%s%N)
    "$BIN" --lang "$lang" watch --window --hang-after 2 --out "$OUT/cap" -- "${MPIRUN[@]}" -x WATCH_TEST_WAKE "$OUT/hang_outside" \
      >"$OUT/app.log" 2>&1 &
    APP=$!
    wait_window
    fill_screen
    wait_state "bool(d['verdict'])" 90 "the hang's verdict"
    [ "$(state "2 in d['verdict_ranks']")" = True ] || fail "the verdict does not name rank 2: $(state "d['verdict']")"
    # The ranks' times count on while it hangs (the screen never holds
    # still): shots until the verdict's red is in one (at most ~20 s).
    pixels=0
    for _ in $(seq 1 100); do
      import -window root "$OUT/verdict.png"
      pixels=$(red "$OUT/verdict.png")
      [ "${pixels:-0}" -gt 400 ] && break
      sleep 0.2
    done
    [ "${pixels:-0}" -gt 400 ] || fail "the verdict is not on screen in red ($pixels red pixels)"
    echo "ok: $lang: the verdict on screen ($pixels red pixels): $(state "d['verdict']")"
    echo "the verdict drawn $(state "(d['verdict_drawn_ns'] - d['verdict_at_ns']) / 1e6") ms after it was found;" \
         "found $(state "d['verdict_at_ns'] / 1e9") s (epoch), the job started $((started / 1000000)) ms (epoch)"
    [ "$(state "2 in d['outlined']")" = True ] || fail "rank 2 is not outlined in its lanes: $(state "d['outlined']")"
    if [ "$lang" = zh ]; then
      [ "$(state "any(ord(c) > 0x4e00 for c in d['verdict'])")" = True ] || fail "the verdict is not in 中文: $(state "d['verdict']")"
    fi
    touch "$WATCH_TEST_WAKE"
    wait_state "not d['running']" 60 "the program to end once rank 2 woke"
    ;;
  *)
    echo "usage: watch_window_test.sh lammps|hang|hang_zh COLLVIZ tests/watch [OUT]"
    exit 2
    ;;
esac
exit 0
