#!/bin/bash
# File → Open NCCL log… in the real window under Xvfb: `collviz nccl-log FILE
# --window` opens the window with the log read, and its NCCL log window draws
# the figure: the picture differs from the plain window's, and the network
# links' colour (the SVG export's, the same shapes) is on screen.
#   usage: nccl_log_window_test.sh path/to/collviz [output dir]
set -u
BIN=$1
OUT=${2:-/tmp/collviz-gui-nccl-log}
mkdir -p "$OUT"
TOOLS="import compare convert"
. "$(dirname "$0")/xvfb.sh"

P="a:1:1 [0] NCCL INFO "
Q="b:2:2 [0] NCCL INFO "
LOG="$OUT/nccl.log"
{
  echo "${P}NCCL version 2.26.2+cuda12.6"
  echo "${P}comm 0x1 rank 0 nRanks 4 nNodes 2 localRanks 2 localRank 0 MNNVL 0"
  echo "${P}Channel 00/02 : 0 1 3 2"
  echo "${P}Channel 01/02 : 0 2 3 1"
  echo "${P}Trees [0] 1/2/-1->0->-1 [1] 2/-1/-1->0->-1"
  echo "${P}Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM"
  echo "${P}Channel 00/0 : 2[0] -> 0[0] [receive] via NET/IB/0"
  echo "${P}Channel 01/0 : 0[0] -> 2[0] [send] via NET/IB/0"
  echo "${P}AllReduce: 1048576 Bytes -> Algo RING proto LL128 channel{Lo..Hi}={0..1}"
} > "$LOG"

"$BIN" export --nccl-log "$LOG" -o "$OUT/figure.svg" >/dev/null || fail "export --nccl-log failed"
NET=$(grep -o 'id="arrow-net"[^>]*><path d="[^"]*" fill="#[0-9a-f]*"' "$OUT/figure.svg" | grep -o '#[0-9a-f]\{6\}')
[ -n "$NET" ] || fail "no network colour in the exported figure"

"$BIN" >"$OUT/plain.log" 2>&1 &
APP=$!
wait_window
wait_drawn "$OUT/plain.png"  # not the black screen before the first frame
kill "$APP"; wait "$APP" 2>/dev/null; APP=""

"$BIN" nccl-log "$LOG" --window >"$OUT/app.log" 2>&1 &
APP=$!
wait_window
wait_drawn "$OUT/nccl_log.png"  # the window opens with the log on its first frame
changed=$(compare -metric AE "$OUT/plain.png" "$OUT/nccl_log.png" null: 2>&1 | cut -d' ' -f1 | awk '{ printf "%d", $1 }')
[ "$changed" -gt 20000 ] || fail "the NCCL log window changed only $changed pixels"
hex=$(echo "$NET" | tr 'a-f' 'A-F')
pixels=$(convert "$OUT/nccl_log.png" -format %c histogram:info:- | grep -i "$hex" | awk '{ s += $1 } END { printf "%d", s }')
[ "${pixels:-0}" -gt 20 ] || fail "no network-coloured ($NET) pixels: the links are not drawn"
echo "ok: the NCCL log window: $changed pixels changed, $pixels pixels of the network colour $NET"
exit 0
