#!/usr/bin/env bash
# The stand-in CUDA runtime and NCCL (a test double) through collviz itself
# (ctest standin_cli):
#   1. without COLLVIZ_STANDIN=1 every call fails: NCCL is unavailable with
#      the stand-in's reason, `--backend nccl` exits 2 saying it;
#   2. with it, the device is named "stand-in: host memory, not a GPU" in
#      `collviz devices`, `--json`, and a run's backend line; a run and an
#      algorithm's rounds verify on it;
#   3. as root, in a private mount and network namespace with empty /tmp and
#      /dev/shm: runs (one whose rank is killed mid-op among them) leave
#      nothing in /tmp, /dev/shm or the abstract socket namespace.
# Usage: cli_test.sh COLLVIZ STANDIN_DIR
set -u
collviz=$1 standin=$2
fail=0
bad() { echo "FAIL: $*"; fail=1; }
work=$(mktemp -d /tmp/collviz-standin-cli.XXXXXX)
trap 'rm -rf "$work"' EXIT
export LD_LIBRARY_PATH=$standin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
name="stand-in: host memory, not a GPU"

# ---- 1. no opt-in ----------------------------------------------------------------------
env -u COLLVIZ_STANDIN "$collviz" devices > "$work/devices" 2>&1
if grep -q '^nccl  unavailable' "$work/devices" && grep -q 'cudaErrorStubLibrary.*COLLVIZ_STANDIN=1' "$work/devices"; then
  echo "ok: without COLLVIZ_STANDIN=1: $(grep -A1 '^nccl' "$work/devices" | tail -1 | sed 's/^ *//')"
else
  bad "without COLLVIZ_STANDIN=1 NCCL is not unavailable with the stand-in's reason: $(grep -A1 '^nccl' "$work/devices")"
fi
env -u COLLVIZ_STANDIN "$collviz" run --backend nccl --ranks 2 > "$work/out" 2> "$work/err"
rc=$?
if [ "$rc" -eq 2 ] && grep -q 'COLLVIZ_STANDIN=1' "$work/err"; then
  echo "ok: without the opt-in --backend nccl exits 2 with the reason"
else
  bad "without the opt-in --backend nccl: rc=$rc: $(head -c 300 "$work/err")"
fi

# ---- 2. opted in -------------------------------------------------------------------------
export COLLVIZ_STANDIN=1
"$collviz" devices > "$work/devices" 2>&1
grep -q "^      devices:   1 x $name (16 GiB)" "$work/devices" || bad "collviz devices: $(grep -A3 '^nccl' "$work/devices")"
grep -q "GPU 0:     $name, 16.0 GiB free" "$work/devices" || bad "collviz devices lacks the GPU 0 line"
"$collviz" devices --json > "$work/devices.json" 2>&1
python3 - "$work/devices.json" "$name" <<'EOF' || bad "collviz devices --json does not name the stand-in"
import json, sys
b = [x for x in json.load(open(sys.argv[1]))["backends"] if x["name"] == "nccl"][0]
assert b["available"] and sys.argv[2] in b["devices"], b
assert all(m["name"] == sys.argv[2] for m in b["gpu_memory"]), b["gpu_memory"]
EOF
"$collviz" run --backend nccl --op all_reduce --ranks 4 > "$work/out" 2> "$work/err"
rc=$?
if [ "$rc" -eq 0 ] && grep -q "^nccl 2.28.9 · 1 x $name (16 GiB); 4 ranks" "$work/out" && grep -q '^verified' "$work/out"; then
  echo "ok: the backend line: $(grep '^nccl ' "$work/out" | cut -c1-90)..."
else
  bad "collviz run --backend nccl: rc=$rc: $(head -5 "$work/out") $(head -c 300 "$work/err")"
fi
for extra in "--op reduce_scatter --ranks 3 --dtype bf16 --redop avg" "--algo ring --op all_reduce --ranks 4"; do
  # shellcheck disable=SC2086  # the options split on purpose
  "$collviz" run --backend nccl --json $extra > "$work/run.json" 2> "$work/err"
  rc=$?
  if [ "$rc" -eq 0 ] && python3 - "$work/run.json" "$name" <<'EOF'; then
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verified"] is True and sys.argv[2] in d["backend"]["devices"], (d.get("error"), d["backend"])
assert all(s["verified"] for s in d["steps"])
EOF
    echo "ok: collviz run --backend nccl --json $extra: verified, every step, on the stand-in"
  else
    bad "collviz run --backend nccl --json $extra: rc=$rc $(head -c 300 "$work/err")"
  fi
done

# ---- 3. nothing left behind ------------------------------------------------------------------
if [ "$(id -u)" -ne 0 ] || ! unshare -m -n true 2>/dev/null; then
  echo "note: not root or no private namespaces here: what runs leave behind is not checked"
else
  unshare -m -n --propagation private env COLLVIZ="$collviz" bash -s > "$work/ns.log" 2>&1 <<'EOF'
set -u
# The build stays reachable where it lies under /tmp (a clone there): bound
# aside, then back at its own path on the fresh /tmp, and not counted below.
build=$(dirname "$(dirname "$COLLVIZ")")
case "$build" in /tmp/*) mkdir -p /mnt/collviz-build && mount --bind "$build" /mnt/collviz-build ;; esac
mount -t tmpfs none /tmp && mount -t tmpfs none /dev/shm || { echo "FAIL: tmpfs"; exit 1; }
case "$build" in /tmp/*) mkdir -p "$build" && mount --bind /mnt/collviz-build "$build" ;; esac
"$COLLVIZ" run --backend nccl --op all_gather --ranks 3 > /dev/null 2>&1 || echo "FAIL: a run in the namespace"
# A rank killed mid-op (its process ends inside the op's stream work).
err=$(COLLVIZ_STANDIN_FAULT="r1/ncclAllReduce#1=kill" "$COLLVIZ" run --backend nccl --op all_reduce --ranks 3 2>&1 >/dev/null)
echo "$err" | grep -q "rank 1 .*killed by signal 9" || echo "FAIL: the killed rank is not reported: $(echo "$err" | tail -3)"
sleep 0.5
left=$(find /tmp /dev/shm -mindepth 1 2>/dev/null | while read -r p; do
  case "$build/" in "$p"/*) continue ;; esac
  case "$p" in "$build"/*) continue ;; esac
  echo "$p"
done)
[ -z "$left" ] || echo "FAIL: left behind: $left"
sockets=$(grep -c '@collviz-stand-in' /proc/net/unix)
[ "$sockets" -eq 0 ] || echo "FAIL: $sockets stand-in sockets left in the abstract namespace"
echo "checked: /tmp, /dev/shm and the abstract sockets after the runs"
EOF
  grep -E '^(FAIL|checked)' "$work/ns.log" | while read -r l; do echo "  $l"; done
  if grep -q '^FAIL' "$work/ns.log"; then bad "runs left something behind or failed in the namespace"; else
    echo "ok: nothing left in /tmp, /dev/shm or the abstract socket namespace (a killed rank among the runs)"; fi
fi
[ "$fail" -eq 0 ] && echo "PASS: the stand-in answers only when asked and never passes for a GPU"
exit "$fail"
